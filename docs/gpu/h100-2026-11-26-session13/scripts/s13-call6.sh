#!/usr/bin/env bash
# Session 13, call 6: block size of the per-component preconditioner kernels (sweeps, block-Jacobi
# apply, factorization levels): TURBOPT_SWEEP_THREADS = 128 (default), 256, 512, alternated over two
# rounds on the batch of 16 and one coarse solve each. The kernels hold no reduction, so the designs
# and iterations must not change.
set -u
R=$OUT; T=/tmp/s13c6; mkdir -p $T
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt; nproc >> $R/gpu.txt
sed -e "s/population: Some(40)/population: Some(16)/; s/budget: 41/budget: 17/" scripts/tc1-de-generation-40.ron > $T/g16.ron
for round in 1 2; do
  for th in 128 256 512; do
    tag=g16-$th-$round
    TURBOPT_SWEEP_THREADS=$th timeout 120 .gpu/turbopt optimize $T/g16.ron --backend gpu --out $T/$tag > $T/$tag.log 2>&1
    python3 - $T/$tag/evaluations.jsonl $tag <<'PY' | tee -a $R/summary.log
import json, sys
rows = {r["index"]: r for r in map(json.loads, open(sys.argv[1]))}
gen = [r for k, r in rows.items() if k > 0]
wall = max(r['elapsed_s'] for r in gen) - rows[0]['elapsed_s']
its = sum(r['iterations'] for r in gen)
print(f"{sys.argv[2]}: 16 designs in {wall:.2f} s after the baseline ({rows[0]['solver_wall_s']:.2f} s), {its} flow iterations, {its / wall:.0f} design-iterations/s, objective sum {sum(r['objectives'][0] for r in gen):.12e}")
PY
    TURBOPT_SWEEP_THREADS=$th .gpu/turbopt solve blades/ls89.ron --case MUR47 --density coarse --backend gpu --out $T/solve > $T/solve-$th-$round.log 2>&1
    echo "  coarse solve $th: $(grep -E 'implicit:|time:' $T/solve-$th-$round.log | tr '\n' ' ')" | tee -a $R/summary.log
  done
done
tar czf $R/s13c6.tgz -C /tmp s13c6
