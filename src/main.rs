//! The `turbopt` command line (`cli`), a user of the library's public API.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
