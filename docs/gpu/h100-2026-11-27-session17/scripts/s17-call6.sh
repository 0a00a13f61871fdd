#!/usr/bin/env bash
# Session 17, call 6: MPS detected by the pool (a device listed once that runs under MPS gets 4 contexts):
# TC1 Kriging without MPS (one worker, as before), then TC1 DE and Kriging with the MPS daemon running and
# no --devices flag. Objectives are compared afterwards with session 16's runs (one context, no MPS).
set -u
R=$OUT; S=/tmp/s17c6; mkdir -p $S
nvidia-smi -L | tee $S/summary.log
run() { # tag, campaign file
  rm -rf "/tmp/run-$1"
  local s; s=$(date +%s%N)
  timeout 120 .gpu/turbopt optimize "$2" --backend gpu --out "/tmp/run-$1" > "$S/$1.log" 2>&1
  echo "$1: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E 'GPU batch' "$S/$1.log" | head -1); $(grep -E '^campaign .*budget|best objective' "$S/$1.log" | tr '\n' ' ')" >> $S/summary.log
  cp "/tmp/run-$1/evaluations.jsonl" "$S/$1.jsonl"
}
timeout 60 .gpu/turbopt solve blades/ls89.ron --case MUR47 --density coarse --backend gpu --out /tmp/warm > $S/warm.log 2>&1
run kriging-no-mps optimize/ls89_tc1_kriging.ron
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d && echo "MPS started" >> $S/summary.log
run de-mps-auto optimize/ls89_tc1_de.ron
run kriging-mps-auto optimize/ls89_tc1_kriging.ron
echo quit | nvidia-cuda-mps-control
tar czf $R/s17c6.tgz -C /tmp s17c6
