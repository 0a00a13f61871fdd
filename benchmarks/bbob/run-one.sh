#!/usr/bin/env bash
# One 5-D BBOB run at 50 D evaluations per dimension (issue 16) into folder DIR: turbopt's Kriging
# optimizer or egobox's EGO on one instance and the given functions, COCO's exdata/ and run.log in
# DIR, then, when the run exits cleanly, a `done` file with the seconds it took. A DIR that has its
# `done` file is skipped, an unfinished or failed one starts again (a run killed at a LIMIT or by a
# signal leaves no `done` file), so the runners below resume where a run was cut short:
# run-instances.sh (one instance after another) and run-parallel.sh (one job per instance and
# function on a many-core host). Seeds depend only on the problem, so a function run alone gives
# the same data as in a run of all 24.
#   run-one.sh kriging|egobox INSTANCE FUNCTIONS DIR
# BBOB_BIN: the turbopt-bbob executable (default: this folder's target/release/turbopt-bbob).
set -u
[ $# = 4 ] || { echo "usage: $0 kriging|egobox INSTANCE FUNCTIONS DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tool=$1 instance=$2 functions=$3 dir=$4
[ -f "$dir/done" ] && exit 0
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
export RAYON_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
start=$(date +%s)
case $tool in
  kriging) "${BBOB_BIN:-$here/target/release/turbopt-bbob}" --optimizer kriging --dimensions 5 --instances "$instance" \
             --functions "$functions" --budget 50 --suite-instances "instances: 1-5,71-80" > run.log 2>&1 ;;
  egobox)  python3 "$here/peers.py" --solver egobox --dimensions 5 --instances "$instance" --functions "$functions" --budget 50 > run.log 2>&1 ;;
  *) echo "usage: $0 kriging|egobox INSTANCE FUNCTIONS DIR" >&2; exit 2 ;;
esac
rc=$?
[ $rc = 0 ] || { echo "run-one: $tool instance $instance f$functions exited with status $rc, not done ($dir)" >&2; exit $rc; }
echo "rc=0 seconds=$(( $(date +%s) - start ))" > done
