#!/usr/bin/env bash
# One 5-D BBOB run at 50 D evaluations per dimension (issue 16) into the current folder: turbopt's
# Kriging optimizer or egobox's EGO on one instance and the given functions, COCO's exdata/ and
# run.log written here. Called by run-instances.sh (one instance after another) and
# run-parallel.sh (one job per instance and function on a many-core host). Seeds depend only on
# the problem, so a function run alone gives the same data as in a run of all 24.
#   run-one.sh kriging|egobox INSTANCE FUNCTIONS
# BBOB_BIN: the turbopt-bbob executable (default: this folder's target/release/turbopt-bbob).
set -u
here=$(cd "$(dirname "$0")" && pwd)
export RAYON_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
case $1 in
  kriging) exec "${BBOB_BIN:-$here/target/release/turbopt-bbob}" --optimizer kriging --dimensions 5 --instances "$2" \
             --functions "$3" --budget 50 --suite-instances "instances: 1-5,71-80" > run.log 2>&1 ;;
  egobox)  exec python3 "$here/peers.py" --solver egobox --dimensions 5 --instances "$2" --functions "$3" --budget 50 > run.log 2>&1 ;;
  *) echo "usage: $0 kriging|egobox INSTANCE FUNCTIONS" >&2; exit 2 ;;
esac
