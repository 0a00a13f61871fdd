//! Long work with the interpreter released, and Ctrl-C honoured: the work runs on a thread of its
//! own while the calling thread looks at Python's signal handlers every 50 ms. A
//! `KeyboardInterrupt` there requests the work's stop signal (solves stop after their current
//! iteration, unfinished designs are not logged, `turbopt::solver::StopSignal`), waits for the
//! work to return, and is raised. Other Python threads run meanwhile.

use std::sync::mpsc;
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use turbopt::solver::StopSignal;

/// How often the calling thread looks for a pending Ctrl-C.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` as described in the module notes; `stop` is the signal the work watches, cleared
/// before it starts.
pub fn interruptible<T: Send>(py: Python<'_>, stop: &StopSignal, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    stop.clear();
    let (result, interrupted) = py.detach(|| {
        std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel();
            let worker = scope.spawn(move || {
                let out = work();
                let _ = done.send(());
                out
            });
            let mut interrupted = None;
            loop {
                match finished.recv_timeout(POLL) {
                    Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    Err(mpsc::RecvTimeoutError::Timeout) if interrupted.is_none() => {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            stop.request();
                            interrupted = Some(e);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
            }
            (worker.join(), interrupted)
        })
    });
    match (result, interrupted) {
        (_, Some(e)) => Err(e),
        (Ok(value), None) => Ok(value),
        (Err(panic), None) => Err(PyRuntimeError::new_err(format!("internal error (please report): {}", panic_text(panic.as_ref())))),
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_else(|| "a panic".into())
}
