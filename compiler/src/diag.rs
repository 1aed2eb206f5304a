//! Diagnostics as data: a kind (code), a message, a span and help. Rendering lives in `render`.

use crate::ast::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    /// Information about the report itself (N0001: more diagnostics than are shown).
    Note,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    pub label: String,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
        }
    }
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Warning,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
        }
    }
    pub fn note(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Note,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
        }
    }
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    pub fn is_warning(&self) -> bool {
        self.severity == Severity::Warning
    }
}

/// Byte offsets where the lines of `text` start, for turning many offsets into line numbers
/// without rescanning the text each time (`line_of`).
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// The 1-based line of byte `offset`, given the `line_starts` of its text.
pub fn line_of(starts: &[usize], offset: usize) -> usize {
    starts.partition_point(|&s| s <= offset).max(1)
}

/// Length in bytes of `�`, which stands for a byte that is not UTF-8 in the text shown.
pub const REPLACEMENT_LEN: usize = '\u{FFFD}'.len_utf8();

/// Every diagnostic code, with a one-line meaning (shown by `docs/dsl.md` and tested for uniqueness).
pub const CODES: &[(&str, &str)] = &[
    ("E0001", "syntax error"),
    ("E0002", "input too large or nested too deeply"),
    ("E0003", "file is not valid UTF-8"),
    ("E0004", "control character in rules text"),
    ("E0101", "unknown name"),
    ("E0102", "duplicate definition or reserved word"),
    ("E0103", "missing or repeated system declaration"),
    ("E0201", "type mismatch"),
    ("E0202", "wrong arguments"),
    ("E0203", "invalid statement here"),
    ("E0204", "output may be left unset"),
    ("E0301", "gap in a range table"),
    ("E0302", "overlapping rows"),
    ("E0303", "missing matrix cell"),
    ("E0304", "index can fall outside the table"),
    ("E0305", "wrong number of cells"),
    ("E0306", "duplicate key"),
    ("E0307", "invalid table layout"),
    ("E0401", "arithmetic can overflow"),
    ("E0402", "division by zero"),
    ("E0403", "invalid dice"),
    ("E0501", "resolvers call each other in a cycle"),
    ("E0502", "a record type contains itself"),
    ("E0503", "types or calls nested too deeply"),
    ("W0001", "unused table"),
    ("W0002", "row can never be used"),
    ("W0003", "modifier can never apply"),
    ("W0004", "optional rule never consulted"),
    ("W0005", "input read after its output is set"),
    ("N0001", "more diagnostics in a file than are shown"),
];

/// The help of a reserved word used as a name: another name to choose, with a descriptive example
/// for the words people reach for most (`roll`, `dice`).
pub fn reserved_word_help(word: &str) -> String {
    let example = match word {
        "roll" => Some("to_hit_roll"),
        "dice" => Some("damage_dice"),
        "check" => Some("morale_check"),
        "set" => Some("gadget_set"),
        "type" => Some("unit_type"),
        "out" => Some("result"),
        "table" => Some("hit_table"),
        "option" => Some("choice"),
        _ => None,
    };
    match example {
        Some(e) => format!("choose another name, such as `{word}_` or one that says what it holds, like `{e}`"),
        None => format!("choose another name, such as `{word}_` or one that says what it holds"),
    }
}

/// "did you mean" support: the candidates closest to `name`, best first.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, String)> = candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c.to_string()))
        .filter(|(d, c)| *d <= (c.len().max(name.len()) / 3).max(2))
        .collect();
    scored.sort();
    scored.dedup();
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// A help line for an unknown name: "did you mean `x`?" or the list of valid names.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str> + Clone, what: &str) -> String {
    let near = nearest(name, candidates.clone());
    if let Some(first) = near.first() {
        if near.len() == 1 {
            format!("did you mean `{first}`?")
        } else {
            format!(
                "did you mean `{first}`? (also: {})",
                near[1..].iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            )
        }
    } else {
        let all: Vec<&str> = candidates.into_iter().collect();
        if all.is_empty() {
            format!("no {what} is defined here")
        } else if all.len() <= 12 {
            format!(
                "valid {what}s: {}",
                all.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            )
        } else {
            format!("there are {} {what}s; run `rulebook list` to see them", all.len())
        }
    }
}
