#!/usr/bin/env bash
# Session 14, call 7: TC1 DE and Kriging on one GPU split over 4 CUDA contexts (`--devices 0,0,0,0`) under MPS
# (nvidia-cuda-mps-control -d, stopped after), against the shipped run in one context without MPS, same machine.
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/summary.log"
run() { # tag, campaign file, extra args
  rm -rf "/tmp/run-$1"
  local s; s=$(date +%s%N)
  timeout 150 .gpu/turbopt optimize "$2" --backend gpu $3 --out "/tmp/run-$1" > "$OUT/$1.log" 2>&1
  echo "$1: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E 'GPU batch' "$OUT/$1.log" | head -1); $(grep -E '^campaign .*budget|best objective' "$OUT/$1.log" | tr '\n' ' ')" | tee -a "$OUT/summary.log"
  cp "/tmp/run-$1/evaluations.jsonl" "$OUT/$1.jsonl"
}
# Warm the driver's JIT cache and the kernel cache first (a fresh machine's first run pays about 6 s once).
.gpu/turbopt solve blades/ls89.ron --case MUR47 --density coarse --backend gpu --out /tmp/warm > "$OUT/warm.log" 2>&1
run de-one-context optimize/ls89_tc1_de.ron ""
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d && echo "MPS started" | tee -a "$OUT/summary.log"
run de-mps-4 optimize/ls89_tc1_de.ron "--devices 0,0,0,0"
run kriging-mps-4 optimize/ls89_tc1_kriging.ron "--devices 0,0,0,0"
echo quit | nvidia-cuda-mps-control
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
run kriging-one-context optimize/ls89_tc1_kriging.ron ""
python3 - "$OUT" <<'PY' | tee -a "$OUT/summary.log"
import json, sys
d = {t: {r["index"]: r for r in map(json.loads, open(f"{sys.argv[1]}/{t}.jsonl"))} for t in ["de-one-context", "de-mps-4", "kriging-one-context", "kriging-mps-4"]}
for a, b in [("de-mps-4", "de-one-context"), ("kriging-mps-4", "kriging-one-context")]:
    diff = max(abs(d[a][k]["objectives"][0] - d[b][k]["objectives"][0]) / abs(d[b][k]["objectives"][0]) for k in d[b] if k in d[a])
    print(f"{a} against {b}: same indices {set(d[a]) == set(d[b])}, largest relative objective difference {diff:.2e}")
PY
cd "$OUT" && tar czf /tmp/call7-logs.tgz --exclude=summary.log . && find . -type f ! -name summary.log -delete && mv /tmp/call7-logs.tgz .
