#!/usr/bin/env bash
# Session 14, call 4: the host-side changes of the session (kernels compiled side by side and kept in a disk
# cache, pictures side by side, the mesh's closest-point search without hypot) against session 13's final build
# (.gpu/turbopt-old = fbde92f): gpu_parity (fills the kernel cache), LS89 coarse solves with a cold and a warm
# kernel cache, then TC1 DE alternated old/new twice and TC1 Kriging old/new.
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/summary.log"
nproc | sed 's/^/host cores: /' | tee -a "$OUT/summary.log"
e=$(ls .gpu/gpu_parity-* | grep -v '\.d$' | head -1)
s=$(date +%s%N)
timeout 150 "$e" --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_parity.log" 2>&1
echo "gpu_parity rc $? in $(( ($(date +%s%N) - s) / 1000000 )) ms: $(grep 'test result' "$OUT/gpu_parity.log")" | tee -a "$OUT/summary.log"
ls ~/.cache/turbopt/kernels | tee -a "$OUT/summary.log"
solve() { # tag, binary, env
  local s; s=$(date +%s%N)
  env $3 ".gpu/$2" solve blades/ls89.ron --case MUR47 --density coarse --backend gpu --out /tmp/solve-$1 > "$OUT/solve-$1.log" 2>&1
  echo "solve $1 ($2 $3): wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E 'time:' "$OUT/solve-$1.log" | tr -s ' ')" | tee -a "$OUT/summary.log"
}
solve old-1 turbopt-old ""

solve new-cold turbopt TURBOPT_KERNEL_CACHE_DIR=/tmp/fresh-cache
solve new-warm turbopt TURBOPT_KERNEL_CACHE_DIR=/tmp/fresh-cache
solve new-default turbopt ""
solve old-2 turbopt-old ""
AB_BUILDS="turbopt-old turbopt" AB_ROUNDS=0 AB_TC1=1 scripts/gpu-session ab
for f in ab-tc1-turbopt-old ab-tc1-turbopt; do mv "$OUT/$f.jsonl" "$OUT/$f-1.jsonl"; mv "$OUT/$f.log" "$OUT/$f-1.log"; done
AB_BUILDS="turbopt-old turbopt" AB_ROUNDS=0 AB_TC1=1 scripts/gpu-session ab
for b in turbopt-old turbopt; do
  s=$(date +%s%N)
  timeout 120 ".gpu/$b" optimize optimize/ls89_tc1_kriging.ron --backend gpu --out "/tmp/k-$b" > "$OUT/tc1-kriging-$b.log" 2>&1
  echo "TC1 Kriging ($b): wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget|best objective' "$OUT/tc1-kriging-$b.log" | tr '\n' ' ')" | tee -a "$OUT/summary.log"
  cp "/tmp/k-$b/evaluations.jsonl" "$OUT/tc1-kriging-$b.jsonl"
done
cd "$OUT" && tar czf /tmp/call4-logs.tgz --exclude=summary.log . && find . -type f ! -name summary.log -delete && mv /tmp/call4-logs.tgz .
