#!/usr/bin/env bash
# Session 14, call 3: fused sweeps with batched gathers. Parity (gpu_parity implicit::), kernel times of the sweeps
# by ncu (one coarse LS89 solve, stepped and fused), then stepped / fused (side 16, the default on LS89) / fused side 8
# alternated over 2 rounds (batch of 16, LS89 coarse/medium); TC1 DE and Kriging stepped and with the best fused.
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/summary.log"
e=$(ls .gpu/gpu_parity-* | grep -v '\.d$' | head -1)
timeout 150 "$e" --include-ignored --test-threads=1 --nocapture implicit:: > "$OUT/gpu_parity.log" 2>&1
echo "gpu_parity implicit:: rc $?: $(grep 'test result' "$OUT/gpu_parity.log")" | tee -a "$OUT/summary.log"
grep -E "launches for both" "$OUT/gpu_parity.log" | tail -3 | tee -a "$OUT/summary.log"
wrap() { printf '#!/bin/sh\n%s exec "$(dirname "$0")/turbopt" "$@"\n' "$2" > ".gpu/$1"; chmod +x ".gpu/$1"; }
wrap turbopt-stepped TURBOPT_FUSED_SWEEPS=0
wrap turbopt-p8 TURBOPT_PATCH_SIDE=8
for b in turbopt-stepped turbopt turbopt-p8; do
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k regex:"jacobi|patches" --launch-skip 20000 --launch-count 400 \
    ".gpu/$b" solve blades/ls89.ron --case MUR47 --density coarse --backend gpu --out /tmp/ncu-solve > "$OUT/ncu-$b.csv" 2> "$OUT/ncu-$b.err"
  python3 - "$OUT/ncu-$b.csv" "$b" <<'PY' | tee -a "$OUT/summary.log"
import csv, sys, collections, statistics
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value")
t = collections.defaultdict(list)
for r in rows[1:]:
    try: t[r[k].split("(")[0]].append(float(r[v].replace(",", "")))
    except ValueError: pass
print(f"ncu {sys.argv[2]}: " + "; ".join(f"{n} {statistics.median(x) / 1000:.1f} us x{len(x)}" for n, x in sorted(t.items())))
PY
done
AB_BUILDS="turbopt-stepped turbopt turbopt-p8" AB_ROUNDS=2 scripts/gpu-session ab
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
cd "$OUT" && tar czf /tmp/call3-logs.tgz --exclude=summary.log . && find . -type f ! -name summary.log -delete && mv /tmp/call3-logs.tgz .
