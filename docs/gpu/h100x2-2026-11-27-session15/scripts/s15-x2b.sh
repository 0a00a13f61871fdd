#!/bin/bash
# Session 15, 2-GPU call 2 (issue 18): why two GPUs give 1.1-1.2x on a generation of 40 - host CPU time
# (bash `time`), the host sync mode, and two processes (one per GPU) against one process on both.
set -u
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/s15b}; mkdir -p /tmp/s15b-logs
L=/tmp/s15b-logs; s=$L/summary.log
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
nvidia-smi -L | tee -a $s; nproc | tee -a $s
gen g40-1gpu scripts/tc1-de-generation-40.ron 0 40
gen g40-2gpu scripts/tc1-de-generation-40.ron 0,1 20
gen g40-2gpu-blocking scripts/tc1-de-generation-40.ron 0,1 20 TURBOPT_CUDA_SCHED=blocking
gen g40-2gpu-spin scripts/tc1-de-generation-40.ron 0,1 20 TURBOPT_CUDA_SCHED=spin
gen g20-dev0-alone /tmp/g20.ron 0 20
echo "two processes at once, one per GPU:" | tee -a $s
gen g20-dev0-pair /tmp/g20.ron 0 20 & gen g20-dev1-pair /tmp/g20.ron 1 20 & wait
gen g40-2gpu-again scripts/tc1-de-generation-40.ron 0,1 20
gen g40-1gpu-again scripts/tc1-de-generation-40.ron 0 40
for t in /tmp/g40-* /tmp/g20-*; do cp $t/evaluations.jsonl $L/$(basename $t).jsonl; done
tar czf $OUT/s15-x2b.tgz -C /tmp s15b-logs
