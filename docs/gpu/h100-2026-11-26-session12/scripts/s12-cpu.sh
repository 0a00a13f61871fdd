#!/usr/bin/env bash
# Session 12: LS89 TC1 DE with warm starts from the nearest evaluated design on the host's cores (CPU backend).
R=$OUT; mkdir -p /tmp/cpu
sed "s/constraints: \[ExitAngleAtLeast(74.0)\],/constraints: [ExitAngleAtLeast(74.0)],\n        warm_start_from: Nearest,/" optimize/ls89_tc1_de.ron > /tmp/cpu/tc1-de-nearest.ron
nproc > $R/summary.log
s=$(date +%s%N)
timeout 580 .gpu/turbopt optimize /tmp/cpu/tc1-de-nearest.ron --backend cpu --out /tmp/cpu/tc1n-cpu > $R/tc1n-cpu.log 2>&1
echo "tc1n-cpu: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a $R/summary.log
cp /tmp/cpu/tc1n-cpu/evaluations.jsonl $R/tc1n-cpu.jsonl
