//! Diagnostics → text for people: the source line with a caret, `file:line:col`, code and help.
//! Rendering is kept out of the checker, which only builds `Diagnostic` data.

use crate::check::SourceFile;
use crate::diag::{Diagnostic, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};
use std::fmt;

struct Shown<'a> {
    d: &'a Diagnostic,
    src: NamedSource<String>,
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
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.d.help.as_ref().map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let s = self.d.span;
        let span = SourceSpan::new(s.start.into(), s.end.saturating_sub(s.start));
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
    match sources.get(d.span.file) {
        Some(s) => {
            let upto = &s.text[..d.span.start.min(s.text.len())];
            let line = upto.matches('\n').count() + 1;
            let col = upto.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
            format!("{}:{line}:{col}", s.path)
        }
        None => "<unknown>".to_string(),
    }
}

/// Render diagnostics as plain text (no colour, fixed width) in the order given.
pub fn render(diags: &[Diagnostic], sources: &[SourceFile]) -> String {
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .with_links(false);
    let mut out = String::new();
    for d in diags {
        let (path, text) = match sources.get(d.span.file) {
            Some(s) => (s.path.clone(), s.text.clone()),
            None => ("<unknown>".to_string(), String::new()),
        };
        let kind = if d.is_error() { "error" } else { "warning" };
        out.push_str(&format!("{kind}[{}]: {} at {}\n", d.code, d.message, location(d, sources)));
        let shown = Shown {
            d,
            src: NamedSource::new(path, text),
        };
        let mut buf = String::new();
        if handler.render_report(&mut buf, &shown).is_err() {
            buf = format!("  {}\n", d.message);
        }
        out.push_str(&buf);
        out.push('\n');
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    if errors + warnings > 0 {
        out.push_str(&format!(
            "{errors} error{}, {warnings} warning{}\n",
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" }
        ));
    }
    out
}
