//! The `turbopt` command line: one subcommand per job (import, mesh, solve, evaluate, optimize, study, bench, perf-model).
//! Each prints a human-readable report; with `--json` the last line of stdout is one JSON object.

mod args;
mod bench;
mod evaluate;
mod grid;
mod import;
mod interrupt;
mod mesh;
mod optimize;
mod perf;
mod solve;
mod study;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

/// Parse the command line, run, and turn errors into a message and a non-zero exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mesh(args) => mesh::run(&args),
        Command::Solve(args) => solve::run(&args),
        Command::Optimize(args) => optimize::run(&args),
        Command::Evaluate(args) => evaluate::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::PerfModel(args) => perf::run(&args),
        Command::Import(args) => import::run(&args),
        Command::Study(args) => study::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
