#!/usr/bin/env bash
# Session 17, call 4: the kernel mix of whole flow iterations of 16 stacked LS89 coarse designs
# (tests/gpu_stacking.rs, graphs off so that every kernel is a launch), time and DRAM throughput only.
set -u
R=$OUT; S=/tmp/s17; mkdir -p $S
T=$(ls .gpu/gpu_stacking-* | head -1)
export TURBOPT_CUDA_GRAPHS=0
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active
( timeout 400 ncu --clock-control none --launch-skip 20000 --launch-count 6000 --metrics $M --csv \
    $T --ignored --exact stacked_sixteen_for_a_profiler --nocapture > $S/ncu-stacked16-mix.csv 2> $S/ncu-stacked16-mix.err ) ; echo "ncu rc $?" >> $S/summary.log
tail -3 $S/ncu-stacked16-mix.err >> $S/summary.log
gzip -f $S/ncu-stacked16-mix.csv
tar czf $R/s17.tgz -C /tmp s17
