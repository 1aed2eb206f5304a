//! text → AST: runs the pest grammar (`grammar/rules.pest`) and lowers its pairs into `ast` nodes with spans.

use crate::ast::*;
use crate::diag::Diagnostic;
use pest::iterators::Pair;
use pest::Parser;

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/rules.pest"]
struct RulesParser;

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

/// The first control character in the text, with its byte offset: anything but a tab, a newline,
/// or a carriage return just before a newline (a Windows line end).
fn control_char(src: &str) -> Option<(usize, char)> {
    let mut chars = src.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let allowed = match c {
            '\t' | '\n' => true,
            '\r' => chars.peek().is_some_and(|&(_, n)| n == '\n'),
            c => !c.is_control(),
        };
        if !allowed {
            return Some((i, c));
        }
    }
    None
}

/// Byte offset of the first bracket that opens past the nesting limit, skipping strings and comments.
fn too_deep(src: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

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

fn syntax_error(file: usize, src: &str, e: pest::error::Error<Rule>) -> Diagnostic {
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
    let help = if found.starts_with('-') || found.starts_with('+') {
        format!("{help}; a modifier needs its citation, e.g. `-3 \"counter-fire\" when action == counter_fire [5.4]`, or the line before it is unfinished")
    } else {
        help
    };
    Diagnostic::error("E0001", Span { file, start, end }, message)
        .label("here")
        .help(help)
}

/// The rules language's keywords: the `keyword` rule of `grammar/rules.pest`, which no name may be.
pub const KEYWORDS: &[&str] = &[
    "and", "or", "not", "if", "then", "else", "when", "in", "is", "true", "false", "yes", "no", "let", "var", "roll", "check", "set",
    "match", "call", "require", "note", "return", "break", "repeat", "for", "option", "resolver", "table", "enum", "type", "const", "out",
    "with", "record",
];

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

    fn item(&mut self, p: Pair<Rule>) -> Option<Item> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::system_decl => {
                let mut it = p.into_inner().filter(not_kw);
                let name = self.ident(it.next()?);
                let title = unquote(&it.next()?);
                let cite_prefix = it.next().map(|c| unquote(&c));
                Some(Item::System {
                    name,
                    title,
                    cite_prefix,
                    span,
                })
            }
            Rule::option_decl => {
                let mut it = p.into_inner().filter(not_kw);
                let name = self.ident(it.next()?);
                let title = unquote(&it.next()?);
                let cite = self.cite(it.next()?);
                Some(Item::Option { name, title, cite })
            }
            Rule::enum_decl => {
                let mut name = None;
                let mut title = None;
                let mut cite = None;
                let mut variants = Vec::new();
                for c in p.into_inner().filter(not_kw) {
                    match c.as_rule() {
                        Rule::ident => name = Some(self.ident(c)),
                        Rule::string => title = Some(unquote(&c)),
                        Rule::cite => cite = Some(self.cite(c)),
                        Rule::variant => {
                            let mut vi = c.into_inner().filter(not_kw);
                            let id = self.ident(vi.next()?);
                            let doc = vi.next().map(|d| unquote(&d));
                            variants.push((id, doc));
                        }
                        _ => {}
                    }
                }
                Some(Item::Enum(EnumDecl {
                    name: name?,
                    title,
                    cite,
                    variants,
                }))
            }
            Rule::type_decl => {
                let mut it = p.into_inner().filter(not_kw);
                let name = self.ident(it.next()?);
                let ty = self.type_expr(it.next()?);
                let doc = it.next().map(|d| unquote(&d));
                Some(Item::Type { name, ty, doc })
            }
            Rule::const_decl => {
                let mut it = p.into_inner().filter(not_kw);
                let name = self.ident(it.next()?);
                let value = self.cell(it.next()?);
                let mut doc = None;
                let mut cite = None;
                for c in it {
                    match c.as_rule() {
                        Rule::string => doc = Some(unquote(&c)),
                        Rule::cite => cite = Some(self.cite(c)),
                        _ => {}
                    }
                }
                Some(Item::Const {
                    name,
                    value,
                    doc,
                    cite: cite?,
                })
            }
            Rule::record_decl => {
                let mut name = None;
                let mut title = None;
                let mut cite = None;
                let mut fields = Vec::new();
                for c in p.into_inner().filter(not_kw) {
                    match c.as_rule() {
                        Rule::ident => name = Some(self.ident(c)),
                        Rule::string => title = Some(unquote(&c)),
                        Rule::cite => cite = Some(self.cite(c)),
                        Rule::field => {
                            let mut ci = c.into_inner().filter(not_kw);
                            let n = self.ident(ci.next()?);
                            let t = self.type_expr(ci.next()?);
                            fields.push((n, t));
                        }
                        _ => {}
                    }
                }
                Some(Item::Record {
                    name: name?,
                    title,
                    cite,
                    fields,
                })
            }
            Rule::table_decl => self.table(p).map(Item::Table),
            Rule::resolver_decl => self.resolver(p).map(Item::Resolver),
            _ => None,
        }
    }

    fn type_expr(&mut self, p: Pair<Rule>) -> TypeExpr {
        let span = self.span(&p);
        let mut list_depth = 0;
        let mut atoms = Vec::new();
        let mut optional = false;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::list_kw => list_depth += 1,
                Rule::opt_mark => optional = true,
                Rule::type_atom => atoms.push(self.type_atom(c)),
                Rule::col_atom => {
                    if let Some(n) = c.into_inner().find(not_kw) {
                        atoms.push(TypeAtom {
                            name: self.ident(n),
                            bounds: None,
                        });
                    }
                }
                _ => {}
            }
        }
        if list_depth > MAX_LIST_DEPTH {
            self.diags.push(
                Diagnostic::error(
                    "E0002",
                    span,
                    format!("`list` nested {list_depth} deep, more than the limit of {MAX_LIST_DEPTH}"),
                )
                .label("too deep")
                .help("a list of lists of lists is as deep as a type goes in practice; use a record or a table"),
            );
            list_depth = 0;
        }
        TypeExpr {
            list_depth,
            atoms,
            optional,
            span,
        }
    }

    fn type_atom(&mut self, p: Pair<Rule>) -> TypeAtom {
        let mut it = p.into_inner().filter(not_kw);
        let name = it.next().map(|n| self.ident(n)).unwrap_or(Ident {
            name: String::new(),
            span: Span::default(),
        });
        let bounds = it.next().map(|b| {
            let mut bi = b.into_inner().filter(not_kw);
            let lo = bi.next().map(|x| self.int(&x)).unwrap_or(0);
            let hi = bi.next().map(|x| self.int(&x)).unwrap_or(0);
            (lo, hi)
        });
        TypeAtom { name, bounds }
    }

    /// A decimal `match` pattern: both ends exact; a range whose ends are both whole numbers is an
    /// ordinary range.
    fn dec_range_pat(&mut self, p: Pair<Rule>) -> Pattern {
        let text: String = p.as_str().chars().filter(|c| !c.is_whitespace()).collect();
        let num = |this: &mut Self, s: &str, at: &Pair<Rule>| match parse_decimal(s) {
            Some(v) => Some(v),
            None => {
                this.diags.push(
                    Diagnostic::error("E0401", this.span(at), format!("number `{s}` does not fit"))
                        .label("too long")
                        .help("a decimal has at most 12 digits after the point and fits in 64 bits"),
                );
                None
            }
        };
        match text.split_once("..") {
            Some((lo, hi)) => {
                let lo = if lo.is_empty() { None } else { num(self, lo, &p) };
                let hi = if hi.is_empty() { None } else { num(self, hi, &p) };
                // Whole-number ends (or open ones) make an ordinary range: `..3`, `2..`, `1..4`.
                let whole = |e: Option<(i64, i64)>| e.is_none_or(|(_, d)| d == 1);
                if whole(lo) && whole(hi) {
                    Pattern::Range(lo.map(|(n, _)| n), hi.map(|(n, _)| n))
                } else {
                    Pattern::DecRange(lo, hi)
                }
            }
            None => {
                let v = num(self, &text, &p);
                Pattern::DecRange(v, v)
            }
        }
    }

    fn range_pat(&mut self, p: Pair<Rule>) -> (Option<i64>, Option<i64>) {
        let text = p.as_str();
        let mut lo = None;
        let mut hi = None;
        let mut single = None;
        for c in p.clone().into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::range_lo => lo = c.into_inner().find(not_kw).map(|x| self.int(&x)),
                Rule::range_hi => hi = c.into_inner().find(not_kw).map(|x| self.int(&x)),
                Rule::signed_int => single = Some(self.int(&c)),
                _ => {}
            }
        }
        if text.contains("..") {
            (lo, hi)
        } else {
            (single, single)
        }
    }

    fn cell(&mut self, p: Pair<Rule>) -> Cell {
        let span = self.span(&p);
        let inner = match p.into_inner().find(not_kw) {
            Some(i) => i,
            None => {
                return Cell {
                    kind: CellKind::None,
                    span,
                }
            }
        };
        let kind = match inner.as_rule() {
            Rule::list_cell => CellKind::List(inner.into_inner().filter(not_kw).map(|c| self.cell(c)).collect()),
            Rule::signed_num => {
                let text: String = inner.as_str().chars().filter(|c| !c.is_whitespace()).collect();
                if text.contains('.') {
                    match parse_decimal(&text) {
                        Some((n, d)) => CellKind::Dec(n, d),
                        None => {
                            self.diags
                                .push(Diagnostic::error("E0401", span, format!("decimal `{text}` has too many digits")).label("here"));
                            CellKind::Int(0)
                        }
                    }
                } else {
                    CellKind::Int(self.int(&inner))
                }
            }
            Rule::bool_lit => CellKind::Bool(matches!(inner.as_str(), "true" | "yes")),
            Rule::string => CellKind::Str(unquote(&inner)),
            Rule::none_cell => CellKind::None,
            Rule::ident => CellKind::Ident(inner.as_str().to_string()),
            _ => CellKind::None,
        };
        Cell { kind, span }
    }

    fn table(&mut self, p: Pair<Rule>) -> Option<TableDecl> {
        let span = self.span(&p);
        let mut it = p.into_inner().filter(not_kw).peekable();
        let name = self.ident(it.next()?);
        let mut title = None;
        let mut cite = None;
        let mut kind = TableKind::Keyed;
        let mut key = None;
        let mut key_ty = None;
        let mut columns = Vec::new();
        let mut aliases = Vec::new();
        let mut header = None;
        let mut rows = Vec::new();
        for c in it {
            match c.as_rule() {
                Rule::string => title = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                Rule::by_clause => {
                    let mut bi = c.into_inner().filter(not_kw);
                    let idx = bi.next()?;
                    let index = if idx.as_rule() == Rule::dice {
                        ByIndex::Dice(self.dice(idx))
                    } else {
                        ByIndex::Type(self.type_atom(idx))
                    };
                    let result = bi.next().map(|t| self.type_expr(t));
                    kind = TableKind::By { index, result };
                }
                Rule::matrix_clause => {
                    let mut mi = c.into_inner().filter(not_kw);
                    let row_name = self.ident(mi.next()?);
                    let row_ty = self.type_atom(mi.next()?);
                    let col_name = self.ident(mi.next()?);
                    let col_ty = self.type_atom(mi.next()?);
                    let result = self.type_expr(mi.next()?);
                    kind = TableKind::Matrix {
                        row_name,
                        row_ty,
                        col_name,
                        col_ty,
                        result,
                    };
                }
                Rule::key_line => {
                    let mut ki = c.into_inner().filter(not_kw);
                    key = ki.next().map(|k| self.ident(k));
                    key_ty = ki.next().map(|k| self.ident(k));
                }
                Rule::columns_line => {
                    for col in c.into_inner().filter(not_kw) {
                        let mut ci = col.into_inner().filter(not_kw);
                        let n = self.ident(ci.next()?);
                        let t = self.type_expr(ci.next()?);
                        columns.push((n, t));
                    }
                }
                Rule::alias_line => {
                    let aspan = self.span(&c);
                    let mut names: Vec<(String, Span)> = c.into_inner().filter(not_kw).map(|s| (unquote(&s), self.span(&s))).collect();
                    if let Some((target, _)) = names.pop() {
                        aliases.push((names, target, aspan));
                    }
                }
                // A numeric label (an int axis) is kept as its text.
                Rule::matrix_header => header = Some(c.into_inner().filter(not_kw).map(|i| self.ident(i)).collect()),
                Rule::row => rows.push(self.row(c)?),
                _ => {}
            }
        }
        Some(TableDecl {
            name,
            title,
            cite: cite?,
            kind,
            key,
            key_ty,
            columns,
            aliases,
            header,
            rows,
            span,
        })
    }

    fn row(&mut self, p: Pair<Rule>) -> Option<Row> {
        let span = self.span(&p);
        let arrow = p.as_str().contains("=>") && {
            // `=>` only counts when it follows the head directly (a string cell may contain it).
            let mut it = p.clone().into_inner().filter(not_kw);
            let head_end = it.next().map(|h| h.as_span().end()).unwrap_or(0);
            p.as_str()[head_end - p.as_span().start()..].trim_start().starts_with("=>")
        };
        let mut it = p.into_inner().filter(not_kw);
        let head_pair = it.next()?;
        let head_span = self.span(&head_pair);
        let h = head_pair.into_inner().find(not_kw)?;
        let head = match h.as_rule() {
            Rule::string => RowHead::Key(unquote(&h)),
            Rule::range_pat => {
                let (lo, hi) = self.range_pat(h);
                RowHead::Range(lo, hi)
            }
            Rule::dec_range_pat => match self.dec_range_pat(h) {
                Pattern::Range(lo, hi) => RowHead::Range(lo, hi),
                Pattern::DecRange(lo, hi) => RowHead::DecRange(lo, hi),
                _ => return None,
            },
            _ => RowHead::Label(h.as_str().to_string()),
        };
        let cells = it.map(|c| self.cell(c)).collect();
        Some(Row {
            head,
            head_span,
            arrow,
            cells,
            span,
        })
    }

    fn resolver(&mut self, p: Pair<Rule>) -> Option<ResolverDecl> {
        let span = self.span(&p);
        let policy = p.clone().into_inner().any(|c| c.as_rule() == Rule::policy_kw);
        let mut it = p.into_inner().filter(not_kw).filter(|c| c.as_rule() != Rule::policy_kw);
        let name = self.ident(it.next()?);
        let mut title = None;
        let mut cite = None;
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let mut body = Vec::new();
        for c in it {
            match c.as_rule() {
                Rule::string => title = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                Rule::input_decl => inputs.push(self.param(c)?),
                Rule::output_decl => outputs.push(self.param(c)?),
                _ => {
                    if let Some(s) = self.stmt(c) {
                        body.push(s)
                    }
                }
            }
        }
        Some(ResolverDecl {
            policy,
            name,
            title,
            cite: cite?,
            inputs,
            outputs,
            body,
            span,
        })
    }

    fn param(&mut self, p: Pair<Rule>) -> Option<Param> {
        let mut it = p.into_inner().filter(not_kw);
        let name = self.ident(it.next()?);
        let ty = self.type_expr(it.next()?);
        let mut default = None;
        let mut doc = None;
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::cell => default = Some(self.cell(c)),
                Rule::string => doc = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                _ => {}
            }
        }
        Some(Param {
            name,
            ty,
            default,
            doc,
            cite,
        })
    }

    /// A block's statements; the block counts as one level of `MAX_EXPR_DEPTH` for everything
    /// in it, since the backends nest its code as deeply as an operator's.
    fn block(&mut self, p: Pair<Rule>) -> Vec<Stmt> {
        self.depth += 1;
        let stmts = p.into_inner().filter(not_kw).filter_map(|s| self.stmt(s)).collect();
        self.depth -= 1;
        stmts
    }

    fn stmt(&mut self, p: Pair<Rule>) -> Option<Stmt> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = p.into_inner().filter(not_kw);
        let kind = match rule {
            Rule::let_stmt => {
                let name = self.ident(it.next()?);
                let value = self.expr(it.next()?);
                let mut cite = None;
                let mut mods = Vec::new();
                let mut clamp = None;
                for c in it {
                    match c.as_rule() {
                        Rule::cite => cite = Some(self.cite(c)),
                        Rule::mod_block => {
                            for m in c.into_inner().filter(not_kw) {
                                if m.as_rule() == Rule::highest_group {
                                    let gspan = self.span(&m);
                                    let mut gi = m.into_inner().filter(not_kw);
                                    let gname = gi.next().map(|s| unquote(&s)).unwrap_or_default();
                                    let ms = gi.filter_map(|x| self.modifier(x)).collect();
                                    mods.push(ModItem::Highest {
                                        name: gname,
                                        mods: ms,
                                        span: gspan,
                                    });
                                } else if let Some(one) = self.modifier(m) {
                                    mods.push(ModItem::One(one));
                                }
                            }
                        }
                        Rule::clamp => {
                            let cspan = self.span(&c);
                            if let Some(r) = c.into_inner().find(not_kw) {
                                let (lo, hi) = self.range_pat(r);
                                clamp = Some((lo, hi, cspan));
                            }
                        }
                        _ => {}
                    }
                }
                StmtKind::Let {
                    name,
                    value,
                    cite,
                    mods,
                    clamp,
                }
            }
            Rule::var_stmt => {
                let name = self.ident(it.next()?);
                let mut ty = None;
                let mut value = None;
                let mut cite = None;
                for c in it {
                    match c.as_rule() {
                        Rule::type_expr => ty = Some(self.type_expr(c)),
                        Rule::cite => cite = Some(self.cite(c)),
                        _ => value = Some(self.expr(c)),
                    }
                }
                StmtKind::Var {
                    name,
                    ty,
                    value: value?,
                    cite,
                }
            }
            Rule::assign_stmt => StmtKind::Assign {
                name: self.ident(it.next()?),
                value: self.expr(it.next()?),
                cite: it.next().map(|c| self.cite(c)),
            },
            Rule::roll_stmt => {
                let name = self.ident(it.next()?);
                let thrown = it.next()?;
                let (dice, opposed) = if thrown.as_rule() == Rule::opposed {
                    let (dice, opposed) = self.opposed(thrown)?;
                    (dice, Some(Box::new(opposed)))
                } else {
                    (self.dice(thrown), None)
                };
                let mut label = None;
                let mut cite = None;
                for c in it {
                    match c.as_rule() {
                        Rule::string => label = Some(unquote(&c)),
                        Rule::cite => cite = Some(self.cite(c)),
                        _ => {}
                    }
                }
                StmtKind::Roll {
                    name,
                    dice,
                    opposed,
                    label,
                    cite,
                }
            }
            Rule::check_stmt => {
                let name = self.ident(it.next()?);
                let left = self.expr(it.next()?);
                let op = cmp_op(it.next()?.as_str());
                let right = self.expr(it.next()?);
                let cite = it.next().map(|c| self.cite(c));
                StmtKind::Check {
                    name,
                    left,
                    op,
                    right,
                    cite,
                }
            }
            Rule::set_stmt => {
                let name = self.ident(it.next()?);
                let value = self.expr(it.next()?);
                let cite = it.next().map(|c| self.cite(c));
                StmtKind::Set { name, value, cite }
            }
            Rule::if_stmt => {
                let mut arms = Vec::new();
                let mut otherwise = None;
                let parts: Vec<Pair<Rule>> = it.collect();
                let mut i = 0;
                while i < parts.len() {
                    if parts[i].as_rule() == Rule::expr && i + 1 < parts.len() {
                        let cond = self.expr(parts[i].clone());
                        let body = self.block(parts[i + 1].clone());
                        arms.push((cond, body));
                        i += 2;
                    } else {
                        otherwise = Some(self.block(parts[i].clone()));
                        i += 1;
                    }
                }
                StmtKind::If { arms, otherwise }
            }
            Rule::match_stmt => {
                let scrutinee = self.expr(it.next()?);
                let mut arms = Vec::new();
                for arm in it {
                    let mut pats = Vec::new();
                    let mut body = Vec::new();
                    for c in arm.into_inner().filter(not_kw) {
                        match c.as_rule() {
                            Rule::pattern => {
                                let pspan = self.span(&c);
                                let inner = c.into_inner().find(not_kw)?;
                                let pat = match inner.as_rule() {
                                    Rule::wildcard => Pattern::Wild,
                                    Rule::range_pat => {
                                        let (lo, hi) = self.range_pat(inner);
                                        Pattern::Range(lo, hi)
                                    }
                                    Rule::dec_range_pat => self.dec_range_pat(inner),
                                    _ => Pattern::Name(self.ident(inner)),
                                };
                                pats.push((pat, pspan));
                            }
                            Rule::block => body = self.block(c),
                            _ => {}
                        }
                    }
                    arms.push((pats, body));
                }
                StmtKind::Match { scrutinee, arms }
            }
            Rule::call_stmt => {
                let name = self.ident(it.next()?);
                let resolver = self.ident(it.next()?);
                let mut args = Vec::new();
                let mut cite = None;
                for c in it {
                    match c.as_rule() {
                        Rule::arg => {
                            let mut ai = c.into_inner().filter(not_kw);
                            let an = self.ident(ai.next()?);
                            let av = self.expr(ai.next()?);
                            args.push((an, av));
                        }
                        Rule::cite => cite = Some(self.cite(c)),
                        _ => {}
                    }
                }
                StmtKind::Call {
                    name,
                    resolver,
                    args,
                    cite,
                }
            }
            Rule::require_stmt => {
                let cond = self.expr(it.next()?);
                let m = it.next()?;
                let message_span = self.span(&m);
                let message = unquote(&m);
                let cite = self.cite(it.next()?);
                StmtKind::Require {
                    cond,
                    message,
                    message_span,
                    cite,
                }
            }
            Rule::note_stmt => {
                let m = it.next()?;
                let text_span = self.span(&m);
                let text = unquote(&m);
                let cite = it.next().map(|c| self.cite(c));
                StmtKind::Note { text, text_span, cite }
            }
            Rule::return_stmt => StmtKind::Return,
            Rule::break_stmt => StmtKind::Break,
            Rule::repeat_stmt => {
                let n = it.next()?;
                let times = self.int(&n);
                let body = self.block(it.next()?);
                StmtKind::Repeat { times, body }
            }
            Rule::for_stmt => {
                let var = self.ident(it.next()?);
                let list = self.expr(it.next()?);
                let body = self.block(it.next()?);
                StmtKind::For { var, list, body }
            }
            _ => return None,
        };
        Some(Stmt { kind, span })
    }

    fn field_inits(&mut self, p: Pair<Rule>) -> Vec<(Ident, Expr)> {
        let mut out = Vec::new();
        for fi in p.into_inner().filter(not_kw) {
            let mut it = fi.into_inner().filter(not_kw);
            if let (Some(n), Some(v)) = (it.next(), it.next()) {
                let id = self.ident(n);
                out.push((id, self.expr_at(v, 1)));
            }
        }
        out
    }

    fn modifier(&mut self, p: Pair<Rule>) -> Option<Modifier> {
        let span = self.span(&p);
        let mut it = p.into_inner().filter(not_kw);
        let value = self.expr(it.next()?);
        let name = unquote(&it.next()?);
        let mut when = None;
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::expr => when = Some(self.expr(c)),
                Rule::cite => cite = Some(self.cite(c)),
                _ => {}
            }
        }
        Some(Modifier {
            value,
            name,
            when,
            cite: cite?,
            span,
        })
    }

    /// `DICE [± terms] vs DICE [± terms] [reroll ties]`: the first side's dice, and the rest.
    fn opposed(&mut self, p: Pair<Rule>) -> Option<(DiceExpr, Opposed)> {
        let span = self.span(&p);
        let mut sides = Vec::new();
        let mut ties_reroll = false;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::opp_side => {
                    let mut parts = c.into_inner().filter(not_kw);
                    let dice = self.dice(parts.next()?);
                    let terms: Vec<Pair<Rule>> = parts.collect();
                    sides.push((dice, self.side_modifier(terms)));
                }
                Rule::ties_reroll => ties_reroll = true,
                _ => {}
            }
        }
        let (second, second_mod) = sides.pop()?;
        let (first, first_mod) = sides.pop()?;
        Some((
            first,
            Opposed {
                first_mod,
                second,
                second_mod,
                ties_reroll,
                span,
            },
        ))
    }

    /// The `± term ± term ...` after one side's dice, as one sum; `None` when there is none.
    fn side_modifier(&mut self, terms: Vec<Pair<Rule>>) -> Option<Expr> {
        let ops = terms.len() / 2;
        let first_span = terms.first().map(|t| self.span(t))?;
        if self.depth + ops > MAX_EXPR_DEPTH {
            return Some(self.too_deep_expr(first_span, ops));
        }
        let mut acc: Option<Expr> = None;
        let mut negative = false;
        for t in terms {
            if t.as_rule() == Rule::add_op {
                negative = t.as_str() == "-";
                continue;
            }
            let term = self.expr_at(t, ops);
            acc = Some(match acc {
                None if negative => Expr {
                    span: term.span,
                    kind: ExprKind::Neg(Box::new(term)),
                },
                None => term,
                Some(a) => {
                    let span = Span {
                        file: self.file,
                        start: a.span.start,
                        end: term.span.end,
                    };
                    let op = if negative { BinOp::Sub } else { BinOp::Add };
                    Expr {
                        kind: ExprKind::Bin(op, Box::new(a), Box::new(term)),
                        span,
                    }
                }
            });
        }
        acc
    }

    fn dice(&mut self, p: Pair<Rule>) -> DiceExpr {
        let span = self.span(&p);
        let mut count = DiceCount::Lit(1);
        let mut sides = 6;
        let mut mods = Vec::new();
        let mut seen_count = false;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::dice_count => {
                    seen_count = true;
                    if let Some(inner) = c.into_inner().find(not_kw) {
                        count = match inner.as_rule() {
                            Rule::nat => DiceCount::Lit(self.int(&inner)),
                            _ => match inner.into_inner().find(not_kw) {
                                Some(e) => DiceCount::Expr(Box::new(self.expr(e))),
                                None => DiceCount::Lit(1),
                            },
                        };
                    }
                }
                Rule::nat => sides = self.int(&c),
                Rule::dice_mod => {
                    let Some(m) = c.into_inner().find(not_kw) else {
                        continue;
                    };
                    let text = m.as_str().to_string();
                    let inner: Vec<Pair<Rule>> = m.clone().into_inner().filter(not_kw).collect();
                    let dm = match m.as_rule() {
                        Rule::keep_mod | Rule::drop_mod => {
                            let highest = text.contains("highest");
                            let n = inner.iter().find(|x| x.as_rule() == Rule::nat).map(|x| self.int(x)).unwrap_or(1);
                            if m.as_rule() == Rule::keep_mod {
                                DiceMod::Keep { highest, n }
                            } else {
                                DiceMod::Drop { highest, n }
                            }
                        }
                        Rule::flux_mod => DiceMod::Flux,
                        Rule::bad_flux_mod => DiceMod::BadFlux,
                        Rule::zero_mod => DiceMod::ZeroBased,
                        Rule::explode_mod => DiceMod::Explode(inner.iter().find(|x| x.as_rule() == Rule::nat).map(|x| self.int(x))),
                        Rule::each_mod => {
                            let value_pair = inner.iter().find(|x| x.as_rule() == Rule::each_value).cloned();
                            let floor = inner
                                .iter()
                                .find(|x| x.as_rule() == Rule::signed_int)
                                .map(|x| self.int(x))
                                .unwrap_or(0);
                            let value = match value_pair.and_then(|v| v.into_inner().find(not_kw)) {
                                Some(v) if v.as_rule() == Rule::signed_int => {
                                    let vspan = self.span(&v);
                                    Expr {
                                        kind: ExprKind::Int(self.int(&v)),
                                        span: vspan,
                                    }
                                }
                                Some(v) => match v.into_inner().find(not_kw) {
                                    Some(e) => self.expr(e),
                                    None => Expr {
                                        kind: ExprKind::Int(0),
                                        span,
                                    },
                                },
                                None => Expr {
                                    kind: ExprKind::Int(0),
                                    span,
                                },
                            };
                            DiceMod::Each {
                                value: Box::new(value),
                                floor,
                            }
                        }
                        Rule::reroll_mod => match inner.into_iter().find(|x| x.as_rule() == Rule::reroll_range) {
                            Some(r) => {
                                let (lo, hi) = self.reroll_range(r);
                                DiceMod::Reroll(lo, hi)
                            }
                            None => continue,
                        },
                        _ => continue,
                    };
                    mods.push(dm);
                }
                _ => {}
            }
        }
        let _ = seen_count;
        DiceExpr { count, sides, mods, span }
    }

    /// `lo..hi`, `..hi`, `lo..` or one value; each end a number or `(expression)`.
    fn reroll_range(&mut self, p: Pair<Rule>) -> (Option<Box<Expr>>, Option<Box<Expr>>) {
        let mut lo = None;
        let mut hi = None;
        let mut single = None;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::reroll_lo => lo = c.into_inner().find(not_kw).map(|e| self.reroll_end(e)),
                Rule::reroll_hi => hi = c.into_inner().find(not_kw).map(|e| self.reroll_end(e)),
                Rule::reroll_end => single = Some(self.reroll_end(c)),
                _ => {}
            }
        }
        match single {
            Some(v) => (Some(v.clone()), Some(v)),
            None => (lo, hi),
        }
    }

    fn reroll_end(&mut self, p: Pair<Rule>) -> Box<Expr> {
        let span = self.span(&p);
        let kind = match p.into_inner().find(not_kw) {
            Some(v) if v.as_rule() == Rule::signed_int => ExprKind::Int(self.int(&v)),
            Some(v) => match v.into_inner().find(not_kw) {
                Some(e) => return Box::new(self.expr(e)),
                None => ExprKind::Int(0),
            },
            None => ExprKind::Int(0),
        };
        Box::new(Expr { kind, span })
    }

    /// Lowers `p` as a node `extra` levels below the current one, restoring the depth after.
    fn expr_at(&mut self, p: Pair<Rule>, extra: usize) -> Expr {
        let base = self.depth;
        self.depth = base + extra;
        let e = self.expr(p);
        self.depth = base;
        e
    }

    /// E0002 for an expression whose tree would nest deeper than `MAX_EXPR_DEPTH`; its stand-in.
    fn too_deep_expr(&mut self, span: Span, ops: usize) -> Expr {
        let message = if ops > 1 {
            format!(
                "expression nests too deeply: {ops} operators in a row (the limit is {MAX_EXPR_DEPTH} levels, blocks around it included)"
            )
        } else {
            format!("expression nests more than {MAX_EXPR_DEPTH} levels deep, blocks around it included")
        };
        self.diags.push(
            Diagnostic::error("E0002", span, message)
                .label("too deep")
                .help("split it with `let`: name a part of it and use the name"),
        );
        Expr {
            kind: ExprKind::Int(0),
            span,
        }
    }

    fn expr(&mut self, p: Pair<Rule>) -> Expr {
        let p = one_child_layers(p);
        let span = self.span(&p);
        if self.depth > MAX_EXPR_DEPTH {
            return self.too_deep_expr(span, 0);
        }
        let rule = p.as_rule();
        let text = p.as_str().to_string();
        let string_value = if rule == Rule::string { unquote(&p) } else { String::new() };
        let mut inner: Vec<Pair<Rule>> = p.into_inner().filter(not_kw).collect();
        let kind = match rule {
            Rule::expr | Rule::paren | Rule::dice_count_expr => match inner.pop() {
                Some(x) => return self.expr(x),
                None => ExprKind::Int(0),
            },
            Rule::cond_expr => {
                let mut exprs: Vec<Expr> = inner.into_iter().map(|x| self.expr_at(x, 1)).collect();
                let otherwise = exprs.pop().unwrap_or(Expr {
                    kind: ExprKind::Int(0),
                    span,
                });
                let mut arms = Vec::new();
                let mut it = exprs.into_iter();
                while let (Some(c), Some(v)) = (it.next(), it.next()) {
                    arms.push((c, v));
                }
                ExprKind::If(arms, Box::new(otherwise))
            }
            Rule::or_expr | Rule::and_expr | Rule::sum | Rule::product | Rule::coalesce => {
                if inner.len() == 1 {
                    return self.expr(inner.remove(0));
                }
                // A left-leaning tree of `ops` nodes: the first operand sits `ops` levels down,
                // operand i (from 1) `ops + 1 - i`.
                let is_op = |r: Rule| matches!(r, Rule::or_op | Rule::and_op | Rule::add_op | Rule::mul_op);
                let ops = inner.iter().filter(|x| !is_op(x.as_rule())).count().saturating_sub(1);
                if self.depth + ops > MAX_EXPR_DEPTH {
                    return self.too_deep_expr(span, ops);
                }
                let mut operand = 0usize;
                let mut it = inner.into_iter();
                let mut acc = match it.next() {
                    Some(first) => self.expr_at(first, ops),
                    None => {
                        return Expr {
                            kind: ExprKind::Int(0),
                            span,
                        }
                    }
                };
                let default_op = match rule {
                    Rule::coalesce => Some(BinOp::Coalesce),
                    _ => None,
                };
                let mut pending: Option<BinOp> = None;
                for x in it {
                    match x.as_rule() {
                        Rule::or_op => pending = Some(BinOp::Or),
                        Rule::and_op => pending = Some(BinOp::And),
                        Rule::add_op => pending = Some(if x.as_str() == "+" { BinOp::Add } else { BinOp::Sub }),
                        Rule::mul_op => {
                            pending = Some(match x.as_str() {
                                "*" => BinOp::Mul,
                                "/" => BinOp::Div,
                                _ => BinOp::Rem,
                            })
                        }
                        _ => {
                            operand += 1;
                            let rhs = self.expr_at(x, ops + 1 - operand.min(ops));
                            let op = pending.take().or(default_op).unwrap_or(BinOp::Add);
                            let s = Span {
                                file: self.file,
                                start: acc.span.start,
                                end: rhs.span.end,
                            };
                            acc = Expr {
                                kind: ExprKind::Bin(op, Box::new(acc), Box::new(rhs)),
                                span: s,
                            };
                        }
                    }
                }
                return acc;
            }
            Rule::not_expr => {
                let ops = inner.len().saturating_sub(1);
                if self.depth + ops > MAX_EXPR_DEPTH {
                    return self.too_deep_expr(span, ops);
                }
                let last = match inner.pop() {
                    Some(l) => self.expr_at(l, ops),
                    None => {
                        return Expr {
                            kind: ExprKind::Int(0),
                            span,
                        }
                    }
                };
                let mut e = last;
                for _ in inner {
                    e = Expr {
                        kind: ExprKind::Not(Box::new(e)),
                        span,
                    };
                }
                return e;
            }
            Rule::unary => {
                let ops = inner.len().saturating_sub(1);
                if self.depth + ops > MAX_EXPR_DEPTH {
                    return self.too_deep_expr(span, ops);
                }
                // `-9223372036854775808`: the smallest 64-bit integer, whose digits alone do not
                // fit in 64 bits.
                let min_literal = inner.len() >= 2
                    && inner[inner.len() - 2].as_str() == "-"
                    && inner.last().is_some_and(|l| {
                        l.clone().into_inner().map(|x| (x.as_rule(), x.as_str())).collect::<Vec<_>>()
                            == [(Rule::int, "9223372036854775808")]
                    });
                let mut e = if min_literal {
                    inner.pop();
                    let minus = inner.pop().map(|m| m.as_span().start()).unwrap_or(span.start);
                    Expr {
                        kind: ExprKind::Int(i64::MIN),
                        span: Span {
                            file: self.file,
                            start: minus,
                            end: span.end,
                        },
                    }
                } else {
                    match inner.pop() {
                        Some(l) => self.expr_at(l, ops),
                        None => {
                            return Expr {
                                kind: ExprKind::Int(0),
                                span,
                            }
                        }
                    }
                };
                for op in inner.into_iter().rev() {
                    if op.as_str() == "-" {
                        e = match e.kind {
                            ExprKind::Int(v) if v != i64::MIN => Expr {
                                kind: ExprKind::Int(-v),
                                span,
                            },
                            ExprKind::Dec(n, d) if n != i64::MIN => Expr {
                                kind: ExprKind::Dec(-n, d),
                                span,
                            },
                            k => Expr {
                                kind: ExprKind::Neg(Box::new(Expr { kind: k, span: e.span })),
                                span,
                            },
                        };
                    } else {
                        e.span = span;
                    }
                }
                return e;
            }
            Rule::cmp_expr => {
                if inner.len() == 1 {
                    return self.expr(inner.remove(0));
                }
                let mut it = inner.into_iter();
                let (Some(l), Some(op), Some(r)) = (it.next(), it.next(), it.next()) else {
                    return Expr {
                        kind: ExprKind::Int(0),
                        span,
                    };
                };
                let lhs = self.expr_at(l, 1);
                match op.as_rule() {
                    Rule::in_op => ExprKind::In(Box::new(lhs), Box::new(self.expr_at(r, 1))),
                    Rule::is_op => ExprKind::Is(Box::new(lhs), self.ident(r)),
                    _ => ExprKind::Cmp(cmp_op(op.as_str()), Box::new(lhs), Box::new(self.expr_at(r, 1))),
                }
            }
            Rule::postfix => {
                let ops = inner.len().saturating_sub(1);
                if self.depth + ops > MAX_EXPR_DEPTH {
                    return self.too_deep_expr(span, ops);
                }
                // Field accesses and `with` clauses nest like operators; the values of a `with`
                // are counted as deep as the first operand, which over-estimates by little.
                let mut it = inner.into_iter();
                let mut e = match it.next() {
                    Some(first) => self.expr_at(first, ops),
                    None => {
                        return Expr {
                            kind: ExprKind::Int(0),
                            span,
                        }
                    }
                };
                for f in it {
                    let fspan = self.span(&f);
                    let s = Span {
                        file: self.file,
                        start: e.span.start,
                        end: fspan.end,
                    };
                    if f.as_rule() == Rule::with_clause {
                        let base = self.depth;
                        self.depth = base + ops;
                        let inits = self.field_inits(f);
                        self.depth = base;
                        e = Expr {
                            kind: ExprKind::With(Box::new(e), inits),
                            span: s,
                        };
                    } else if let Some(idp) = f.into_inner().find(not_kw) {
                        let id = self.ident(idp);
                        e = Expr {
                            kind: ExprKind::Field(Box::new(e), id),
                            span: s,
                        };
                    }
                }
                return e;
            }
            Rule::aggregate => {
                let mut it = inner.into_iter();
                let (Some(k), Some(v), Some(l), Some(b)) = (it.next(), it.next(), it.next(), it.next()) else {
                    return Expr {
                        kind: ExprKind::Int(0),
                        span,
                    };
                };
                let kind = match k.as_str() {
                    "sum" => Agg::Sum,
                    "product" => Agg::Product,
                    "count" => Agg::Count,
                    "any" => Agg::Any,
                    "all" => Agg::All,
                    "max" => Agg::Max,
                    "map" => Agg::Map,
                    "filter" => Agg::Filter,
                    "first" => Agg::First,
                    "sort" => Agg::Sort,
                    "sort_desc" => Agg::SortDesc,
                    _ => Agg::Min,
                };
                let var = self.ident(v);
                ExprKind::Agg {
                    kind,
                    var,
                    list: Box::new(self.expr_at(l, 1)),
                    body: Box::new(self.expr_at(b, 1)),
                }
            }
            Rule::update => {
                let mut it = inner.into_iter();
                let (Some(v), Some(l), Some(c), Some(b)) = (it.next(), it.next(), it.next(), it.next()) else {
                    return Expr {
                        kind: ExprKind::Int(0),
                        span,
                    };
                };
                let var = self.ident(v);
                // The condition and the new value sit two levels down, as in the `map(x in l: if
                // c then v else x)` the checker lowers this to.
                ExprKind::Update {
                    var,
                    list: Box::new(self.expr_at(l, 1)),
                    cond: Box::new(self.expr_at(c, 2)),
                    body: Box::new(self.expr_at(b, 2)),
                }
            }
            Rule::call => {
                let mut it = inner.into_iter();
                let Some(f) = it.next() else {
                    return Expr {
                        kind: ExprKind::Int(0),
                        span,
                    };
                };
                let name = self.ident(f);
                let rest: Vec<Pair<Rule>> = it.collect();
                if rest.len() == 1 && rest[0].as_rule() == Rule::named_args {
                    let inits = self.field_inits(rest[0].clone());
                    ExprKind::Construct(name, inits)
                } else {
                    ExprKind::Call(name, rest.into_iter().map(|a| self.expr_at(a, 1)).collect())
                }
            }
            Rule::option_ref => match inner.pop() {
                Some(i) => ExprKind::Option(self.ident(i)),
                None => ExprKind::Bool(false),
            },
            Rule::list_lit => ExprKind::List(inner.into_iter().map(|x| self.expr_at(x, 1)).collect()),
            Rule::decimal => match parse_decimal(&text) {
                Some((n, d)) => ExprKind::Dec(n, d),
                None => {
                    self.diags
                        .push(Diagnostic::error("E0401", span, format!("decimal `{text}` has too many digits")).label("here"));
                    ExprKind::Int(0)
                }
            },
            Rule::int => match text.parse::<i64>() {
                Ok(v) => ExprKind::Int(v),
                Err(_) => {
                    self.diags
                        .push(Diagnostic::error("E0401", span, format!("number `{text}` does not fit in 64 bits")).label("too large"));
                    ExprKind::Int(0)
                }
            },
            Rule::bool_lit => ExprKind::Bool(matches!(text.as_str(), "true" | "yes")),
            Rule::string => ExprKind::Str(string_value),
            Rule::ident => ExprKind::Name(text),
            _ => ExprKind::Int(0),
        };
        Expr { kind, span }
    }
}

fn cmp_op(s: &str) -> CmpOp {
    match s {
        "==" => CmpOp::Eq,
        "!=" => CmpOp::Ne,
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        _ => CmpOp::Ge,
    }
}

/// "7.5" → (15, 2); "-0.5" → (-1, 2); reduced, denominator > 0.
pub fn parse_decimal(text: &str) -> Option<(i64, i64)> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    if frac.len() > 12 {
        return None;
    }
    let den = 10i64.checked_pow(frac.len() as u32)?;
    let w: i64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let f: i64 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
    let mut num = w.checked_mul(den)?.checked_add(f)?;
    if neg {
        num = -num;
    }
    let g = num_integer::gcd(num, den).max(1);
    Some((num / g, den / g))
}

/// The first pair below `p` that is not a grammar layer with a single child: `(a)` is an `expr`
/// around an `or_expr` around ... around a `paren` around an `expr` again, a dozen layers per
/// bracket that lower to nothing. Walking them in a loop rather than by recursion keeps the
/// lowering's stack to the nodes the expression really has (a large frame each in a debug build),
/// so the deepest brackets `MAX_NESTING` allows lower on a 2 MiB stack.
fn one_child_layers(mut p: Pair<Rule>) -> Pair<Rule> {
    loop {
        match p.as_rule() {
            Rule::expr
            | Rule::paren
            | Rule::dice_count_expr
            | Rule::or_expr
            | Rule::and_expr
            | Rule::sum
            | Rule::product
            | Rule::coalesce
            | Rule::cmp_expr
            | Rule::not_expr
            | Rule::unary
            | Rule::postfix => {
                let mut inner = p.clone().into_inner().filter(not_kw);
                match (inner.next(), inner.next()) {
                    (Some(only), None) => p = only,
                    _ => return p,
                }
            }
            _ => return p,
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
        let grammar = include_str!("../../grammar/rules.pest");
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
