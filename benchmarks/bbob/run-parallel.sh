#!/usr/bin/env bash
# The 5-D runs of run-instances.sh spread over a many-core host: one job per (tool, instance,
# function), as many at once as there are cores (JOBS), each into DIR/<tool>/iN/fF (run-one.sh:
# finished jobs are skipped, so a call cut short, or stopped at LIMIT seconds, after which the
# unfinished jobs are killed, resumes where it stopped).
#   ./run-parallel.sh DIR SPEC...      SPEC = kriging:4-15 or egobox:11-15 (tool:instances)
#   JOBS=64 LIMIT=540 ./run-parallel.sh /tmp/bbob kriging:4-15 egobox:13-15
# The data of one instance read as one with summarize.py, which reads a folder with its subfolders.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd); shift
for spec in "$@"; do
  tool=${spec%%:*}; range=${spec#*:}
  for i in $(seq "${range%-*}" "${range#*-}"); do for f in $(seq 1 24); do echo "$tool $i $f $dir/$tool/i$i/f$f"; done; done
done | timeout --signal=TERM "${LIMIT:-infinity}" xargs -P "${JOBS:-$(nproc)}" -L 1 "$here/run-one.sh"
left=$(find "$dir" -mindepth 3 -maxdepth 3 -type d | while read -r d; do [ -f "$d/done" ] || echo "$d"; done | wc -l)
echo "run-parallel: $(find "$dir" -name done | wc -l) jobs done, $left unfinished under $dir"
