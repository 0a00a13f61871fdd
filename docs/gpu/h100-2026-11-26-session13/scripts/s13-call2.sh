#!/usr/bin/env bash
# Session 13, call 2: the Jacobi sweeps and the block-Jacobi apply with a thread per row and
# component (cuda/ilu.cu) against the previous kernels (.gpu/turbopt-old, built from 9ba8a30):
# parity first, then the same runs alternated old/new on this one GPU.
set -u
R=$OUT; T=/tmp/s13c2; mkdir -p $T
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt; nproc >> $R/gpu.txt
P=$(ls .gpu/gpu_parity-* | head -1)
timeout 240 $P --include-ignored --test-threads=1 > $T/parity.log 2>&1; echo "gpu_parity rc $?" | tee -a $R/summary.log
grep -E "^test |test result" $T/parity.log | tail -25 >> $R/summary.log
run() { # tag, binary, campaign file
  local s=$(date +%s%N)
  timeout 200 .gpu/$2 optimize "$3" --backend gpu --out "$T/$1" > "$T/$1.log" 2>&1
  echo "$1 ($2): rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep 'best objective' $T/$1.log)" | tee -a $R/summary.log
  cp "$T/$1/evaluations.jsonl" "$T/$1.jsonl" 2>/dev/null
  python3 - "$T/$1.jsonl" <<'PY' | tee -a $R/summary.log
import json, sys
rows = {r["index"]: r for r in map(json.loads, open(sys.argv[1]))}
gen = [r for k, r in rows.items() if k > 0]
wall = max(r['elapsed_s'] for r in gen) - rows[0]['elapsed_s']
its = sum(r['iterations'] for r in gen)
print(f"  {len(gen)} designs in {wall:.2f} s after the baseline ({rows[0]['solver_wall_s']:.2f} s, {rows[0]['iterations']} its), {its} flow iterations, {its / wall:.0f} design-iterations/s")
PY
}
G=scripts/tc1-de-generation-40.ron
sed -e "s/population: Some(40)/population: Some(16)/; s/budget: 41/budget: 17/" $G > $T/g16-coarse.ron
sed -e "s/density: coarse/density: medium/" $T/g16-coarse.ron > $T/g16-medium.ron
for round in 1 2; do
  run g16-coarse-old-$round turbopt-old $T/g16-coarse.ron
  run g16-coarse-new-$round turbopt $T/g16-coarse.ron
done
run g16-medium-new turbopt $T/g16-medium.ron
run g16-medium-old turbopt-old $T/g16-medium.ron
for b in turbopt turbopt-old; do
  s=$(date +%s%N)
  .gpu/$b solve blades/ls89.ron --case MUR47 --density medium --backend gpu > $T/medium-$b.log 2>&1
  echo "LS89 medium solve ($b): rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -iE 'converged|iterations' $T/medium-$b.log | head -2 | tr '\n' ' ')" | tee -a $R/summary.log
done
run tc1-new turbopt optimize/ls89_tc1_de.ron
run tc1-old turbopt-old optimize/ls89_tc1_de.ron
tar czf $R/s13c2.tgz -C /tmp s13c2
