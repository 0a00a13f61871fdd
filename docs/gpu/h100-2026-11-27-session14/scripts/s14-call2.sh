#!/usr/bin/env bash
# Session 14, call 2: fused sweeps from shared memory. Parity (gpu_parity), then the same build sweep by sweep
# (turbopt-stepped: TURBOPT_FUSED_SWEEPS=0), fused with the default patch side (turbopt: 16 on LS89), and fused
# with patch sides 12 and 8 (TURBOPT_PATCH_SIDE), alternated over 2 rounds (batch of 16, LS89 coarse/medium);
# then TC1 DE and Kriging with the stepped build and the fused variant with the best batch.
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/summary.log"
TEST_TIMEOUT=200 scripts/gpu-session parity
wrap() { printf '#!/bin/sh\n%s exec "$(dirname "$0")/turbopt" "$@"\n' "$2" > ".gpu/$1"; chmod +x ".gpu/$1"; }
wrap turbopt-stepped TURBOPT_FUSED_SWEEPS=0
wrap turbopt-p12 TURBOPT_PATCH_SIDE=12
wrap turbopt-p8 TURBOPT_PATCH_SIDE=8
AB_BUILDS="turbopt-stepped turbopt turbopt-p12 turbopt-p8" AB_ROUNDS=2 scripts/gpu-session ab
best=$(python3 - "$OUT" <<'PY'
import json, sys, glob, collections
rate = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + "/ab-g16-*.jsonl"):
    b = f.split("ab-g16-")[1].rsplit("-", 1)[0]
    rows = {r["index"]: r for r in map(json.loads, open(f))}
    gen = [r for k, r in rows.items() if k > 0]
    rate[b].append(sum(r["iterations"] for r in gen) / (max(r["elapsed_s"] for r in gen) - rows[0]["elapsed_s"]))
fused = {b: sum(v) / len(v) for b, v in rate.items() if b != "turbopt-stepped"}
print(max(fused, key=fused.get))
PY
)
echo "== best fused variant by the batch of 16: $best" | tee -a "$OUT/summary.log"
AB_BUILDS="turbopt-stepped $best" AB_ROUNDS=0 AB_TC1=1 scripts/gpu-session ab
for b in "$best" turbopt-stepped; do
  s=$(date +%s%N)
  timeout 120 ".gpu/$b" optimize optimize/ls89_tc1_kriging.ron --backend gpu --out "/tmp/k-$b" > "$OUT/tc1-kriging-$b.log" 2>&1
  echo "TC1 Kriging ($b): wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget|best objective' "$OUT/tc1-kriging-$b.log" | tr '\n' ' ')" | tee -a "$OUT/summary.log"
  cp "/tmp/k-$b/evaluations.jsonl" "$OUT/tc1-kriging-$b.jsonl"
done
cd "$OUT" && tar czf /tmp/call2-logs.tgz --exclude=summary.log . && find . -type f ! -name summary.log -delete && mv /tmp/call2-logs.tgz .
