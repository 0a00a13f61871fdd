#!/usr/bin/env bash
# Session 13: the extra-stage recovery on the GPU (issues 13 and 18) and one diagnostic of the batch bound.
# 1. one DE generation of 40 LS89 coarse designs on 1 GPU and on 2 (issue 18);
# 2. TC1 DE on 2 GPUs and on 1, TC1 Kriging on 1 (issue 13);
# 3. the same generation of 16 designs at w = 16 on the coarse (16,128 cells) and the medium (39,040) mesh:
#    if the batch were bound by bytes, design-iterations a second would fall with the cells; if by the
#    count of small dependent kernels, they would stay.
set -u
R=$OUT; T=/tmp/s13; mkdir -p $T
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $R/gpu.txt; nproc >> $R/gpu.txt
run() { # tag, devices, campaign file
  local s=$(date +%s%N)
  timeout 240 .gpu/turbopt optimize "$3" --backend gpu --devices "$2" --out "$T/$1" > "$T/$1.log" 2>&1
  echo "$1 devices $2: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' $T/$1.log); $(grep 'best objective' $T/$1.log)" | tee -a $R/summary.log
  cp "$T/$1/evaluations.jsonl" "$T/$1.jsonl" 2>/dev/null
  python3 - "$T/$1.jsonl" <<'PY' | tee -a $R/summary.log
import json, sys
rows = {r["index"]: r for r in map(json.loads, open(sys.argv[1]))}
gen = [r for k, r in rows.items() if k > 0]
rec = [r for r in gen if len(r.get("attempts") or []) > 1]
print(f"  {len(gen)} designs in {max(r['elapsed_s'] for r in gen) - rows[0]['elapsed_s']:.2f} s after the baseline, "
      f"{sum(r['iterations'] for r in gen)} flow iterations, {len(rec)} recovered {[ (r['index'], r['iterations']) for r in rec]}, "
      f"failed {sum(1 for r in gen if r.get('failure'))}, {sum(r['iterations'] for r in gen) / (max(r['elapsed_s'] for r in gen) - rows[0]['elapsed_s']):.0f} design-iterations/s")
PY
}
G=scripts/tc1-de-generation-40.ron
sed -e "s/population: Some(40)/population: Some(16)/; s/budget: 41/budget: 17/" $G > $T/g16-coarse.ron
sed -e "s/density: coarse/density: medium/" $T/g16-coarse.ron > $T/g16-medium.ron
grep -q "density: medium" $T/g16-medium.ron || echo "medium not applied" | tee -a $R/summary.log
run g40-1gpu 0 $G
run g40-2gpu 0,1 $G
run tc1-2gpu 0,1 optimize/ls89_tc1_de.ron
run tc1-1gpu 0 optimize/ls89_tc1_de.ron
run tc1k-1gpu 0 optimize/ls89_tc1_kriging.ron
run g16-coarse 0 $T/g16-coarse.ron
run g16-medium 0 $T/g16-medium.ron
python3 - $T <<'PY' | tee -a $R/summary.log
import json, sys, os
t = sys.argv[1]
def load(n): return {r["index"]: r for r in map(json.loads, open(os.path.join(t, n + ".jsonl")))}
for a, b in [("g40-1gpu", "g40-2gpu"), ("tc1-1gpu", "tc1-2gpu")]:
    x, y = load(a), load(b)
    same = set(x) == set(y)
    d = max(abs(x[k]["objectives"][0] - y[k]["objectives"][0]) / abs(x[k]["objectives"][0]) for k in x if k in y and x[k]["objectives"] and y[k]["objectives"])
    print(f"{a} vs {b}: same indices {same}, largest relative objective difference {d:.2e}")
PY
tar czf $R/s13.tgz -C /tmp s13
