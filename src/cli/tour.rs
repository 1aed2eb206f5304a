//! `rulebook tour`: the built-in rules at work in one command — check every rules file, build a
//! character from the book, resolve a shot with scripted dice and show its exact odds.

use super::CliError;
use rulebook_runtime as rt;
use std::io::Write;
use std::process::ExitCode;

/// The tour's steps are data, in `examples/tour.yaml`: the Rust here knows no game.
const STEPS_YAML: &str = include_str!("../../examples/tour.yaml");

#[derive(serde::Deserialize)]
struct Step {
    title: String,
    args: Vec<String>,
}

fn steps() -> Result<Vec<Step>, CliError> {
    serde_yaml::from_str(STEPS_YAML).map_err(|e| CliError {
        message: format!("examples/tour.yaml: {e}"),
        code: 1,
    })
}

pub fn run(systems: &[&'static rt::SystemInfo], out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let steps = steps()?;
    for (i, Step { title, args }) in steps.iter().enumerate() {
        writeln!(out, "\n━━ {}. {title}\n$ rulebook {}\n", i + 1, shell_words(args))?;
        // A step in a book this build left out is shown, and skipped with the reason.
        if let Some(system) = book(args).filter(|b| super::left_out_of(systems).contains(b)) {
            writeln!(
                out,
                "(skipped: {})",
                rt::Error::LeftOut {
                    system: system.to_string()
                }
            )?;
            continue;
        }
        out.flush()?;
        let argv = std::iter::once("rulebook").chain(args.iter().map(String::as_str));
        let code = super::run(systems, argv, out, err);
        if code != ExitCode::SUCCESS {
            return Err(CliError {
                message: format!("tour step {} failed", i + 1),
                code: 1,
            });
        }
    }
    // The book of the tour's first step that this build has.
    let next = steps
        .iter()
        .filter_map(|s| book(&s.args))
        .find(|b| systems.iter().any(|s| s.name == *b))
        .unwrap_or("SYSTEM");
    writeln!(out, "\nNext: `rulebook list {next}` shows every resolver, input and optional rule.")?;
    Ok(())
}

/// The system of a step's resolver (`roll starleader.fire ...`), if it names one.
fn book(args: &[String]) -> Option<&str> {
    args.get(1).and_then(|a| a.split_once('.')).map(|(system, _)| system)
}

fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(' ') || a.contains(',') {
                format!("\"{a}\"")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
