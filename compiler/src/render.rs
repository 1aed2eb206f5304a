//! Diagnostics → text for people: the source line with a caret, `file:line:col`, code and help.
//! Rendering is kept out of the checker, which only builds `Diagnostic` data.

use crate::check::SourceFile;
use crate::diag::{Diagnostic, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::fmt;

/// Widest stretch of a source line shown, in characters; a longer line is cut around the caret
/// with `…` marks.
pub const MAX_SHOWN_CHARS: usize = 200;

struct Shown<'a> {
    d: &'a Diagnostic,
    src: Excerpt,
    /// The diagnostic's span, within `src.text`.
    span: SourceSpan,
}

/// The source a diagnostic shows: the whole text, or, around a long line, the lines miette shows
/// cut to a window of `MAX_SHOWN_CHARS` (earlier lines left empty, so line numbers stay true).
struct Excerpt {
    name: String,
    text: String,
    /// Bytes cut from the start of the caret's line (less the `…` that stands for them), added
    /// back to the column miette reports.
    col_shift: usize,
}

impl SourceCode for Excerpt {
    fn read_span<'a>(&'a self, span: &SourceSpan, before: usize, after: usize) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let c = self.text.read_span(span, before, after)?;
        let column = if c.line_count() <= 1 || before + after == 0 {
            c.column() + self.col_shift
        } else {
            c.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            c.data(),
            *c.span(),
            c.line(),
            column,
            c.line_count(),
        )))
    }
}

/// The source of a diagnostic at `start..end` of `text`, cut when a line miette shows (the line
/// of `start` and one on either side) is longer than `MAX_SHOWN_CHARS`; and the span within it.
/// Control characters (E0004) are shown as `?`, one per byte, so a terminal never acts on them
/// and every offset stays true.
fn excerpt(name: &str, text: &str, start: usize, end: usize) -> (Excerpt, SourceSpan) {
    let visible;
    let text = if text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) {
        visible = text
            .chars()
            .map(|c| {
                if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
                    "?".repeat(c.len_utf8())
                } else {
                    c.to_string()
                }
            })
            .collect::<String>();
        visible.as_str()
    } else {
        text
    };
    let start = floor_char(text, start.min(text.len()));
    let end = floor_char(text, end.clamp(start, text.len()));
    let line_start = text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = text[start..].find('\n').map(|i| start + i).unwrap_or(text.len());
    let prev_start = if line_start == 0 {
        0
    } else {
        text[..line_start - 1].rfind('\n').map(|i| i + 1).unwrap_or(0)
    };
    let next_end = if line_end >= text.len() {
        text.len()
    } else {
        text[line_end + 1..].find('\n').map(|i| line_end + 1 + i).unwrap_or(text.len())
    };
    let shown = &text[prev_start..next_end];
    if shown.split('\n').all(|l| l.len() <= MAX_SHOWN_CHARS) {
        let excerpt = Excerpt {
            name: name.to_string(),
            text: text.to_string(),
            col_shift: 0,
        };
        return (excerpt, SourceSpan::new(start.into(), end - start));
    }
    // A window of characters around the caret's column, the same on every line shown.
    let caret_col = text[line_start..start].chars().count();
    let from = caret_col.saturating_sub(MAX_SHOWN_CHARS / 2);
    let upto = from + MAX_SHOWN_CHARS;
    let mut out = "\n".repeat(text[..prev_start].matches('\n').count());
    let mut span = SourceSpan::new(0.into(), 0);
    let mut line_at = prev_start;
    let mut col_shift = 0;
    for line in shown.split('\n') {
        if line_at != prev_start {
            out.push('\n');
        }
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let cut_front = from > 0 && chars.len() > from;
        if cut_front {
            out.push('…');
        }
        let first = if cut_front { from } else { 0 };
        let window_start = out.len();
        let lo = chars.get(first).map(|c| c.0).unwrap_or(line.len());
        let hi = chars.get(upto).map(|c| c.0).unwrap_or(line.len());
        out.push_str(&line[lo.min(hi)..hi]);
        if line_at == line_start {
            // The span, cut to the window (a span that runs on past it ends where the window does).
            let s = (start - line_start).clamp(lo, hi);
            let e = (end.min(line_end) - line_start).clamp(s, hi);
            let s_at = window_start + (s - lo.min(hi));
            span = SourceSpan::new(s_at.into(), e - s);
            // miette counts columns in bytes: the line's bytes cut, less the `…` standing in.
            if cut_front {
                col_shift = lo.saturating_sub('…'.len_utf8());
            }
        }
        if chars.len() > upto {
            out.push('…');
        }
        line_at += line.len() + 1;
    }
    let excerpt = Excerpt {
        name: name.to_string(),
        text: out,
        col_shift,
    };
    (excerpt, span)
}

/// The largest char boundary of `text` at or before `i`.
fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl std::error::Error for Shown<'_> {}

impl miette::Diagnostic for Shown<'_> {
    // The code is already in our header line (`error[E0101]: ... at file:line:col`).
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.d.help.as_ref().map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span;
        let label = if self.d.label.is_empty() {
            None
        } else {
            Some(self.d.label.clone())
        };
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(label, span))))
    }
}

/// `file:line:col` of a diagnostic (1-based), as editors and CI logs expect.
pub fn location(d: &Diagnostic, sources: &[SourceFile]) -> String {
    match position(d, sources) {
        Some(p) => format!("{}:{}:{}", p.file, p.line, p.column),
        None => "<unknown>".to_string(),
    }
}

/// Where a diagnostic is, for editors and CI annotations: the file, and the 1-based line and
/// column (in characters) of the start of its span and of its end (the column just after its
/// last character; the start again for an empty span).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// The [`Position`] of a diagnostic, `None` when its file is not among `sources`.
pub fn position(d: &Diagnostic, sources: &[SourceFile]) -> Option<Position> {
    let s = sources.get(d.span.file)?;
    let line_col = |offset: usize| -> (usize, usize) {
        // A span inside a character (never made by the parser) counts from that character's start.
        let mut at = offset.min(s.text.len());
        while !s.text.is_char_boundary(at) {
            at -= 1;
        }
        let upto = &s.text[..at];
        let line = upto.matches('\n').count() + 1;
        let col = upto.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
        (line, col)
    };
    let (line, column) = line_col(d.span.start);
    let (end_line, end_column) = line_col(d.span.end.max(d.span.start));
    Some(Position {
        file: s.path.clone(),
        line,
        column,
        end_line,
        end_column,
    })
}

/// Render diagnostics as plain text (no colour, fixed width) in the order given.
pub fn render(diags: &[Diagnostic], sources: &[SourceFile]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.iter().filter(|d| d.is_warning()).count();
    render_counted(diags, sources, errors, warnings)
}

/// `render`, with the totals of the closing line given: they count the diagnostics a long report
/// leaves out (`driver::MAX_DIAGNOSTICS_PER_FILE`) too.
pub fn render_counted(diags: &[Diagnostic], sources: &[SourceFile], errors: usize, warnings: usize) -> String {
    let handler = handler();
    let mut out = String::new();
    for d in diags {
        let (path, text) = match sources.get(d.span.file) {
            Some(s) => (s.path.as_str(), s.text.as_str()),
            None => ("<unknown>", ""),
        };
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        out.push_str(&format!("{kind}[{}]: {} at {}\n", d.code, d.message, location(d, sources)));
        let (src, span) = excerpt(path, text, d.span.start, d.span.end);
        let shown = Shown { d, src, span };
        let mut buf = String::new();
        if handler.render_report(&mut buf, &shown).is_err() {
            buf = format!("  {}\n", d.message);
        }
        out.push_str(&buf);
        out.push('\n');
    }
    if errors + warnings > 0 {
        out.push_str(&format!(
            "{errors} error{}, {warnings} warning{}\n",
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" }
        ));
    }
    out
}

/// A run-time error raised by the rules text (`rt::Error::InRules`) for people: the message, the
/// statement's line of `text` (the file at `path`) with its first line underlined from `line`,
/// `column` (1-based), a label, and help, the way `render` shows a diagnostic. `None` when the
/// text has no such line.
pub fn render_at(message: &str, path: &str, text: &str, line: usize, column: usize, label: &str, help: Option<&str>) -> Option<String> {
    let starts = crate::diag::line_starts(text);
    let line_start = *starts.get(line.checked_sub(1)?)?;
    let line_text = text[line_start..].split('\n').next().unwrap_or("");
    let col_byte = line_text.char_indices().nth(column.checked_sub(1)?).map(|(i, _)| i)?;
    let end = line_start + line_text.trim_end().len();
    let start = line_start + col_byte;
    let mut d = Diagnostic::error("", crate::ast::Span { file: 0, start, end }, message).label(label);
    d.help = help.map(str::to_string);
    let handler = handler();
    let (src, span) = excerpt(path, text, start, end.max(start));
    let shown = Shown { d: &d, src, span };
    let mut buf = String::new();
    handler.render_report(&mut buf, &shown).ok()?;
    Some(buf)
}

/// How diagnostics and run-time errors are drawn: no colour, 100 columns, no links.
fn handler() -> GraphicalReportHandler {
    GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .with_links(false)
}
