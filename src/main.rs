//! The `rulebook` binary: hands the compiled rule systems to the command-line front end in `cli`.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main(rulebook::SYSTEMS)
}
