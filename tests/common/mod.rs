//! Helpers shared by the tests that run the `rulebook` binary as a user does.
#![allow(dead_code, reason = "each test file uses its own subset")]

use rulebook::runtime::Prob;
use std::process::{Command, Output};

/// Runs the built binary from the project root.
pub fn rulebook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run rulebook: {e}"))
}

/// An exact probability as `--json` prints it ("n/d").
pub fn prob(text: &str) -> Prob {
    let (n, d) = text.split_once('/').unwrap_or_else(|| panic!("not a fraction: {text}"));
    let n = n.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let d = d.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    Prob::new(n, d).unwrap_or_else(|e| panic!("{text}: {e}"))
}
