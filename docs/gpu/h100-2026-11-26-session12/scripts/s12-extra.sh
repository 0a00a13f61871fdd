#!/usr/bin/env bash
# Session 12: the recovery chain with the extra stage first, on the generation of 40 and LS89 TC1 DE (one GPU).
set -u
R=$OUT; mkdir -p /tmp/ex
for f in scripts/tc1-de-generation-40.ron optimize/ls89_tc1_de.ron; do
  tag=$(basename $f .ron)
  s=$(date +%s%N)
  timeout 200 .gpu/turbopt optimize $f --backend gpu --out /tmp/ex/$tag > /tmp/ex/$tag.log 2>&1
  echo "$tag: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' /tmp/ex/$tag.log | sed 's/.*(//'); $(grep 'best objective' /tmp/ex/$tag.log)" | tee -a $R/summary.log
  cp /tmp/ex/$tag/evaluations.jsonl $R/$tag-extra-stage.jsonl 2>/dev/null
done
