#!/usr/bin/env bash
# Session 14, call 1: the fused sweeps. Parity (all of gpu_parity, with the new fused-against-sweep-by-sweep test),
# then the same build with the fused sweeps (.gpu/turbopt) against sweep-by-sweep launches (.gpu/turbopt-old: a
# wrapper setting TURBOPT_FUSED_SWEEPS=0), alternated: batch of 16, LS89 coarse/medium solves, TC1 DE; TC1 Kriging fused.
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/summary.log"
TEST_TIMEOUT=200 scripts/gpu-session parity
printf '#!/bin/sh\nTURBOPT_FUSED_SWEEPS=0 exec "$(dirname "$0")/turbopt" "$@"\n' > .gpu/turbopt-old
chmod +x .gpu/turbopt-old
AB_TC1=1 AB_ROUNDS=2 scripts/gpu-session ab
TC1_FILES=kriging scripts/gpu-session campaign-tc1
cd "$OUT" && tar czf /tmp/call1-logs.tgz --exclude=summary.log . && find . -type f ! -name summary.log -delete && mv /tmp/call1-logs.tgz .
