#!/usr/bin/env bash
# Session 13, call 3: the ILU factorization's level kernel with a thread per row and block
# component (cuda/ilu.cu) against the previous build (.gpu/turbopt-old: the sweeps already per
# component, commit "GPU Jacobi sweeps ..."); parity first; then TC1 DE and Kriging with the new
# build, and kernel times of a coarse solve by ncu (single design, kernels serialized).
set -u
R=$OUT; T=/tmp/s13c3; mkdir -p $T
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt; nproc >> $R/gpu.txt
P=$(ls .gpu/gpu_parity-* | head -1)
timeout 240 $P --include-ignored --test-threads=1 > $T/parity.log 2>&1; echo "gpu_parity rc $?" | tee -a $R/summary.log
grep -E "test result" $T/parity.log >> $R/summary.log
run() { # tag, binary, campaign file
  local s=$(date +%s%N)
  timeout 200 .gpu/$2 optimize "$3" --backend gpu --out "$T/$1" > "$T/$1.log" 2>&1
  echo "$1 ($2): rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' $T/$1.log); $(grep 'best objective' $T/$1.log)" | tee -a $R/summary.log
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
solve() { # binary, density, round
  local s=$(date +%s%N)
  .gpu/$1 solve blades/ls89.ron --case MUR47 --density $2 --backend gpu > $T/solve-$2-$1-$3.log 2>&1
  echo "LS89 $2 solve ($1): rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E 'implicit:|time:' $T/solve-$2-$1-$3.log | head -2 | tr '\n' ' ')" | tee -a $R/summary.log
}
for round in 1 2; do
  solve turbopt-old medium $round; solve turbopt medium $round
  solve turbopt-old coarse $round; solve turbopt coarse $round
done
sed -e "s/population: Some(40)/population: Some(16)/; s/budget: 41/budget: 17/" scripts/tc1-de-generation-40.ron > $T/g16-coarse.ron
run g16-coarse-old turbopt-old $T/g16-coarse.ron
run g16-coarse-new turbopt $T/g16-coarse.ron
run tc1-de turbopt optimize/ls89_tc1_de.ron
run tc1-kriging turbopt optimize/ls89_tc1_kriging.ron
timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum --csv --launch-skip 150000 --launch-count 2000 \
  .gpu/turbopt solve blades/ls89.ron --case MUR47 --density coarse --backend gpu > $T/ncu-coarse.csv 2> $T/ncu-coarse.err
echo "ncu rc $? $(wc -l < $T/ncu-coarse.csv) lines" | tee -a $R/summary.log
python3 - $T/ncu-coarse.csv <<'PY' | tee -a $R/summary.log
import csv, sys, collections
agg = collections.defaultdict(lambda: [0, 0.0]); hdr = None
for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("==")):
    if hdr is None:
        if "Kernel Name" in r: hdr = r
        continue
    d = dict(zip(hdr, r))
    if d.get("Metric Name") != "gpu__time_duration.sum": continue
    v = float(d["Metric Value"].replace(",", "")); u = d.get("Metric Unit", "")
    v = v / 1000 if u == "nsecond" else v * 1000 if u == "msecond" else v
    k = d["Kernel Name"].split("(")[0]; agg[k][0] += 1; agg[k][1] += v
tot = sum(t for _, t in agg.values())
for k, (n, t) in sorted(agg.items(), key=lambda x: -x[1][1])[:25]:
    print(f"{k:36s} {n:6d} {t:10.1f} us {t / n:7.2f} us/kernel {100 * t / tot:5.1f} %")
print(f"total {tot:.1f} us over {sum(n for n, _ in agg.values())} kernels")
PY
tar czf $R/s13c3.tgz -C /tmp s13c3
