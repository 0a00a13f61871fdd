#!/usr/bin/env bash
# Session 17, calls 2 and 3 (call 3 with TURBOPT_CUDA_GRAPHS=0 SKIP=30000 COUNT=400; call 2 with graphs on profiled nothing): Nsight Compute on 16 LS89 coarse designs stacked as one mesh (tests/gpu_stacking.rs),
# where each kernel spans the batch's 258k cells: what bounds the kernels of a saturated batch.
set -u
R=$OUT; S=/tmp/s17; mkdir -p $S
T=$(ls .gpu/gpu_stacking-* | head -1)
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread
( timeout 300 ncu --clock-control none --launch-skip ${SKIP:-50000} --launch-count ${COUNT:-400} --metrics $M --csv \
    $T --ignored --exact stacked_sixteen_for_a_profiler --nocapture > $S/ncu-stacked16.csv 2> $S/ncu-stacked16.err ) ; echo "ncu rc $?" >> $S/summary.log
tail -5 $S/ncu-stacked16.err >> $S/summary.log
grep -c '"' $S/ncu-stacked16.csv >> $S/summary.log
gzip -f $S/ncu-stacked16.csv
tar czf $R/s17.tgz -C /tmp s17
