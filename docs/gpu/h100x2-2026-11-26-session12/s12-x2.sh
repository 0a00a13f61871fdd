#!/usr/bin/env bash
# Session 12, issue 18: one DE generation of 40 LS89 coarse designs and the TC1 DE campaign on 1 and 2 GPUs,
# then TC1 DE with warm starts from the nearest evaluated design on 2 GPUs and 1 (results must match by index).
set -u
R=$OUT; mkdir -p /tmp/x2
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt; nproc >> $R/gpu.txt
run() { # tag, devices, campaign file
  local s=$(date +%s%N)
  timeout 240 .gpu/turbopt optimize "$3" --backend gpu --devices "$2" --out "/tmp/x2/$1" > "/tmp/x2/$1.log" 2>&1
  echo "$1 devices $2: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' /tmp/x2/$1.log); $(grep 'best objective' /tmp/x2/$1.log)" | tee -a $R/summary.log
  grep "GPU batch" "/tmp/x2/$1.log" | sort | uniq -c | head -3 >> $R/summary.log
  cp "/tmp/x2/$1/evaluations.jsonl" "/tmp/x2/$1.jsonl"
}
sed "s/constraints: \[ExitAngleAtLeast(74.0)\],/constraints: [ExitAngleAtLeast(74.0)],\n        warm_start_from: Nearest,/" optimize/ls89_tc1_de.ron > /tmp/x2/tc1-de-nearest.ron
run g40-1gpu 0 scripts/tc1-de-generation-40.ron
run g40-2gpu 0,1 scripts/tc1-de-generation-40.ron
run tc1-2gpu 0,1 optimize/ls89_tc1_de.ron
run tc1-1gpu 0 optimize/ls89_tc1_de.ron
run tc1n-2gpu 0,1 /tmp/x2/tc1-de-nearest.ron
run tc1n-1gpu 0 /tmp/x2/tc1-de-nearest.ron
# (the by-index comparison of the runs followed here; its output is in summary.log)
tar czf $R/x2.tgz -C /tmp x2
