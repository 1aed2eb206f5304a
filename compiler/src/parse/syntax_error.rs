//! pest's syntax errors into E0001 diagnostics: what was expected in words, the whole offending
//! token, a string left open, and E0102 for a keyword where a name belongs.

use super::{Rule, KEYWORDS};
use crate::ast::Span;
use crate::diag::Diagnostic;

fn describe(rule: &Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::ident => "a name",
        Rule::string => "a quoted string",
        Rule::cite => "a citation like `[6.3]`",
        Rule::int | Rule::nat | Rule::signed_int => "a whole number",
        Rule::signed_num => "a number",
        Rule::expr | Rule::or_expr | Rule::coalesce | Rule::sum => "an expression",
        Rule::type_expr => "a type",
        Rule::cell => "a table cell",
        Rule::row => "a table row",
        Rule::dice => "dice like `2d6`",
        Rule::cmp_op => "a comparison (`<=`, `==`, ...)",
        Rule::block => "`{`",
        Rule::item
        | Rule::system_decl
        | Rule::table_decl
        | Rule::resolver_decl
        | Rule::enum_decl
        | Rule::option_decl
        | Rule::type_decl
        | Rule::const_decl => "a declaration (`system`, `option`, `enum`, `type`, `const`, `table` or `resolver`)",
        Rule::input_decl | Rule::output_decl => "`in` or `out`",
        Rule::let_stmt | Rule::roll_stmt | Rule::set_stmt | Rule::if_stmt | Rule::check_stmt | Rule::match_stmt | Rule::call_stmt => {
            "a statement (`let`, `roll`, `check`, `set`, `if`, `match`, `call`, ...)"
        }
        Rule::modifier => "a modifier like `-3 \"counter-fire\" when ... [5.4]`",
        Rule::arm => "a match arm like `1..2 => { ... }`",
        Rule::pattern => "a pattern",
        Rule::EOI => "end of file",
        Rule::add_op | Rule::mul_op => "an operator",
        _ => return None,
    })
}

/// Byte offset of the opening quote of the first string that does not close on its own line (a
/// string cannot span lines), skipping comments.
fn unterminated_string(src: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let open = i;
                i += 1;
                loop {
                    match bytes.get(i) {
                        None | Some(b'\n') => return Some(open),
                        Some(b'"') => break,
                        Some(b'\\') => i += 2,
                        Some(_) => i += 1,
                    }
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

pub(super) fn syntax_error(file: usize, src: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
    let (start, end) = match e.location {
        InputLocation::Pos(p) => (p, p),
        InputLocation::Span((a, b)) => (a, b),
    };
    // A string left open is the mistake, wherever pest gave up after it: point at its quote.
    if let Some(open) = unterminated_string(src).filter(|&open| open <= start) {
        return Diagnostic::error(
            "E0001",
            Span {
                file,
                start: open,
                end: open + 1,
            },
            "unterminated string",
        )
        .label("unterminated string starting here")
        .help("close it with `\"` where the text ends, on the same line: a string cannot span lines");
    }
    // Point at the whole offending token, not a zero-width position.
    let end = if end > start {
        end
    } else {
        // At most 40 characters of it (whole characters: a span never ends inside one), and at
        // least the character there.
        let start = start.min(src.len());
        let rest = &src[start..];
        let token: usize = rest.chars().take_while(|c| !c.is_whitespace()).take(40).map(char::len_utf8).sum();
        start + token.max(rest.chars().next().map_or(0, char::len_utf8))
    };
    let found = src.get(start..end).unwrap_or("").trim();
    // A keyword where a name belongs (`let roll = ...`, `set x = roll + 1`): say that the word is
    // reserved. Where an expression was expected, a keyword that starts a line more likely begins
    // the next statement after an unfinished one, and gets the plain syntax error.
    if let ErrorVariant::ParsingError { positives, .. } = &e.variant {
        let line_start = src[..start.min(src.len())].rsplit('\n').next().is_some_and(|l| l.trim().is_empty());
        let name_wanted = positives.contains(&Rule::ident)
            || (!line_start
                && positives
                    .iter()
                    .any(|r| matches!(r, Rule::expr | Rule::or_expr | Rule::coalesce | Rule::sum)));
        if let Some(word) = reserved_at(src, start).filter(|_| name_wanted) {
            let end = start + word.len();
            return Diagnostic::error(
                "E0102",
                Span { file, start, end },
                format!("`{word}` is a reserved word of the rules language and cannot be a name"),
            )
            .label("reserved word")
            .help(crate::diag::reserved_word_help(word));
        }
    }
    if let Some(d) = missing_cite(file, src, start, &e.variant) {
        return d;
    }
    let (message, help) = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut wanted: Vec<&str> = positives.iter().filter_map(describe).collect();
            wanted.sort();
            wanted.dedup();
            let found_text = if found.is_empty() {
                "end of input".to_string()
            } else {
                format!("`{found}`")
            };
            let msg = format!("unexpected {found_text}");
            let help = if wanted.is_empty() {
                "check the line against the examples in docs/dsl.md".to_string()
            } else {
                format!("expected {}", join_or(&wanted))
            };
            (msg, help)
        }
        ErrorVariant::CustomError { message } => (message.clone(), "check the line against docs/dsl.md".to_string()),
    };
    let help = if found == "=" && help.contains("a comparison") {
        "did you mean `==`? A comparison is written `==`; a single `=` gives a name its value (`let`, `set`)".to_string()
    } else if found.starts_with('-') || found.starts_with('+') {
        format!("{help}; a modifier needs its citation, e.g. `-3 \"counter-fire\" when action == counter_fire [5.4]`, or the line before it is unfinished")
    } else {
        help
    };
    Diagnostic::error("E0001", Span { file, start, end }, message)
        .label("here")
        .help(help)
}

/// A line that ends without the citation it needs, followed by a line that starts with `+` or
/// `-` (the next modifier): the parser reads the sign as arithmetic continuing the line before,
/// and fails later, on the next line. The mistake is at the end of the line before: point there.
fn missing_cite(file: usize, src: &str, at: usize, variant: &pest::error::ErrorVariant<Rule>) -> Option<Diagnostic> {
    let pest::error::ErrorVariant::ParsingError { positives, .. } = variant else {
        return None;
    };
    if !positives.contains(&Rule::cite) {
        return None;
    }
    let before = src.get(..at)?;
    let line_start = before.rfind('\n')? + 1;
    let here = before[line_start..].trim_start();
    // The next modifier, or the `}` that closes the modifiers, where the citation was still due.
    let closes = here.is_empty() && src.get(at..).is_some_and(|rest| rest.starts_with('}'));
    if !(here.starts_with('+') || here.starts_with('-') || closes) {
        return None;
    }
    // The line before, without its comment: it must look finished (no operator left hanging).
    let previous = &before[..line_start - 1];
    let prev_start = previous.rfind('\n').map_or(0, |i| i + 1);
    let code = previous[prev_start..].split("//").next().unwrap_or("");
    let trimmed = code.trim_end();
    if trimmed.trim().is_empty() || trimmed.ends_with(['+', '-', '*', '/', '(', ',', '=', '<', '>', '{', ']']) {
        return None;
    }
    let end = prev_start + trimmed.len();
    Some(
        Diagnostic::error("E0001", Span { file, start: end, end }, "this line ends without its citation")
            .label("a citation like `[6.3]` goes here")
            .help("end the line with the rule it comes from, e.g. `+1 \"close\" when close [6.3]`; without it, a `+` or `-` that starts the next line is read as arithmetic continuing this one"),
    )
}

/// The keyword that starts at byte `at` of `src`, if the word there is one.
fn reserved_at(src: &str, at: usize) -> Option<&str> {
    let rest = src.get(at..)?;
    let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let word = &rest[..len];
    KEYWORDS.contains(&word).then_some(word)
}

fn join_or(items: &[&str]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].to_string(),
        n => format!("{} or {}", items[..n - 1].join(", "), items[n - 1]),
    }
}
