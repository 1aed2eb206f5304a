//! `rulebook sim` with a huge run count: it starts with an estimate of its length on stderr, and
//! Ctrl-C (SIGINT) leaves nothing on stdout, not half a report. The report of a run count past
//! the first timed batch is the same whatever `--threads` is.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

mod common;

#[test]
fn a_huge_simulation_starts_with_an_estimate_and_ctrl_c_writes_no_half_report() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args([
            "sim",
            "starleader.to_hit",
            "--set",
            "weapon=Ghazi 10/7",
            "--runs",
            "10000000000",
            "--seed",
            "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let mut first = String::new();
    BufReader::new(stderr).read_line(&mut first).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        first.starts_with("10000000000 runs: about ") && first.contains(" runs/s (Ctrl-C stops it"),
        "{first}"
    );
    let unit = first.split_whitespace().nth(4).unwrap_or("");
    assert!(["minutes", "hours", "days"].contains(&unit), "a long run in long units: {first}");
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(interrupted.success());
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success(), "stopped by the signal");
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn runs_past_the_first_batch_report_the_same_whatever_the_threads() {
    let sim = |threads: &str| {
        common::rulebook(&[
            "sim",
            "starleader.to_hit",
            "--set",
            "weapon=Ghazi 10/7",
            "--runs",
            "5000",
            "--seed",
            "3",
            "--threads",
            threads,
        ])
    };
    let (one, three) = (sim("1"), sim("3"));
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    assert_eq!(String::from_utf8_lossy(&one.stdout), String::from_utf8_lossy(&three.stdout));
    assert!(String::from_utf8_lossy(&one.stdout).contains("5000 runs, seed 3"));
    // Short simulations say nothing about how long they will take.
    assert!(!String::from_utf8_lossy(&one.stderr).contains("about"));
}
