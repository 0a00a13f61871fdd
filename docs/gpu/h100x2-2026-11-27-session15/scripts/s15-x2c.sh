#!/bin/bash
# Session 15, 2-GPU call 3 (issue 18): 1 GPU against 2, with and without MPS, alternated
set -u
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/s15c}; mkdir -p /tmp/s15c-logs
L=/tmp/s15c-logs; s=$L/summary.log
TIMEFORMAT='real %R s user %U s sys %S s'
sed -e "s/population: Some(40)/population: Some(20)/; s/budget: 41/budget: 21/; s/generation-40\"/generation-20\"/" scripts/tc1-de-generation-40.ron > /tmp/g20.ron
gen() { # tag, campaign, devices, batch workers, [env]
  local tag=$1 ron=$2 devs=$3 w=$4; shift 4
  rm -rf /tmp/$tag
  { time env "$@" timeout 200 .gpu/turbopt optimize $ron --backend gpu --devices $devs --batch-workers $w --out /tmp/$tag > $L/$tag.log 2>&1 ; } 2> $L/$tag.time
  python3 - /tmp/$tag/evaluations.jsonl "$tag $* $(cat $L/$tag.time)" <<'PY' | tee -a $s
import json, sys
rows = {r["index"]: r for r in map(json.loads, open(sys.argv[1]))}
gen = [r for k, r in rows.items() if k > 0]
w = max(r['elapsed_s'] for r in gen) - rows[0]['elapsed_s']; its = sum(r['iterations'] for r in gen)
print(f"{sys.argv[2]}: {len(gen)} designs in {w:.2f} s after the baseline, {its} flow iterations, {its / w:.0f} design-iterations/s")
PY
}
tc1() { # tag, devices
  local t0=$(date +%s%N); rm -rf /tmp/$1
  timeout 150 .gpu/turbopt optimize optimize/ls89_tc1_de.ron --backend gpu --devices $2 --out /tmp/$1 > $L/$1.log 2>&1
  echo "$1 (--devices $2): rc $? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(grep -E '^campaign .*budget' $L/$1.log | sed 's/.*(//')" | tee -a $s
}
nvidia-smi -L | tee -a $s; nproc | tee -a $s
gen g40-1gpu scripts/tc1-de-generation-40.ron 0 40
gen g40-2gpu scripts/tc1-de-generation-40.ron 0,1 20
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d && echo "MPS daemon started" | tee -a $s
gen g40-mps-1gpu scripts/tc1-de-generation-40.ron 0,0,0,0 10
gen g40-mps-2gpu scripts/tc1-de-generation-40.ron 0,0,1,1 10
gen g40-mps-1gpu-b scripts/tc1-de-generation-40.ron 0,0,0,0 10
gen g40-mps-2gpu-b scripts/tc1-de-generation-40.ron 0,0,1,1 10
tc1 tc1-mps-1gpu 0,0,0,0
tc1 tc1-mps-2gpu 0,0,1,1
echo quit | nvidia-cuda-mps-control; sleep 1; echo "MPS daemon stopped" | tee -a $s
gen g40-1gpu-b scripts/tc1-de-generation-40.ron 0 40
gen g40-2gpu-b scripts/tc1-de-generation-40.ron 0,1 20
for t in /tmp/g40-* /tmp/tc1-*; do cp $t/evaluations.jsonl $L/$(basename $t).jsonl; done
tar czf $OUT/s15-x2c.tgz -C /tmp s15c-logs
