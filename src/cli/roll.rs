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
            let outcome = r
                .run_traced(&mut dice, &mut rec, &bound)
                .map_err(|e| super::rules_error::failed(e, args.json, out))?;
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
            let outcome = r
                .run_traced(&mut dice, &mut rec, &bound)
                .map_err(|e| super::rules_error::failed(e, args.json, out))?;
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
    let width = width();
    for line in inputs::lines(r, &bound).lines() {
        // An input too long for the width (a whole army) is cut: `--json` or `--full` shows it.
        if line.chars().count() > width && !args.full {
            let head: String = line.chars().take(width.saturating_sub(1)).collect();
            writeln!(out, "{head}…")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    // A long trace is folded, and the outcome, which sums it up, comes first.
    let lines = rec.line_count();
    let fold = match (args.depth, args.full) {
        (Some(d), _) => Some(d.saturating_add(1)),
        (None, false) if lines > LONG_TRACE => Some(1),
        (None, _) => None,
    };
    // A folded trace is for reading a long resolution at a glance: its values are cut shorter.
    let max_chars = (!args.full).then_some(if fold.is_some() { FOLDED_VALUE_CHARS } else { TRACE_VALUE_CHARS });
    if fold.is_some() {
        write_outcome(&outcome, width, out)?;
    }
    match fold {
        Some(_) => writeln!(
            out,
            "\ntrace ({lines} lines; each call nested deeper than {} is one line: --depth N shows more, --full all):",
            args.depth.unwrap_or(0)
        )?,
        None => writeln!(out, "\ntrace:")?,
    }
    if rec.events.is_empty() {
        writeln!(out, "  (no events)")?;
    }
    let trace = match fold {
        Some(depth) => rec.render_folded(max_chars, depth),
        None => rec.render_with_values(max_chars),
    };
    for line in trace.lines() {
        writeln!(out, "  {line}")?;
    }
    if fold.is_none() {
        write_outcome(&outcome, width, out)?;
    }
    Ok(())
}

/// Longest traced value a folded trace prints.
const FOLDED_VALUE_CHARS: usize = 80;

/// Lines of trace past which `roll` folds it (unless `--full` or `--depth`).
const LONG_TRACE: usize = 300;

/// The width to wrap long lines to: the terminal's, or 100 columns when the output is no terminal
/// (a file or a pipe gets the same text on every machine).
fn width() -> usize {
    console::Term::stdout()
        .size_checked()
        .map_or(100, |(_, cols)| usize::from(cols).max(40))
}

/// The outcome, a field a line; a value too long for the width is wrapped, and a list of records
/// (a battle's losses, its units at the end) takes a line per item.
fn write_outcome(outcome: &rt::Value, width: usize, out: &mut dyn Write) -> Result<(), CliError> {
    writeln!(out, "\noutcome:")?;
    let rt::Value::Record(fields) = outcome else {
        writeln!(out, "  {outcome}")?;
        return Ok(());
    };
    let key_width = fields.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    for (k, v) in fields {
        let head = format!("  {} ", pad(&format!("{k}:"), key_width + 1));
        let text = v.to_string();
        if head.chars().count() + text.chars().count() <= width {
            writeln!(out, "{head}{text}")?;
            continue;
        }
        match v {
            rt::Value::List(items) => {
                writeln!(out, "{head}({} items)", items.len())?;
                for item in items.iter() {
                    wrapped(&format!("    - {item}"), 6, width, out)?;
                }
            }
            _ => wrapped(&format!("{head}{text}"), head.chars().count(), width, out)?,
        }
    }
    Ok(())
}

/// `line` cut into lines of at most `width` characters at spaces where it can be, the
/// continuation lines indented by `indent`.
fn wrapped(line: &str, indent: usize, width: usize, out: &mut dyn Write) -> Result<(), CliError> {
    let width = width.max(indent + 20);
    let body = line.trim_start_matches(' ');
    let mut count = line.len() - body.len();
    let mut current = " ".repeat(count);
    let lead = count;
    for word in body.split(' ') {
        let n = word.chars().count();
        if count > indent.max(lead) && count + 1 + n > width {
            writeln!(out, "{}", current.trim_end())?;
            current = " ".repeat(indent);
            count = indent;
        } else if count > lead {
            current.push(' ');
            count += 1;
        }
        current.push_str(word);
        count += n;
    }
    writeln!(out, "{}", current.trim_end())?;
    Ok(())
}
