//! text → AST: runs the pest grammar (`grammar/rules.pest`) and lowers its pairs into `ast` nodes with spans.
//!
//! This module is the entry point (`parse_file`), the limits and the lowering's shared state
//! (`Lower`). The parts are named by what they convert: `precheck` (the raw text before pest
//! runs: control characters, bracket nesting) and `syntax_error` (pest errors into diagnostics)
//! are plain functions; `items` (declarations), `tables` (table declarations and rows),
//! `literals` (cells, decimals, range patterns), `stmts` (statements), `exprs` (expressions) and
//! `dice` (dice expressions and opposed rolls) each add an `impl Lower` block.

mod dice;
mod exprs;
mod items;
mod literals;
mod precheck;
mod stmts;
mod syntax_error;
mod tables;

use crate::ast::*;
use crate::diag::Diagnostic;
use pest::iterators::Pair;
use pest::Parser;
use precheck::{control_char, too_deep};
use syntax_error::syntax_error;

pub use literals::parse_decimal;

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/rules.pest"]
struct RulesParser;

/// The grammar's parse of a file that `parse_file` accepted (it refuses what is too large or too
/// deep first): the lossless tree (`syntax`) is built from it.
pub(crate) fn pairs(src: &str) -> Option<pest::iterators::Pair<'_, Rule>> {
    RulesParser::parse(Rule::file, src).ok().and_then(|mut p| p.next())
}

/// Largest rules file accepted, in bytes.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// Deepest bracket nesting accepted. pest recurses on the machine stack, so hostile nesting must be
/// refused before parsing rather than overflow the stack.
pub const MAX_NESTING: usize = 48;
/// Deepest expression tree accepted, counting the blocks (`if`, `match`, ...) around it:
/// operators in a row (`a + a + ...`, `- - - a`, `not not x`) nest as deeply as brackets do, and
/// every later stage (check, codegen with syn and prettyplease, the interpreter, even dropping
/// the tree) walks it recursively. With this bound the whole pipeline, unoptimised, stays inside
/// the 2 MiB stack of a spawned thread (`compiler/tests/robustness.rs` runs it at the limit).
pub const MAX_EXPR_DEPTH: usize = 64;
/// Most `list` keywords in one type (`list list int`).
pub const MAX_LIST_DEPTH: usize = 8;

pub fn parse_file(file: usize, src: &str) -> Result<File, Vec<Diagnostic>> {
    if src.len() > MAX_FILE_BYTES {
        let span = Span { file, start: 0, end: 0 };
        return Err(vec![Diagnostic::error(
            "E0002",
            span,
            format!("rules file is {} bytes, more than the limit of {MAX_FILE_BYTES}", src.len()),
        )
        .label("file starts here")
        .help("split the rules into several files in the same system folder")]);
    }
    if let Some((at, c)) = control_char(src) {
        let span = Span {
            file,
            start: at,
            end: at + c.len_utf8(),
        };
        let what = match c {
            '\r' => "a carriage return that does not end a line".to_string(),
            '\0' => "a NUL byte".to_string(),
            c => format!("control character U+{:04X}", u32::from(c)),
        };
        return Err(vec![Diagnostic::error("E0004", span, format!("the file holds {what}"))
            .label("control character")
            .help("delete it: rules text is printable characters, tabs and line ends (a control character would end up in traces and generated code)")]);
    }
    if let Some(at) = too_deep(src) {
        let span = Span {
            file,
            start: at,
            end: at + 1,
        };
        return Err(vec![Diagnostic::error(
            "E0002",
            span,
            format!("brackets nested more than {MAX_NESTING} deep"),
        )
        .label("too deep here")
        .help("name an intermediate value with `let` instead of nesting further")]);
    }
    let mut pairs = RulesParser::parse(Rule::file, src).map_err(|e| vec![syntax_error(file, src, e)])?;
    let mut lower = Lower {
        file,
        diags: Vec::new(),
        depth: 0,
    };
    let mut items = Vec::new();
    if let Some(top) = pairs.next() {
        for p in top.into_inner().filter(not_kw) {
            if p.as_rule() == Rule::EOI {
                continue;
            }
            if let Some(item) = lower.item(p) {
                items.push(item);
            }
        }
    }
    if lower.diags.is_empty() {
        Ok(File { items })
    } else {
        Err(lower.diags)
    }
}

/// The rules language's keywords: the `keyword` rule of `grammar/rules.pest`, which no name may be.
pub const KEYWORDS: &[&str] = &[
    "and", "or", "not", "if", "then", "else", "when", "in", "is", "true", "false", "yes", "no", "let", "var", "roll", "check", "set",
    "match", "call", "require", "note", "return", "break", "repeat", "for", "option", "resolver", "table", "enum", "type", "const", "out",
    "with", "record",
];

struct Lower {
    file: usize,
    diags: Vec<Diagnostic>,
    /// Depth in the expression tree of the expression being lowered (0 for a whole expression).
    depth: usize,
}

/// Keyword tokens carry no information once parsed.
fn not_kw(p: &Pair<Rule>) -> bool {
    !format!("{:?}", p.as_rule()).starts_with("kw_")
}

fn unquote(p: &Pair<Rule>) -> String {
    let s = p.as_str();
    let inner = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s);
    inner.replace("\\\"", "\"").replace("\\\\", "\\")
}

impl Lower {
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span {
            file: self.file,
            start: s.start(),
            end: s.end(),
        }
    }
    fn ident(&self, p: Pair<Rule>) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.span(&p),
        }
    }
    fn cite(&self, p: Pair<Rule>) -> Cite {
        let span = self.span(&p);
        let text = p
            .into_inner()
            .find(not_kw)
            .map(|t| t.as_str().trim().to_string())
            .unwrap_or_default();
        Cite { text, span }
    }
    fn int(&mut self, p: &Pair<Rule>) -> i64 {
        let text: String = p.as_str().chars().filter(|c| !c.is_whitespace()).collect();
        match text.trim_start_matches('+').parse::<i64>() {
            Ok(v) => v,
            Err(_) => {
                self.diags
                    .push(Diagnostic::error("E0401", self.span(p), format!("number `{text}` does not fit in 64 bits")).label("too large"));
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errs(src: &str) -> Vec<String> {
        match parse_file(0, src) {
            Ok(_) => Vec::new(),
            Err(d) => d
                .into_iter()
                .map(|d| format!("{} {}..{} {:?}", d.message, d.span.start, d.span.end, d.help))
                .collect(),
        }
    }

    #[test]
    fn small_pieces_parse() {
        for src in [
            "system x \"t\"",
            "system x \"t\" cite \"X\"",
            "option a \"A\" [1.2]",
            "enum e { a, b }",
            "enum e \"E\" [1] { a \"doc\", b }",
            "table t \"T\" [1] {\n key name\n columns a: int\n \"x\" | 1\n}",
            "resolver r \"R\" [1] { in a: int 0..2 = 2 \"doc\" [1] }",
            "resolver r \"R\" [1] { in a: list g = [] \"doc\" }",
            "resolver r \"R\" [1] { in a: int -12..12 = 2 \"doc\" [6.1] }",
            "resolver r \"R\" [1] { in a: list of int = [] }",
            "resolver r \"R\" [1] { roll d = 1d6 reroll (n + 1)..6 \"x\" [1] }",
            "resolver r \"R\" [1] { roll d = 2d6 reroll ..(n) }",
            "table m \"M\" [1] matrix a: e x d: int 0..2 -> int {\n | 0 | 1 | 2\n x | 1 | 2 | 3\n}",
            "table t \"T\" [1] {\n key unit: unit_type\n columns a: int\n infantry | 1\n}",
        ] {
            assert_eq!(errs(src), Vec::<String>::new(), "{src}");
        }
    }

    #[test]
    fn the_keyword_list_is_the_grammars() {
        let grammar = include_str!("../../../grammar/rules.pest");
        let rule = grammar
            .split("keyword = @{")
            .nth(1)
            .and_then(|r| r.split("~ !ident_char").next())
            .unwrap_or("");
        let mut from_grammar: Vec<&str> = rule.split('"').skip(1).step_by(2).collect();
        let mut ours = KEYWORDS.to_vec();
        from_grammar.sort();
        ours.sort();
        assert_eq!(from_grammar, ours);
    }

    #[test]
    fn a_keyword_used_as_a_name_is_a_reserved_word() {
        for (src, word) in [
            ("resolver r \"R\" [1] {\n  let roll = 2\n}", "roll"),
            ("resolver r \"R\" [1] {\n  in check: int\n}", "check"),
            ("enum e { a, set }", "set"),
        ] {
            let Err(d) = parse_file(0, src) else { panic!("{src} parsed") };
            assert_eq!(d[0].code, "E0102", "{src}");
            assert_eq!(
                d[0].message,
                format!("`{word}` is a reserved word of the rules language and cannot be a name")
            );
            assert_eq!(&src[d[0].span.start..d[0].span.end], word);
        }
        // An expression that needs a name but meets a keyword.
        let Err(d) = parse_file(0, "resolver r \"R\" [1] {\n  out x: int\n  set x = roll + 1\n}") else {
            panic!("parsed")
        };
        assert_eq!(d[0].code, "E0102", "{:?}", d[0]);
        // A statement after an unfinished one is a plain syntax error.
        let Err(d) = parse_file(0, "resolver r \"R\" [1] {\n  out x: int\n  set x =\n  roll r = 1d6\n}") else {
            panic!("parsed")
        };
        assert_eq!(d[0].code, "E0001", "{:?}", d[0]);
    }
}
