#!/usr/bin/env bash
# Session 12, call 1: the GPU tests after the implicit-ops cleanups, then the batch test and TC1 DE as controls.
export OUT_FINAL=$OUT
export OUT=/tmp/s12; mkdir -p $OUT
for p in info parity verify batch; do
  s=$(date +%s); scripts/gpu-session $p > $OUT/part-$p.txt 2>&1; echo "part $p rc $? $(( $(date +%s) - s )) s" | tee -a $OUT/summary.log
done
s=$(date +%s); TC1_FILES=de scripts/gpu-session campaign-tc1 > $OUT/part-tc1.txt 2>&1; echo "part tc1 rc $? $(( $(date +%s) - s )) s" | tee -a $OUT/summary.log
cp $OUT/summary.log $OUT_FINAL/
tar czf $OUT_FINAL/call1.tgz -C /tmp s12
