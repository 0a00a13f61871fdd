//! The `turbopt` command line: one subcommand per job (mesh, solve, evaluate, optimize).
//! Each prints a human-readable report; with `--json` the last line of stdout is one JSON object.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "turbopt", version, about = "CFD-driven turbomachinery cascade blade design")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate the multi-block mesh of a cascade passage, write it (Plot3D, VTK, SU2, PNG) and
    /// print its quality report.
    Mesh(MeshArgs),
}

#[derive(clap::Args, Debug)]
pub struct MeshArgs {
    /// Blade file (RON), e.g. blades/ls89.ron
    pub blade: std::path::PathBuf,
    #[arg(long, value_enum, default_value = "medium")]
    pub density: crate::mesh::Density,
    /// Operating point used for the y+ estimate (default: the file's first).
    #[arg(long)]
    pub case: Option<String>,
    /// Output directory.
    #[arg(long, default_value = "out/mesh")]
    pub out: std::path::PathBuf,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
}

/// Parse the command line, run, and turn errors into a message and a non-zero exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mesh(args) => crate::cli::mesh::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

pub mod mesh;
