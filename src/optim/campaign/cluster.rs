//! Campaigns across processes and machines through MPI (cargo feature `mpi`: rsmpi over the
//! system's Open MPI). `mpirun -np N turbopt optimize CAMPAIGN.ron` starts N copies: rank 0 runs
//! the optimizer and keeps the campaign's log, checkpoint and summary exactly as a
//! single-process campaign does (`optim::campaign`); ranks 1..N evaluate, each with its own
//! evaluator on its host's GPUs or CPU cores.
//!
//! Protocol (byte messages, RON-encoded, exact for every f64 including NaN and infinities):
//! rank 0 sends each worker the campaign (after the command-line overrides) so that every
//! rank runs the same one; a worker answers with how many designs it evaluates at once, or why
//! its evaluator cannot run. Rank 0 then hands batches out in chunks of up to that many
//! designs to whichever worker is idle (`eval::dispatch`), and a worker sends each evaluation
//! back the moment it is done (a chunk runs as one `evaluate_batch` on the worker: the same
//! baseline-first warm starts, CPU or GPU fan-out and device-fault re-queue as in a single
//! process). Rank 0 logs each as it arrives, so a rank lost mid-batch loses no finished
//! evaluation. Open MPI ends the whole job when a rank dies; the log and checkpoint on rank 0
//! stay consistent and `--resume` completes the campaign to the uninterrupted result.

use crate::error::{Error, Result};

/// The number of processes when this one was started by an MPI launcher (mpirun, mpiexec,
/// srun with PMI), read from the launcher's environment.
pub fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"].iter().find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// The error of a build without the `mpi` feature started as several MPI ranks (every rank
/// would otherwise run the whole campaign into the same directory).
pub fn not_compiled(ranks: usize) -> Error {
    Error::Other(format!(
        "started as {ranks} MPI ranks, but this turbopt was built without the `mpi` feature; rebuild with `cargo build --release --features mpi`"
    ))
}

#[cfg(feature = "mpi")]
pub use with_mpi::*;
#[cfg(not(feature = "mpi"))]
pub use without_mpi::Cluster;

/// MPI with the launcher's processes when this process is one of several ranks started by an
/// MPI launcher; `None` when started alone. A build without the `mpi` feature started as
/// several ranks refuses to run (every rank would run the whole campaign into one directory).
pub fn join() -> Result<Option<Cluster>> {
    #[cfg(feature = "mpi")]
    {
        Cluster::join()
    }
    #[cfg(not(feature = "mpi"))]
    match launched_ranks() {
        Some(n) if n > 1 => Err(not_compiled(n)),
        _ => Ok(None),
    }
}

/// A build without the `mpi` feature has no cluster: [`join`] never returns one.
#[cfg(not(feature = "mpi"))]
mod without_mpi {
    use crate::error::Result;
    use crate::eval::Evaluator;
    use crate::optim::campaign::{CampaignConfig, CampaignObserver, CampaignSummary};

    pub enum Cluster {}

    impl Cluster {
        pub fn rank(&self) -> i32 {
            match *self {}
        }
        pub fn size(&self) -> i32 {
            match *self {}
        }
        pub fn serve(&self, _build: impl FnOnce(&CampaignConfig) -> Result<Box<dyn Evaluator>>) -> Result<()> {
            match *self {}
        }
        pub fn run_campaign(&self, _: &CampaignConfig, _: &dyn Evaluator, _: &std::path::Path, _: bool, _: &mut dyn CampaignObserver) -> Result<CampaignSummary> {
            match *self {}
        }
    }
}

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;
    use crate::error::Result;
    use crate::eval::dispatch::{Dispatch, WorkerOutcome};
    use crate::eval::{DesignSpace, Evaluation, Evaluator};
    use crate::optim::campaign::CampaignConfig;
    use mpi::point_to_point::{Destination, Source};
    use mpi::topology::{Communicator, SimpleCommunicator};
    use mpi::Rank;
    use serde::{de::DeserializeOwned, Serialize};
    use std::sync::Mutex;

    const TAG_CAMPAIGN: mpi::Tag = 1;
    const TAG_READY: mpi::Tag = 2;
    const TAG_CHUNK: mpi::Tag = 3;
    const TAG_RESULT: mpi::Tag = 4;
    const TAG_STOP: mpi::Tag = 5;

    /// A message as bytes (RON: exact f64 round trip, NaN and infinities included).
    pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
        ron::to_string(value).map(String::into_bytes).map_err(|e| Error::Other(format!("MPI message: {e}")))
    }

    pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
        let text = std::str::from_utf8(bytes).map_err(|e| Error::Other(format!("MPI message: {e}")))?;
        ron::from_str(text).map_err(|e| Error::Other(format!("MPI message: {e}")))
    }

    /// MPI with the launcher's processes: `None` when not started by an MPI launcher or alone.
    pub struct Cluster {
        /// Finalizes MPI when dropped.
        _universe: mpi::environment::Universe,
        world: SimpleCommunicator,
    }

    impl Cluster {
        /// Initializes MPI when this process was started as one of several ranks. MPI calls
        /// come from one thread at a time (`Threading::Serialized`): the campaign's thread on
        /// rank 0, the main thread on the workers.
        pub fn join() -> Result<Option<Cluster>> {
            if launched_ranks().is_none_or(|n| n < 2) {
                return Ok(None);
            }
            let (universe, provided) = mpi::initialize_with_threading(mpi::Threading::Serialized)
                .ok_or_else(|| Error::Other("MPI was initialized twice".into()))?;
            if matches!(provided, mpi::Threading::Single | mpi::Threading::Funneled) {
                return Err(Error::Other(format!("the MPI library provides threading level {provided:?}, turbopt needs Serialized")));
            }
            let world = universe.world();
            Ok(Some(Cluster { _universe: universe, world }))
        }

        pub fn rank(&self) -> Rank {
            self.world.rank()
        }

        pub fn size(&self) -> Rank {
            self.world.size()
        }

        /// Rank 0: the campaign with the worker ranks evaluating (`evaluator` then only names the
        /// design space and the objectives).
        pub fn run_campaign(
            &self,
            config: &CampaignConfig,
            evaluator: &dyn Evaluator,
            out: &std::path::Path,
            resume: bool,
            observer: &mut dyn crate::optim::campaign::CampaignObserver,
        ) -> Result<crate::optim::campaign::CampaignSummary> {
            let coordinator = self.coordinate(config, evaluator)?;
            crate::optim::campaign::run_campaign(config, &coordinator, out, resume, observer)
        }

        /// Rank 0: sends the campaign to every worker and gathers how many designs each
        /// evaluates at once; a worker that cannot evaluate is an error naming it.
        pub fn coordinate<'a>(&'a self, campaign: &CampaignConfig, local: &'a dyn Evaluator) -> Result<Coordinator<'a>> {
            let bytes = encode(campaign)?;
            for r in 1..self.size() {
                self.world.process_at_rank(r).send_with_tag(&bytes[..], TAG_CAMPAIGN);
            }
            // Built first: whatever happens next, dropping it stops the workers.
            let mut coordinator = Coordinator { world: Mutex::new(World(&self.world)), local, capacity: vec![0; self.size() as usize] };
            let mut problems = Vec::new();
            for _ in 1..self.size() {
                let (msg, status) = self.world.any_process().receive_vec_with_tag::<u8>(TAG_READY);
                let r = status.source_rank();
                match decode::<std::result::Result<usize, String>>(&msg)? {
                    Ok(n) => coordinator.capacity[r as usize] = n.max(1),
                    Err(why) => problems.push(format!("rank {r}: {why}")),
                }
            }
            if !problems.is_empty() {
                return Err(Error::Other(format!("MPI workers cannot evaluate: {}", problems.join("; "))));
            }
            Ok(coordinator)
        }

        /// Ranks 1..N: receive the campaign, build its evaluator with `build`, report the
        /// batch capacity, then evaluate chunks until rank 0 says stop.
        pub fn serve(&self, build: impl FnOnce(&CampaignConfig) -> Result<Box<dyn Evaluator>>) -> Result<()> {
            let root = self.world.process_at_rank(0);
            let (msg, _) = root.receive_vec_with_tag::<u8>(TAG_CAMPAIGN);
            let campaign: CampaignConfig = decode(&msg)?;
            let evaluator = build(&campaign);
            let ready = match &evaluator {
                Ok(e) => Ok(e.batch_capacity()),
                Err(e) => Err(e.to_string()),
            };
            root.send_with_tag(&encode(&ready)?[..], TAG_READY);
            let evaluator = match evaluator {
                Ok(e) => e,
                // Rank 0 stops the run with the reason; wait for its stop.
                Err(_) => {
                    let _ = root.receive_vec::<u8>();
                    return Ok(());
                }
            };
            loop {
                let (msg, status) = root.receive_vec::<u8>();
                if status.tag() == TAG_STOP {
                    return Ok(());
                }
                let chunk: Vec<(usize, Vec<f64>)> = decode(&msg)?;
                self.evaluate_chunk(evaluator.as_ref(), &chunk)?;
            }
        }

        /// One chunk as one batch, each evaluation sent to rank 0 as soon as it is done (the
        /// batch runs on a thread of its own; MPI stays on this one).
        fn evaluate_chunk(&self, evaluator: &dyn Evaluator, chunk: &[(usize, Vec<f64>)]) -> Result<()> {
            let designs: Vec<Vec<f64>> = chunk.iter().map(|(_, d)| d.clone()).collect();
            let (done, finished) = std::sync::mpsc::channel::<(usize, Evaluation)>();
            let root = self.world.process_at_rank(0);
            std::thread::scope(|s| {
                let done = Mutex::new(done);
                let batch = s.spawn(move || {
                    evaluator.evaluate_batch_reporting(&designs, &|k, e| {
                        let _ = done.lock().unwrap_or_else(|p| p.into_inner()).send((k, e.clone()));
                    });
                });
                for _ in 0..chunk.len() {
                    let Ok((k, e)) = finished.recv() else { break };
                    root.send_with_tag(&encode(&(chunk[k].0, e))?[..], TAG_RESULT);
                }
                batch.join().map_err(|p| Error::Other(format!("MPI worker batch died: {}", crate::eval::dispatch::panic_message(p.as_ref()))))
            })
        }
    }

    /// The communicator behind the coordinator's lock. With `Threading::Serialized` MPI may be
    /// called from any thread, one at a time, which the lock ensures.
    struct World<'a>(&'a SimpleCommunicator);
    unsafe impl Send for World<'_> {}

    /// Rank 0's evaluator: the worker ranks evaluate, this forwards (names and design space
    /// come from a local evaluator of the same configuration, which evaluates nothing).
    pub struct Coordinator<'a> {
        world: Mutex<World<'a>>,
        local: &'a dyn Evaluator,
        /// Designs each rank evaluates at once (index: rank; rank 0 evaluates nothing).
        capacity: Vec<usize>,
    }

    impl Coordinator<'_> {
        /// Tells every worker to stop (rank 0's last word, also after an error: on drop).
        fn stop(&self) {
            let world = self.world.lock().unwrap_or_else(|p| p.into_inner());
            for r in 1..world.0.size() {
                world.0.process_at_rank(r).send_with_tag(&[0u8][..], TAG_STOP);
            }
        }

        /// The next chunk for an idle rank of capacity `capacity`, `idle` ranks being idle: an
        /// even share of what is queued, at most its capacity.
        fn chunk(dispatch: &Dispatch, queued: usize, capacity: usize, idle: usize) -> Vec<usize> {
            let share = queued.div_ceil(idle.max(1)).clamp(1, capacity);
            (0..share).map_while(|_| dispatch.try_next()).collect()
        }
    }

    impl Drop for Coordinator<'_> {
        fn drop(&mut self) {
            self.stop();
        }
    }

    impl Evaluator for Coordinator<'_> {
        fn space(&self) -> &DesignSpace {
            self.local.space()
        }
        fn objective_names(&self) -> Vec<String> {
            self.local.objective_names()
        }
        fn constraint_names(&self) -> Vec<String> {
            self.local.constraint_names()
        }
        fn evaluate(&self, design: &[f64]) -> Evaluation {
            self.evaluate_batch(&[design.to_vec()]).pop().unwrap_or_else(|| Evaluation::failed(crate::eval::Status::Failed("no result".into())))
        }
        fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
            self.evaluate_batch_reporting(designs, &|_, _| {})
        }
        fn batch_capacity(&self) -> usize {
            self.capacity.iter().sum()
        }

        /// Chunks to idle ranks, results gathered as they come, in design order.
        fn evaluate_batch_reporting(&self, designs: &[Vec<f64>], report: &(dyn Fn(usize, &Evaluation) + Sync)) -> Vec<Evaluation> {
            let world = self.world.lock().unwrap_or_else(|p| p.into_inner());
            let world = world.0;
            let dispatch = Dispatch::new(designs.len(), world.size() as usize - 1);
            let mut outstanding = vec![0usize; world.size() as usize];
            let mut queued = designs.len();
            while !dispatch.is_done() {
                let idle: Vec<usize> = (1..outstanding.len()).filter(|&r| outstanding[r] == 0).collect();
                for (i, &r) in idle.iter().enumerate() {
                    let chunk = Self::chunk(&dispatch, queued, self.capacity[r], idle.len() - i);
                    if chunk.is_empty() {
                        break;
                    }
                    queued -= chunk.len();
                    outstanding[r] = chunk.len();
                    let message: Vec<(usize, &Vec<f64>)> = chunk.iter().map(|&k| (k, &designs[k])).collect();
                    match encode(&message) {
                        Ok(bytes) => world.process_at_rank(r as Rank).send_with_tag(&bytes[..], TAG_CHUNK),
                        Err(e) => world.abort(error_code(&e)),
                    }
                }
                let (msg, status) = world.any_process().receive_vec_with_tag::<u8>(TAG_RESULT);
                let (k, e): (usize, Evaluation) = match decode(&msg) {
                    Ok(m) => m,
                    Err(e) => world.abort(error_code(&e)),
                };
                outstanding[status.source_rank() as usize] -= 1;
                let settled = dispatch.settle(k, WorkerOutcome::Evaluated(e));
                if let Some(e) = settled.evaluation {
                    report(k, &e);
                }
            }
            dispatch.into_results()
        }
    }

    /// A message that cannot be encoded or decoded is a bug: the job is aborted with it.
    fn error_code(e: &Error) -> i32 {
        eprintln!("turbopt MPI: {e}");
        1
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::eval::{Diagnostics, Status};

        #[test]
        fn evaluations_cross_as_messages_bit_for_bit() {
            let e = Evaluation {
                objectives: vec![f64::NAN, 0.1 + 0.2, -0.0, 1e-300],
                constraints: vec![f64::INFINITY, f64::NEG_INFINITY, 123456789.123456789],
                status: Status::NotConverged("MUR47: 20 iterations, \"quoted\"".into()),
                diagnostics: Diagnostics { iterations: 20, residual_drop_orders: 1.25, wall_s: 0.5, backend: "cpu (1 thread)".into(), scheme: "implicit".into(), ..Default::default() },
            };
            let back: (usize, Evaluation) = decode(&encode(&(7usize, e.clone())).unwrap()).unwrap();
            assert_eq!(back.0, 7);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&back.1.objectives), bits(&e.objectives));
            assert_eq!(bits(&back.1.constraints), bits(&e.constraints));
            assert_eq!((back.1.status, back.1.diagnostics), (e.status, e.diagnostics));
            let chunk = vec![(3usize, vec![0.1, -2.5e-17]), (4, vec![1.0, 2.0])];
            assert_eq!(decode::<Vec<(usize, Vec<f64>)>>(&encode(&chunk).unwrap()).unwrap(), chunk);
        }
    }
}
