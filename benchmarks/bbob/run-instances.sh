#!/usr/bin/env bash
# The BBOB 5-D runs at 50 D evaluations per dimension of issue 16 (turbopt's Kriging optimizer against
# egobox's EGO), one instance at a time, so that a run cut short loses one instance at most:
#   ./run-instances.sh kriging|egobox [DIR (default runs/r13)] [FIRST (2)] [LAST (15)]
# Instance N goes to DIR/<tool>/iN (run-one.sh: COCO's exdata/, run.log, and a `done` file that makes a
# later call skip it). One core each (the thread pools pinned to 1); run at `nice -n 19` beside other
# work. On a many-core host, run-parallel.sh runs one job per instance and function instead.
# Summaries: python3 summarize.py --instances 1-5,71-80 DIR/kriging DIR/egobox
set -u
cd "$(dirname "$0")"
tool=$1; dir=$(mkdir -p "${2:-runs/r13}" && cd "${2:-runs/r13}" && pwd); first=${3:-2}; last=${4:-15}
case $tool in kriging|egobox) ;; *) echo "usage: $0 kriging|egobox [DIR] [FIRST] [LAST]" >&2; exit 2 ;; esac
for i in $(seq "$first" "$last"); do
  ./run-one.sh "$tool" "$i" 1-24 "$dir/$tool/i$i"
done
