#!/usr/bin/env bash
# The 5-D runs of run-instances.sh spread over a many-core host: one job per (tool, instance,
# function), as many at once as there are cores (JOBS), each into DIR/<tool>/iN/fF with a `done`
# file (exit status, seconds) when it finishes; finished jobs are skipped, so a call cut short (or
# stopped at LIMIT seconds, after which the unfinished jobs are killed) resumes where it stopped.
#   ./run-parallel.sh DIR SPEC...      SPEC = kriging:4-15 or egobox:11-15 (tool:instances)
#   JOBS=64 LIMIT=540 ./run-parallel.sh /tmp/bbob kriging:4-15 egobox:13-15
# The data of one instance read as one with summarize.py, which reads a folder with its subfolders.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd); shift
jobs=${JOBS:-$(nproc)}
job() {  # tool instance function
  local d=$dir/$1/i$2/f$3
  [ -f "$d/done" ] && return 0
  rm -rf "$d"; mkdir -p "$d"
  local start=$(date +%s)
  (cd "$d" && "$here/run-one.sh" "$1" "$2" "$3")
  echo "rc=$? seconds=$(( $(date +%s) - start ))" > "$d/done"
}
export -f job; export dir here
for spec in "$@"; do
  tool=${spec%%:*}; range=${spec#*:}
  for i in $(seq "${range%-*}" "${range#*-}"); do for f in $(seq 1 24); do echo "$tool $i $f"; done; done
done | if [ -n "${LIMIT:-}" ]; then timeout --signal=TERM "$LIMIT" xargs -P "$jobs" -L 1 bash -c 'job "$@"' _
       else xargs -P "$jobs" -L 1 bash -c 'job "$@"' _; fi
left=$(find "$dir" -mindepth 3 -maxdepth 3 -type d | while read -r d; do [ -f "$d/done" ] || echo "$d"; done | wc -l)
echo "run-parallel: $(find "$dir" -name done | wc -l) jobs done, $left unfinished under $dir"
