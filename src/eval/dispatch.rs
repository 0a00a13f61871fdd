//! Handing the designs of a batch to workers as they free up: CPU threads, GPU streams of
//! several devices (`backend::pool`), or MPI ranks (`optim::campaign::cluster`). Results come back in design
//! order whatever order the workers finish in, and each is reported the moment it is settled
//! (a campaign logs it then, so that a kill loses no finished evaluation).
//!
//! Faults: a worker that fails while evaluating a design (a device error, a lost stream or
//! context, a panic) is not the design's fault, so the design is queued once more, for another
//! worker where one is left; a second fault records it as failed with both reasons. A worker
//! that faulted stops taking designs while another worker is still at work.

use super::{Evaluation, Status};
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

/// What a worker made of one design.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkerOutcome {
    /// Evaluated, whatever the evaluation's status (an invalid blade or a diverged solve is the
    /// design's result, not a fault).
    Evaluated(Evaluation),
    /// The worker failed, not the design: why.
    WorkerFault(String),
}

/// How many times a design is handed out at most (the first try and one re-queue).
pub const TRIES: usize = 2;

/// The designs of one batch: queued, in flight, settled.
pub struct Dispatch {
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    queue: VecDeque<usize>,
    in_flight: usize,
    /// Workers still taking designs (threaded runs; see [`Dispatch::settle`]).
    workers: usize,
    faults: Vec<Vec<String>>,
    results: Vec<Option<Evaluation>>,
}

/// What [`Dispatch::settle`] decided.
#[derive(Debug)]
pub struct Settled {
    /// The design's final evaluation, when it has one now (not after a re-queue).
    pub evaluation: Option<Evaluation>,
    /// The worker should take no more designs (it faulted, and another worker is left).
    pub retire: bool,
}

impl Dispatch {
    /// `designs` designs, all queued, for `workers` workers.
    pub fn new(designs: usize, workers: usize) -> Self {
        Dispatch {
            state: Mutex::new(State {
                queue: (0..designs).collect(),
                in_flight: 0,
                workers: workers.max(1),
                faults: vec![Vec::new(); designs],
                results: vec![None; designs],
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next design for a worker that is free; waits while the queue is empty but designs
    /// are in flight (one may be re-queued); `None` once every design is settled.
    pub fn next(&self) -> Option<usize> {
        let mut st = self.lock();
        loop {
            if let Some(k) = st.queue.pop_front() {
                st.in_flight += 1;
                return Some(k);
            }
            if st.in_flight == 0 {
                return None;
            }
            st = self.changed.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// [`Dispatch::next`] without waiting: `None` when nothing is queued right now.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))] // the MPI worker ranks' loop
    pub fn try_next(&self) -> Option<usize> {
        let mut st = self.lock();
        let k = st.queue.pop_front()?;
        st.in_flight += 1;
        Some(k)
    }

    /// Whether every design is settled.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))] // the MPI worker ranks' loop
    pub fn is_done(&self) -> bool {
        let st = self.lock();
        st.queue.is_empty() && st.in_flight == 0
    }

    /// Records what a worker made of design `k`.
    pub fn settle(&self, k: usize, outcome: WorkerOutcome) -> Settled {
        let mut st = self.lock();
        st.in_flight -= 1;
        let settled = match outcome {
            WorkerOutcome::Evaluated(e) => {
                st.results[k] = Some(e.clone());
                Settled { evaluation: Some(e), retire: false }
            }
            WorkerOutcome::WorkerFault(reason) => {
                st.faults[k].push(reason);
                let evaluation = if st.faults[k].len() < TRIES {
                    st.queue.push_back(k);
                    None
                } else {
                    let e = Evaluation::failed(Status::Failed(format!("the worker failed {TRIES} times: {}", st.faults[k].join("; then "))));
                    st.results[k] = Some(e.clone());
                    Some(e)
                };
                let retire = st.workers > 1;
                if retire {
                    st.workers -= 1;
                }
                Settled { evaluation, retire }
            }
        };
        self.changed.notify_all();
        settled
    }

    /// The evaluations in design order (a design never settled, which only a bug can leave,
    /// is failed with that reason).
    pub fn into_results(self) -> Vec<Evaluation> {
        let st = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        st.results.into_iter().map(|r| r.unwrap_or_else(|| Evaluation::failed(Status::Failed("the design was never evaluated".into())))).collect()
    }
}

/// Evaluates `designs` designs on `workers` host threads: `evaluate(worker, k)` runs design `k`
/// on worker `worker` (a panic counts as that worker dying: a fault); `report(k, e)` is called
/// with each final evaluation as soon as it is known. Results in design order.
pub fn run_on_workers(
    designs: usize,
    workers: usize,
    evaluate: impl Fn(usize, usize) -> WorkerOutcome + Sync,
    report: &(dyn Fn(usize, &Evaluation) + Sync),
) -> Vec<Evaluation> {
    let workers = workers.clamp(1, designs.max(1));
    let dispatch = Dispatch::new(designs, workers);
    std::thread::scope(|s| {
        for w in 0..workers {
            let (dispatch, evaluate) = (&dispatch, &evaluate);
            s.spawn(move || {
                while let Some(k) = dispatch.next() {
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| evaluate(w, k)))
                        .unwrap_or_else(|payload| WorkerOutcome::WorkerFault(format!("worker {w} died: {}", panic_message(payload.as_ref()))));
                    let settled = dispatch.settle(k, outcome);
                    if let Some(e) = &settled.evaluation {
                        report(k, e);
                    }
                    if settled.retire {
                        break;
                    }
                }
            });
        }
    });
    dispatch.into_results()
}

/// The message of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn scored(k: usize) -> Evaluation {
        Evaluation { objectives: vec![k as f64], constraints: vec![], status: Status::Ok, diagnostics: Default::default() }
    }

    #[test]
    fn results_come_back_in_design_order_from_workers_of_unequal_speed() {
        let reported = Mutex::new(Vec::new());
        let taken_by = Mutex::new(vec![usize::MAX; 12]);
        let out = run_on_workers(
            12,
            3,
            |w, k| {
                taken_by.lock().unwrap()[k] = w;
                // Worker 0 is slow: the others take more designs (handed out as they free up).
                std::thread::sleep(Duration::from_millis(if w == 0 { 60 } else { 5 }));
                WorkerOutcome::Evaluated(scored(k))
            },
            &|k, e| reported.lock().unwrap().push((k, e.objectives[0])),
        );
        assert_eq!(out.iter().map(|e| e.objectives[0]).collect::<Vec<_>>(), (0..12).map(|k| k as f64).collect::<Vec<_>>());
        let mut r = reported.into_inner().unwrap();
        assert_eq!(r.len(), 12, "every evaluation reported once");
        r.sort_by_key(|x| x.0);
        assert!(r.iter().all(|&(k, v)| v == k as f64));
        let by = taken_by.into_inner().unwrap();
        let slow = by.iter().filter(|&&w| w == 0).count();
        assert!(slow <= 2, "the slow worker took {slow} of 12 designs: {by:?}");
    }

    #[test]
    fn a_faulted_design_is_requeued_once_to_another_worker() {
        let tries = Mutex::new(vec![Vec::new(); 6]);
        let out = run_on_workers(
            6,
            2,
            |w, k| {
                tries.lock().unwrap()[k].push(w);
                std::thread::sleep(Duration::from_millis(5));
                // Worker 1 has a broken device: every design it takes fails as a fault.
                if w == 1 {
                    WorkerOutcome::WorkerFault(format!("device error on worker {w}"))
                } else {
                    WorkerOutcome::Evaluated(scored(k))
                }
            },
            &|_, _| {},
        );
        assert!(out.iter().enumerate().all(|(k, e)| e.status.is_ok() && e.objectives == [k as f64]), "{out:?}");
        let tries = tries.into_inner().unwrap();
        let on_broken: Vec<usize> = (0..6).filter(|&k| tries[k].contains(&1)).collect();
        assert_eq!(on_broken.len(), 1, "the broken worker retires after its first fault: {tries:?}");
        assert_eq!(tries[on_broken[0]], vec![1, 0], "its design went to the other worker");
    }

    #[test]
    fn a_design_that_faults_twice_is_recorded_failed_with_both_reasons_and_the_batch_goes_on() {
        let calls = AtomicUsize::new(0);
        let out = run_on_workers(
            4,
            1,
            |_, k| {
                calls.fetch_add(1, Ordering::SeqCst);
                match k {
                    2 => WorkerOutcome::WorkerFault("CUDA_ERROR_ILLEGAL_ADDRESS".into()),
                    3 => panic!("stream lost"),
                    _ => WorkerOutcome::Evaluated(scored(k)),
                }
            },
            &|_, _| {},
        );
        assert_eq!(calls.load(Ordering::SeqCst), 6, "designs 2 and 3 tried twice, the last worker never retires");
        assert!(out[0].status.is_ok() && out[1].status.is_ok());
        let Status::Failed(reason) = &out[2].status else { panic!("{:?}", out[2].status) };
        assert_eq!(reason, "the worker failed 2 times: CUDA_ERROR_ILLEGAL_ADDRESS; then CUDA_ERROR_ILLEGAL_ADDRESS");
        let Status::Failed(reason) = &out[3].status else { panic!("{:?}", out[3].status) };
        assert!(reason.contains("worker 0 died: stream lost"), "{reason}");
    }

    #[test]
    fn an_empty_batch_returns_nothing() {
        assert!(run_on_workers(0, 4, |_, _| unreachable!(), &|_, _| {}).is_empty());
    }
}
