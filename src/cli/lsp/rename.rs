//! Find references and rename: the uses of the declaration whose name is at a position, across
//! the files of its system, and the edit that renames all of them. A rename is refused, with an
//! error that says why, when the new name is not a name of the language, when nothing renameable
//! is at the position, when a file of the system does not parse (its uses could not be found),
//! and when the renamed folder would not check as cleanly as before (a name taken, a reserved
//! word).

use super::refs::{Occurrence, Target};
use super::text::{offset_of, range, uri_of, word_at};
use super::world::{diagnostics_of, Analysis};
use lsp_server::ErrorCode;
use lsp_types::{Location, Position, PrepareRenameResponse, TextEdit};
use rulebook_compiler::parse::KEYWORDS;
use std::path::Path;

/// A refused request: the JSON-RPC error code and what to tell the user.
pub type Refusal = (ErrorCode, String);

/// The occurrence of a declared name at `pos` of the file at `path`.
pub fn occurrence_at<'a>(a: &'a Analysis, path: &Path, pos: Position) -> Option<&'a Occurrence> {
    let file = a.file_of(path)?;
    let offset = offset_of(a.texts.get(file)?, pos)?;
    a.occurrences
        .iter()
        .find(|o| o.file == file && o.span.start <= offset && offset <= o.span.end)
}

/// Every occurrence of `t`, in file order.
fn uses<'a>(a: &'a Analysis, t: &'a Target) -> impl Iterator<Item = &'a Occurrence> + 'a {
    a.occurrences.iter().filter(move |o| o.target == *t)
}

/// The places that name what the name at `pos` names (its declaration too when asked).
pub fn references(a: &Analysis, path: &Path, pos: Position, with_decl: bool) -> Vec<Location> {
    let Some(o) = occurrence_at(a, path, pos) else {
        return Vec::new();
    };
    uses(a, &o.target)
        .filter(|u| with_decl || !u.decl)
        .filter_map(|u| a.location(u.file, u.span))
        .collect()
}

/// Why there is nothing to rename at `pos`: what is there instead.
fn not_renameable(a: &Analysis, path: &Path, pos: Position) -> Refusal {
    let text = a.file_of(path).and_then(|f| a.texts.get(f)).map_or("", String::as_str);
    let what = match word_at(text, pos) {
        None => "there is no name here".to_string(),
        Some(w) if KEYWORDS.contains(&w.as_str()) => format!("`{w}` is a keyword of the language"),
        Some(w) if w.starts_with(|c: char| c.is_ascii_digit()) => format!("`{w}` is a number"),
        Some(w) if super::text::string_at(text, pos).is_some() => format!("`{w}` is inside a string"),
        Some(w) => format!("`{w}` is not a declaration's name (a local, a built-in, or a word the checker does not know)"),
    };
    (
        ErrorCode::RequestFailed,
        format!("cannot rename here: {what}; resolvers, tables, columns, enums, variants, records, fields, types, constants and options can be renamed"),
    )
}

/// The range of the name to rename at `pos` and the name itself.
pub fn prepare(a: &Analysis, path: &Path, pos: Position) -> Result<PrepareRenameResponse, Refusal> {
    let o = occurrence_at(a, path, pos).ok_or_else(|| not_renameable(a, path, pos))?;
    let text = a.texts.get(o.file).map_or("", String::as_str);
    Ok(PrepareRenameResponse::RangeWithPlaceholder {
        range: range(text, o.span),
        placeholder: o.target.name.clone(),
    })
}

/// Is `name` a name the rules language accepts (a letter or `_`, then letters, digits, `_`; not a
/// keyword)? The reason when not.
pub fn bad_name(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Some(format!(
            "`{name}` is not a name of the rules language: a name is a letter or `_`, then letters, digits and `_`"
        ));
    }
    KEYWORDS
        .contains(&name)
        .then(|| format!("`{name}` is a keyword of the rules language and cannot be a name"))
}

/// The edit that renames what the name at `pos` names, in every file of its system: a
/// `WorkspaceEdit` whose `changes` are keyed by file URI, in the order of the paths.
pub fn rename(a: &Analysis, path: &Path, pos: Position, new_name: &str) -> Result<serde_json::Value, Refusal> {
    if let Some(why) = bad_name(new_name) {
        return Err((ErrorCode::InvalidParams, why));
    }
    let o = occurrence_at(a, path, pos).ok_or_else(|| not_renameable(a, path, pos))?;
    let t = &o.target;
    let unparsed: Vec<&str> = (0..a.files.len())
        .filter(|&i| a.system_of(i) == t.system && a.files.get(i).is_some_and(Option::is_none))
        .filter_map(|i| a.sources.get(i).map(|s| s.path.as_str()))
        .collect();
    if let Some(p) = unparsed.first() {
        return Err((
            ErrorCode::RequestFailed,
            format!(
                "cannot rename `{}`: {p} does not parse, so its uses cannot be found; fix it first",
                t.name
            ),
        ));
    }
    let spans: Vec<(usize, rulebook_compiler::ast::Span)> = uses(a, t).map(|u| (u.file, u.span)).collect();
    if let Some(clash) = new_errors(a, &spans, new_name) {
        return Err((
            ErrorCode::RequestFailed,
            format!("renaming `{}` to `{new_name}` would not check: {clash}", t.name),
        ));
    }
    let mut changes = std::collections::BTreeMap::new();
    for (file, span) in &spans {
        let (Some(p), Some(text)) = (a.paths.get(*file), a.texts.get(*file)) else {
            continue;
        };
        let Some(uri) = uri_of(p).map(|u| u.as_str().to_string()) else {
            continue;
        };
        let edit = TextEdit {
            range: range(text, *span),
            new_text: new_name.to_string(),
        };
        changes.entry(uri).or_insert_with(Vec::new).push(edit);
    }
    // Built as JSON from the ordered map: a `WorkspaceEdit`'s own map has no order.
    let changes = serde_json::to_value(changes).map_err(|e| (ErrorCode::InternalError, e.to_string()))?;
    Ok(serde_json::json!({ "changes": changes }))
}

/// The first error the renamed folder has that the folder as it is has not, if any.
fn new_errors(a: &Analysis, spans: &[(usize, rulebook_compiler::ast::Span)], new_name: &str) -> Option<String> {
    let mut renamed = a.sources.clone();
    let mut by_end: Vec<&(usize, rulebook_compiler::ast::Span)> = spans.iter().collect();
    by_end.sort_by_key(|(f, s)| (*f, std::cmp::Reverse(s.start)));
    for (file, span) in by_end {
        if let Some(s) = renamed.get_mut(*file) {
            if s.text.get(span.start..span.end).is_some() {
                s.text.replace_range(span.start..span.end, new_name);
            }
        }
    }
    let errors = |sources: Vec<rulebook_compiler::check::SourceFile>| -> Vec<String> {
        let texts: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
        diagnostics_of(sources, &a.paths, &texts)
            .into_iter()
            .flat_map(|(_, ds)| ds)
            .filter(|d| d.severity == Some(lsp_types::DiagnosticSeverity::ERROR))
            .map(|d| d.message)
            .collect()
    };
    let after = errors(renamed);
    if after.is_empty() {
        return None;
    }
    let before = errors(a.sources.clone());
    (after.len() > before.len())
        .then(|| after.iter().find(|e| !before.contains(e)).or(after.first()).cloned())
        .flatten()
}
