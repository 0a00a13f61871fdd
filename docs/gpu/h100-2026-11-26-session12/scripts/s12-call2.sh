#!/usr/bin/env bash
# Session 12, call 2: LS89 TC1 DE and Kriging with warm starts from the baseline (default) and from the nearest evaluated design.
set -u
R=$OUT; mkdir -p /tmp/c2
run() { # tag, campaign file
  local s=$(date +%s%N)
  timeout 200 .gpu/turbopt optimize "$2" --backend gpu --out "/tmp/c2/$1" > "/tmp/c2/$1.log" 2>&1
  echo "$1: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' /tmp/c2/$1.log); $(grep 'best objective' /tmp/c2/$1.log)" | tee -a $R/summary.log
  cp "/tmp/c2/$1/evaluations.jsonl" "/tmp/c2/$1.jsonl"
}
for f in de kriging; do
  sed "s/constraints: \[ExitAngleAtLeast(74.0)\],/constraints: [ExitAngleAtLeast(74.0)],\n        warm_start_from: Nearest,/" optimize/ls89_tc1_$f.ron > /tmp/c2/tc1-$f-nearest.ron
  grep -q "warm_start_from: Nearest" /tmp/c2/tc1-$f-nearest.ron || echo "sed failed for $f" | tee -a $R/summary.log
done
run de-nearest /tmp/c2/tc1-de-nearest.ron
run de-baseline optimize/ls89_tc1_de.ron
run kriging-nearest /tmp/c2/tc1-kriging-nearest.ron
run kriging-baseline optimize/ls89_tc1_kriging.ron
tar czf $R/call2.tgz -C /tmp c2
