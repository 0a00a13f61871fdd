//! Graceful stop of long solves: Ctrl-C or SIGTERM (e.g. from `timeout`) asks the running solve
//! to stop after its current iteration, so that the state reached and its history are still
//! written (a second signal while stopping is ignored; kill -9 still ends the process).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler (once per process). Failing to install it only loses the graceful stop.
pub fn install() {
    if let Err(e) = ctrlc::set_handler(|| STOP_REQUESTED.store(true, Ordering::SeqCst)) {
        eprintln!("warning: no graceful stop on Ctrl-C/SIGTERM ({e})");
    }
}

/// True once a stop was requested.
pub fn requested() -> bool {
    STOP_REQUESTED.load(Ordering::SeqCst)
}
