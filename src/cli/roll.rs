//! `rulebook roll`: resolves one situation with seeded or scripted dice and prints the inputs,
//! the explained trace and the outcome (or all of it as JSON).

use super::list::pretty;
use super::{inputs, pad, CliError, RollArgs};
use rulebook_runtime as rt;
use std::io::Write;

/// Longest traced value `roll` prints before cutting it (unless `--full`).
const TRACE_VALUE_CHARS: usize = 160;

pub fn run(systems: &[&'static rt::SystemInfo], args: &RollArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    let bound = inputs::bind(r, &args.inputs)?;
    let mut rec = rt::Recorder::new();
    let (outcome, dice_note) = match &args.dice {
        Some(faces) => {
            let mut dice = rt::Scripted::new(faces.clone());
            let outcome = r.run_traced(&mut dice, &mut rec, &bound)?;
            let unused = faces.get(dice.used()..).unwrap_or(&[]);
            if !unused.is_empty() {
                let list: Vec<String> = unused.iter().map(i64::to_string).collect();
                writeln!(err, "warning: {} scripted face(s) not used: {}", unused.len(), list.join(","))?;
            }
            (outcome, format!("scripted ({} face(s) used)", dice.used()))
        }
        None => {
            let seed = args.seed.unwrap_or(0);
            let mut dice = rt::Seeded::new(seed);
            let outcome = r.run_traced(&mut dice, &mut rec, &bound)?;
            let note = match args.seed {
                Some(_) => format!("seed {seed}"),
                None => "seed 0 (the default; choose with --seed N or --dice F,F,...)".to_string(),
            };
            (outcome, note)
        }
    };
    if args.json {
        let doc = rt::json::roll(s, r, &bound, &outcome, &rec.events).map_err(|e| CliError {
            message: format!("cannot encode trace: {e}"),
            code: 1,
        })?;
        writeln!(out, "{}", pretty(&doc)?)?;
        return Ok(());
    }
    let path = format!("{}.{}", s.name, r.name);
    let title = if r.title.is_empty() {
        String::new()
    } else {
        format!(" — {}", r.title)
    };
    writeln!(out, "{path}{title}")?;
    writeln!(out, "dice: {dice_note}")?;
    writeln!(out, "\ninputs:")?;
    write!(out, "{}", inputs::lines(r, &bound))?;
    writeln!(out, "\ntrace:")?;
    if rec.events.is_empty() {
        writeln!(out, "  (no events)")?;
    }
    let trace = if args.full {
        rec.render()
    } else {
        rec.render_elided(TRACE_VALUE_CHARS)
    };
    for line in trace.lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out, "\noutcome:")?;
    match &outcome {
        rt::Value::Record(fields) => {
            let width = fields.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
            for (k, v) in fields {
                writeln!(out, "  {} {v}", pad(&format!("{k}:"), width + 1))?;
            }
        }
        other => writeln!(out, "  {other}")?,
    }
    Ok(())
}
