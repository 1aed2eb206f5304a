//! A run-time error raised by the rules text (`rt::Error::InRules`), for people and for scripts:
//! the message, `file:line:col` with the source line and a caret, the resolver, the rule it cites
//! and the calls that led there (`docs/dsl.md`, "Run-time errors").

use super::CliError;
use rulebook_compiler::ir::split_place;
use rulebook_runtime as rt;
use std::io::Write;

/// The error as the CLI prints it after `error: `. A located one shows its statement's line from
/// the built-in rules text, or from the file on disk for `--rules`; the bare message otherwise.
pub fn describe(e: &rt::Error) -> String {
    let Some(place) = e.place() else {
        return e.to_string();
    };
    let cause = e.cause().to_string();
    let label = format!("raised here, in {} [{}]", place.resolver, place.cite);
    let help = (place.calls.len() > 1).then(|| format!("the calls that led here: {}", chain(place)));
    let snippet = split_place(&place.at).and_then(|(path, line, col)| {
        let text = source_text(path)?;
        rulebook_compiler::render::render_at(&cause, path, &text, line, col, &label, help.as_deref())
    });
    match snippet {
        Some(s) => format!("{cause} at {}\n{}", place.at, s.trim_end()),
        None => {
            let mut out = format!("{cause} at {}\n  {label}", place.at);
            if let Some(h) = help {
                out.push_str(&format!("\n  help: {h}"));
            }
            out
        }
    }
}

/// The error as a JSON document (`--json`): `{"error": {...}}` with the message and, for one the
/// rules raised, where: `resolver`, `at`, `file`, `line`, `column`, `cite`, the `calls` from the
/// outermost in, and a failed `require`'s `violations`.
pub fn json(e: &rt::Error) -> serde_json::Value {
    let mut doc = serde_json::json!({ "message": e.cause().to_string() });
    if let Some(place) = e.place() {
        doc["resolver"] = place.resolver.clone().into();
        doc["at"] = place.at.clone().into();
        if let Some((file, line, column)) = split_place(&place.at) {
            doc["file"] = file.into();
            doc["line"] = line.into();
            doc["column"] = column.into();
        }
        doc["cite"] = place.cite.clone().into();
        doc["calls"] = place.calls.iter().rev().cloned().collect::<Vec<_>>().into();
    }
    if let rt::Error::Rejected { violations } = e.cause() {
        doc["violations"] = serde_json::to_value(violations).unwrap_or_default();
    }
    serde_json::json!({ "error": doc })
}

/// A resolution failed: with `--json` its JSON document goes to `out` first (a whole document,
/// or nothing); the error comes back for the CLI to print and exit with.
pub fn failed(e: rt::Error, json_out: bool, out: &mut dyn Write) -> CliError {
    if json_out {
        let text = serde_json::to_string_pretty(&json(&e)).unwrap_or_default();
        if let Err(w) = writeln!(out, "{text}") {
            return CliError::from(w);
        }
    }
    CliError::from(e)
}

/// "fire → damage": the calls from the outermost in.
fn chain(place: &rt::RulePlace) -> String {
    place.calls.iter().rev().map(String::as_str).collect::<Vec<_>>().join(" → ")
}

/// The text of a rules file: built in (`rules-src/…`), else read from where `--rules` found it.
fn source_text(path: &str) -> Option<String> {
    if let Some(rel) = path.strip_prefix("rules-src/") {
        if let Some((_, text)) = rulebook::RULES_SOURCES.iter().find(|(p, _)| *p == rel) {
            return Some((*text).to_string());
        }
    }
    std::fs::read_to_string(path).ok()
}
