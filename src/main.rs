//! The `rulebook` binary: hands the compiled rule systems to the command-line front end in `cli`.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod cli;

/// Every allocation of the command line goes through mimalloc: `sim` allocates and frees small
/// lists all the time, from each of its threads, which glibc's allocator does more slowly.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main(rulebook::SYSTEMS)
}
