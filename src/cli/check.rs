//! `rulebook check`: validates rule sources. A stub until the compiler exposes its checker; the
//! compiler owner wires it in.

use std::path::PathBuf;
use std::process::ExitCode;

/// Checks the rules in `rules_dir` (default: the project's `rules-src/`), printing diagnostics as
/// text or JSON. Not yet wired to the compiler.
pub fn run_check(rules_dir: Option<PathBuf>, json: bool) -> ExitCode {
    let _ = (rules_dir, json);
    eprintln!("error: not yet wired");
    ExitCode::from(1)
}
