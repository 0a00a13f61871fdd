#!/usr/bin/env bash
# Session 12: FGMRES relative tolerance 0.1 (default) against 0.2 on single GPU solves of other cases, and
# 3 stages with tolerance 0.2 on the generation of 40 and TC1 DE.
set -u
R=$OUT; mkdir -p /tmp/tol
for t in 0.1 0.2; do echo "(model: spalart_allmaras, scheme: implicit((gmres: (restart: 20, rel_tol: $t, abs_tol: 1e-300, max_iterations: 60))))" > /tmp/tol/tol$t.ron; done
solve() { # blade case density
  for t in 0.1 0.2; do
    local s=$(date +%s%N)
    timeout 120 .gpu/turbopt solve "$1" --case "$2" --density "$3" --backend gpu --config /tmp/tol/tol$t.ron --out /tmp/tol/out --json > /tmp/tol/solve.json 2>/tmp/tol/solve.err
    local rc=$?
    echo "$(basename $1 .ron) $2 $3 tol $t: rc $rc $(( ($(date +%s%N) - s) / 1000000 )) ms; $(tail -1 /tmp/tol/solve.json | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["iterations"], "its", round(d["wall_s"],2), "s", d["stop"], "entropy", d["entropy_rise"], "angle", round(d["exit_angle_deg"],4), "loss", d["loss_coefficient"])' 2>&1 | tail -1)" | tee -a $R/summary.log
  done
}
solve blades/ls89.ron MUR47 coarse
solve blades/ls89.ron MUR47 medium
solve blades/ls89.ron TC2_OP3 coarse
solve blades/ls89.ron TC3_OP1_P30 coarse
solve blades/t106c.ron M065_RE290K coarse
solve blades/t106c.ron M065_RE290K medium
V="scheme: implicit((stages: 3, gmres: (restart: 20, rel_tol: 0.2, abs_tol: 1e-300, max_iterations: 60)))"
for f in scripts/tc1-de-generation-40.ron optimize/ls89_tc1_de.ron; do
  tag=$(basename $f .ron)-s3tol2
  sed "s/config: (model: spalart_allmaras)/config: (model: spalart_allmaras, $V)/" $f > /tmp/tol/$tag.ron
  s=$(date +%s%N)
  timeout 150 .gpu/turbopt optimize /tmp/tol/$tag.ron --backend gpu --out /tmp/tol/$tag > /tmp/tol/$tag.log 2>&1
  echo "$tag: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' /tmp/tol/$tag.log | sed 's/.*(//'); $(grep 'best objective' /tmp/tol/$tag.log)" | tee -a $R/summary.log
  cp /tmp/tol/$tag/evaluations.jsonl $R/$tag.jsonl 2>/dev/null
done
