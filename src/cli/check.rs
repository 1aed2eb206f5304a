//! `rulebook check`: parse and check rules text (no code generation), rendering every diagnostic.

use rulebook_compiler::driver;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Checks the rules in `rules_dir`, or with none the rules built into this binary (the text it
/// was compiled from, not a `rules-src/` that may have changed since). Exit 0 when there are no
/// errors (warnings allowed), 1 when there are. Diagnostics go to stderr; the result to stdout.
pub fn run_check(rules_dir: Option<PathBuf>, json: bool) -> ExitCode {
    let started = Instant::now();
    let compiled = match rules_dir {
        None => driver::compile_sources(driver::sources_from_pairs("rules-src", rulebook::RULES_SOURCES)),
        Some(dir) => match driver::check_dir(&dir) {
            Ok(c) => c,
            Err(problems) => {
                for p in problems {
                    eprintln!("error: {p}");
                }
                return ExitCode::from(1);
            }
        },
    };
    let elapsed = started.elapsed();
    let errors = compiled.errors();
    if json {
        let doc = compiled.to_json();
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        // Diagnostics are messages about the run, so they go to stderr; stdout keeps the result.
        eprint!("{}", compiled.render());
        if errors == 0 {
            let systems: std::collections::BTreeSet<&str> = compiled.sources.iter().map(|s| s.system.as_str()).collect();
            println!(
                "ok: {} rules files in {} system{} ({}) check clean",
                compiled.sources.len(),
                systems.len(),
                if systems.len() == 1 { "" } else { "s" },
                systems.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
    }
    eprintln!("checked in {:.1} ms", elapsed.as_secs_f64() * 1000.0);
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
