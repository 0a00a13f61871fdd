#!/bin/bash
# Session 15, 2-GPU call (issue 18): a DE generation of 40 with designs at once beyond the host threads
# (--batch-workers), 1 GPU against 2; TC1 DE 1 against 2; then the same under MPS.
set -u
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/s15}; mkdir -p $OUT
s=$OUT/summary.log
{ nvidia-smi -L; nproc; } | tee -a $s
cmp_runs() { python3 - "$@" <<'PY' | tee -a $OUT/summary.log
import json, sys
ref = {r["index"]: r for r in map(json.loads, open(sys.argv[1]))}
for f in sys.argv[2:]:
    try: b = {r["index"]: r for r in map(json.loads, open(f))}
    except OSError: print(f, "missing"); continue
    d = max((abs(ref[k]["objectives"][0] - b[k]["objectives"][0]) / abs(ref[k]["objectives"][0]) for k in ref if k in b and ref[k]["objectives"] and b[k]["objectives"]), default=float("nan"))
    print(f"  {f.split('/')[-1]} against {sys.argv[1].split('/')[-1]}: same indices {set(ref) == set(b)}, largest relative objective difference {d:.2e}")
PY
}
tc1() { # tag, devices
  local t0=$(date +%s%N); rm -rf /tmp/$1
  timeout 150 .gpu/turbopt optimize optimize/ls89_tc1_de.ron --backend gpu --devices $2 --out /tmp/$1 > $OUT/$1.log 2>&1
  echo "$1 (--devices $2): rc $? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(grep -E '^campaign .*budget' $OUT/$1.log | sed 's/.*(//')" | tee -a $s
  grep -h "GPU batch: 16" $OUT/$1.log | head -1 | tee -a $s
  cp /tmp/$1/evaluations.jsonl $OUT/$1.jsonl
}
G40_DEVICES="0 0@40 0,1 0,1@20" scripts/gpu-session generation-40
tc1 tc1-1gpu 0
tc1 tc1-2gpu 0,1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d && echo "MPS daemon started" | tee -a $s
G40_DEVICES="0,0,0,0@10 0,0,1,1@10 0,1@20" scripts/gpu-session generation-40
tc1 tc1-mps-1gpu 0,0,0,0
tc1 tc1-mps-2gpu 0,0,1,1
echo quit | nvidia-cuda-mps-control
cmp_runs $OUT/g40-0.jsonl $OUT/g40-0-w40.jsonl $OUT/g40-0-1.jsonl $OUT/g40-0-1-w20.jsonl $OUT/g40-0-0-0-0-w10.jsonl $OUT/g40-0-0-1-1-w10.jsonl
cmp_runs $OUT/tc1-1gpu.jsonl $OUT/tc1-2gpu.jsonl $OUT/tc1-mps-1gpu.jsonl $OUT/tc1-mps-2gpu.jsonl
