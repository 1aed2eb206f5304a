//! The `rulebook` binary: hands the compiled rule systems to the command-line front end in `cli`.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod cli;

/// Every allocation of the command line goes through mimalloc: `sim` allocates and frees small
/// lists all the time, from each of its threads, which glibc's allocator does more slowly.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The command line runs on a thread with as deep a stack as a resolution may need
/// (`rt::RESOLUTION_STACK`): `roll` resolves on it, as `odds` and `sim` do on their own.
fn main() -> std::process::ExitCode {
    let run = std::thread::Builder::new()
        .stack_size(rulebook::runtime::RESOLUTION_STACK)
        .spawn(|| cli::main(rulebook::SYSTEMS));
    match run.map(|t| t.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => std::process::ExitCode::from(101),
        Err(e) => {
            eprintln!("error: cannot start the command line's thread: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
