#!/usr/bin/env bash
# Session 12: implicit-scheme settings on GPU batches: stages and FGMRES tolerance, on one DE generation of 40
# LS89 coarse designs (6 of them recovered ones) and on LS89 TC1 DE. Compared by evaluation index with the default.
# (The comparison at its end failed on the device on non-numeric objectives of failed designs; it was re-run
# here on the returned logs with those skipped.)
set -u
R=$OUT; mkdir -p /tmp/st
declare -A V=(
  [default]=""
  [s1]="scheme: implicit((stages: 1))"
  [s3]="scheme: implicit((stages: 3))"
  [tol05]="scheme: implicit((gmres: (restart: 20, rel_tol: 0.05, abs_tol: 1e-300, max_iterations: 60)))"
  [tol2]="scheme: implicit((gmres: (restart: 20, rel_tol: 0.2, abs_tol: 1e-300, max_iterations: 60)))"
)
variant() { # name, source file, out file
  if [ -z "${V[$1]}" ]; then cp "$2" "$3"; else
    sed "s/config: (model: spalart_allmaras)/config: (model: spalart_allmaras, ${V[$1]})/" "$2" > "$3"
    grep -q "${V[$1]}" "$3" || echo "variant $1 not applied" | tee -a $R/summary.log
  fi
}
run() { # tag, file
  local s=$(date +%s%N)
  timeout 200 .gpu/turbopt optimize "$2" --backend gpu --out "/tmp/st/$1" > "/tmp/st/$1.log" 2>&1
  echo "$1: rc $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^campaign .*budget' /tmp/st/$1.log | sed 's/.*(//')" | tee -a $R/summary.log
  cp "/tmp/st/$1/evaluations.jsonl" "/tmp/st/$1.jsonl" 2>/dev/null
}
for v in default s1 s3 tol05 tol2; do variant $v scripts/tc1-de-generation-40.ron /tmp/st/g40-$v.ron; run g40-$v /tmp/st/g40-$v.ron; done
for v in s1 tol2 default; do variant $v optimize/ls89_tc1_de.ron /tmp/st/tc1-$v.ron; run tc1-$v /tmp/st/tc1-$v.ron; done
tar czf $R/st.tgz -C /tmp st
