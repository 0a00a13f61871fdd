#!/usr/bin/env bash
# The 5-D runs of run-instances.sh spread over a many-core host: one job per (tool, instance,
# function), as many at once as there are cores (JOBS), each into DIR/<tool>/iN/fF (run-one.sh:
# finished jobs are skipped, so a call cut short, or stopped at LIMIT seconds, after which the
# unfinished jobs are killed, resumes where it stopped).
#   ./run-parallel.sh DIR SPEC...      SPEC = kriging:4-15 or egobox:11-15 (tool:instances)
#   JOBS=64 LIMIT=540 ./run-parallel.sh /tmp/bbob kriging:4-15 egobox:13-15
# Jobs start slowest function first (ORDER; the default is turbopt's Kriging, slowest first as
# measured over instances 4-8), so that a LIMIT cuts the short jobs that started last.
# The data of one instance read as one with summarize.py, which reads a folder with its subfolders.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd); shift
order=${ORDER:-12 9 10 8 20 2 6 14 4 11 13 16 7 21 22 3 17 18 15 19 23 24 1 5}
for f in $order; do
  for spec in "$@"; do
    tool=${spec%%:*}; range=${spec#*:}
    for i in $(seq "${range%-*}" "${range#*-}"); do echo "$tool $i $f $dir/$tool/i$i/f$f"; done
  done
done | timeout --signal=TERM "${LIMIT:-infinity}" xargs -P "${JOBS:-$(nproc)}" -L 1 "$here/run-one.sh"
left=$(find "$dir" -mindepth 3 -maxdepth 3 -type d | while read -r d; do [ -f "$d/done" ] || echo "$d"; done | wc -l)
echo "run-parallel: $(find "$dir" -name done | wc -l) jobs done, $left unfinished under $dir"
