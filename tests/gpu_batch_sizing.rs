//! How many designs of a batch run on one GPU at once (`eval::gpu_pool::concurrency`): the
//! smallest of the batch, the configured workers (else the host threads), the multiprocessors and
//! the designs that fit in 90 % of the free memory, never zero, and the limit is named.

use turbopt::eval::gpu_pool::{concurrency, BatchLimit, BYTES_PER_CELL};

#[test]
fn the_smallest_limit_wins_and_is_named() {
    let gib = 1usize << 30;
    let c = concurrency(40, None, 16, 132, 80 * gib, 16_128);
    assert_eq!((c.designs_at_once, c.limited_by), (16, BatchLimit::HostThreads));
    let c = concurrency(8, None, 16, 132, 80 * gib, 16_128);
    assert_eq!((c.designs_at_once, c.limited_by), (8, BatchLimit::BatchSize));
    let c = concurrency(40, Some(4), 16, 132, 80 * gib, 16_128);
    assert_eq!((c.designs_at_once, c.limited_by), (4, BatchLimit::ConfiguredWorkers));
    // A configured count replaces the host threads' limit, not the device's.
    let c = concurrency(40, Some(20), 16, 132, 80 * gib, 16_128);
    assert_eq!((c.designs_at_once, c.limited_by), (20, BatchLimit::ConfiguredWorkers));
    let c = concurrency(400, Some(200), 16, 132, 80 * gib, 16_128);
    assert_eq!((c.designs_at_once, c.limited_by), (132, BatchLimit::Multiprocessors));
    // 1M-cell designs in 10 GiB free: 2 fit.
    let c = concurrency(40, None, 16, 132, 10 * gib, 1_000_000);
    assert_eq!(c.designs_at_once, 10 * gib / 10 * 9 / (1_000_000 * BYTES_PER_CELL));
    assert_eq!(c.limited_by, BatchLimit::DeviceMemory);
}

#[test]
fn the_plan_line_names_the_limit_and_only_the_host_threads_get_a_hint() {
    assert_eq!(BatchLimit::HostThreads.to_string(), "host threads");
    assert_eq!(BatchLimit::ConfiguredWorkers.to_string(), "batch.workers");
    assert!(BatchLimit::HostThreads.hint().contains("--batch-workers"));
    for limit in [BatchLimit::BatchSize, BatchLimit::ConfiguredWorkers, BatchLimit::Multiprocessors, BatchLimit::DeviceMemory] {
        assert_eq!(limit.hint(), "");
    }
}

#[test]
fn a_batch_too_large_for_the_memory_still_runs_one_design_at_a_time() {
    let c = concurrency(16, None, 16, 132, 1 << 20, 1_000_000);
    assert_eq!((c.designs_at_once, c.limited_by), (1, BatchLimit::DeviceMemory));
    let c = concurrency(0, None, 0, 0, 0, 0);
    assert!(c.designs_at_once >= 1);
}

/// Under MPS a device listed once gets `MPS_CONTEXTS_PER_DEVICE` workers in a row; without MPS,
/// or when the list already repeats it (the user chose its contexts), it keeps what was listed.
#[test]
fn mps_devices_listed_once_get_several_contexts() {
    use turbopt::eval::gpu_pool::{worker_devices, MPS_CONTEXTS_PER_DEVICE};
    let four = MPS_CONTEXTS_PER_DEVICE;
    assert_eq!(worker_devices(&[0], |_| false), vec![0]);
    assert_eq!(worker_devices(&[0], |_| true), vec![0; four]);
    assert_eq!(worker_devices(&[0, 1], |d| d == 1), [vec![0], vec![1; four]].concat());
    assert_eq!(worker_devices(&[0, 0], |_| true), vec![0, 0]);
    assert_eq!(worker_devices(&[1, 0, 1], |_| true), [vec![1], vec![0; four], vec![1]].concat());
}
