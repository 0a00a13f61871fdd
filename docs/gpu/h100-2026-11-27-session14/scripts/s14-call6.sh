#!/usr/bin/env bash
# Session 14, call 6 (final build): TC1 DE shipped and with `warm_start_from: Nearest` (opt-in), TC1 Kriging with
# Nearest and with 16 infill designs a cycle (batch_size: Some(16)) instead of 8; objective and wall of each.
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/summary.log"
near() { sed "s/constraints: \[ExitAngleAtLeast(74.0)\],/constraints: [ExitAngleAtLeast(74.0)],\n        warm_start_from: Nearest,/" "$1"; }
near optimize/ls89_tc1_de.ron > /tmp/tc1-de-nearest.ron
near optimize/ls89_tc1_kriging.ron > /tmp/tc1-kriging-nearest.ron
sed "s/TwoLevel(batch_size: Some(8))/TwoLevel(batch_size: Some(16))/" optimize/ls89_tc1_kriging.ron > /tmp/tc1-kriging-b16.ron
grep -q "warm_start_from: Nearest" /tmp/tc1-de-nearest.ron && grep -q "warm_start_from: Nearest" /tmp/tc1-kriging-nearest.ron && grep -q "Some(16)" /tmp/tc1-kriging-b16.ron || echo "sed failed" | tee -a "$OUT/summary.log"
for f in optimize/ls89_tc1_de.ron /tmp/tc1-de-nearest.ron /tmp/tc1-kriging-nearest.ron /tmp/tc1-kriging-b16.ron; do
  tag=$(basename "$f" .ron)
  rm -rf "/tmp/run-$tag"
  s=$(date +%s%N)
  timeout 150 .gpu/turbopt optimize "$f" --backend gpu --out "/tmp/run-$tag" > "$OUT/$tag.log" 2>&1
  echo "$tag: wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget|best objective' "$OUT/$tag.log" | tr '\n' ' ')" | tee -a "$OUT/summary.log"
  cp "/tmp/run-$tag/evaluations.jsonl" "$OUT/$tag.jsonl"
  python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; print('  flow iterations', sum(x['iterations'] for x in r))" "$OUT/$tag.jsonl" | tee -a "$OUT/summary.log"
done
cd "$OUT" && tar czf /tmp/call6-logs.tgz --exclude=summary.log . && find . -type f ! -name summary.log -delete && mv /tmp/call6-logs.tgz .
