//! `rulebook check`: parse and check rules text (no code generation), rendering every diagnostic.

use super::CliError;
use rulebook_compiler::driver;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Checks the rules in `rules_dir`, or with none the rules built into this binary (the text it
/// was compiled from, not a `rules-src/` that may have changed since). `Ok(true)` when there are
/// no errors (warnings allowed), `Ok(false)` when there are. Diagnostics go to `err`; the result
/// to `out`. A write that fails (a full disk, a closed pipe) is the error.
pub fn run_check(rules_dir: Option<PathBuf>, json: bool, out: &mut dyn Write, err: &mut dyn Write) -> Result<bool, CliError> {
    let started = Instant::now();
    let compiled = match rules_dir {
        None => driver::compile_sources(driver::sources_from_pairs("rules-src", rulebook::RULES_SOURCES)),
        Some(dir) => match driver::check_dir(&dir) {
            Ok(c) => c,
            Err(problems) => {
                for p in problems {
                    writeln!(err, "error: {p}")?;
                }
                return Ok(false);
            }
        },
    };
    let elapsed = started.elapsed();
    let errors = compiled.errors();
    if json {
        let doc = compiled.to_json();
        let text = serde_json::to_string_pretty(&doc).map_err(|e| CliError {
            message: format!("cannot write the diagnostics as JSON: {e}"),
            code: 1,
        })?;
        writeln!(out, "{text}")?;
    } else {
        // Diagnostics are messages about the run, so they go to stderr; stdout keeps the result.
        write!(err, "{}", compiled.render())?;
        if errors == 0 {
            let systems: std::collections::BTreeSet<&str> = compiled.sources.iter().map(|s| s.system.as_str()).collect();
            writeln!(
                out,
                "ok: {} rules files in {} system{} ({}) check clean",
                compiled.sources.len(),
                systems.len(),
                if systems.len() == 1 { "" } else { "s" },
                systems.into_iter().collect::<Vec<_>>().join(", ")
            )?;
        }
    }
    out.flush()?;
    writeln!(err, "checked in {:.1} ms", elapsed.as_secs_f64() * 1000.0)?;
    Ok(errors == 0)
}
