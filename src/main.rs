fn main() -> std::process::ExitCode {
    turbopt::cli::main()
}
