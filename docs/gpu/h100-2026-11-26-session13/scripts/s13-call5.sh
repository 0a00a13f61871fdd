#!/usr/bin/env bash
# Session 13, call 5 (final build, pictures from the evaluations): (1) session 12's single GPU
# solves of other cases (LS89 TC2/TC3 points, T106C-class coarse and medium) with the same config:
# the kernels changed this session do the same arithmetic, so the iterations and figures must be
# session 12's to the last digit; (2) TC1 DE wall time; (3) a probe: classical Gram-Schmidt twice
# against modified in a batch of 16, alternated.
set -u
R=$OUT; T=/tmp/s13c5; mkdir -p $T
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt; nproc >> $R/gpu.txt
echo "(model: spalart_allmaras, scheme: implicit((gmres: (restart: 20, rel_tol: 0.1, abs_tol: 1e-300, max_iterations: 60))))" > $T/tol0.1.ron
solve() { # blade case density
  local s=$(date +%s%N)
  timeout 120 .gpu/turbopt solve "$1" --case "$2" --density "$3" --backend gpu --config $T/tol0.1.ron --out $T/out --json > $T/solve.json 2>$T/solve.err
  local rc=$?
  echo "$(basename $1 .ron) $2 $3 tol 0.1: rc $rc $(( ($(date +%s%N) - s) / 1000000 )) ms; $(tail -1 $T/solve.json | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["iterations"], "its", round(d["wall_s"],2), "s", d["stop"], "entropy", d["entropy_rise"], "angle", round(d["exit_angle_deg"],4), "loss", d["loss_coefficient"])' 2>&1 | tail -1)" | tee -a $R/summary.log
}
solve blades/ls89.ron MUR47 coarse
solve blades/ls89.ron MUR47 medium
solve blades/ls89.ron TC2_OP3 coarse
solve blades/ls89.ron TC3_OP1_P30 coarse
solve blades/t106c.ron M065_RE290K coarse
solve blades/t106c.ron M065_RE290K medium
run() { # tag, campaign file
  local s=$(date +%s%N)
  timeout 200 .gpu/turbopt optimize "$2" --backend gpu --out "$T/$1" > "$T/$1.log" 2>&1
  echo "$1: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' $T/$1.log); $(grep 'best objective' $T/$1.log)" | tee -a $R/summary.log
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
run tc1-de optimize/ls89_tc1_de.ron
ls $T/tc1-de >> $R/summary.log
G=scripts/tc1-de-generation-40.ron
sed -e "s/population: Some(40)/population: Some(16)/; s/budget: 41/budget: 17/" $G > $T/g16-mgs.ron
sed "s/config: (model: spalart_allmaras)/config: (model: spalart_allmaras, scheme: implicit((gmres: (restart: 20, rel_tol: 0.1, abs_tol: 1e-300, max_iterations: 60, gram_schmidt: classical_twice))))/" $T/g16-mgs.ron > $T/g16-cgs2.ron
grep -q classical_twice $T/g16-cgs2.ron || echo "cgs2 not applied" | tee -a $R/summary.log
for round in 1 2; do run g16-mgs-$round $T/g16-mgs.ron; run g16-cgs2-$round $T/g16-cgs2.ron; done
tar czf $R/s13c5.tgz -C /tmp s13c5
