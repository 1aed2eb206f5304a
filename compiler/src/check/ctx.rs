//! The checker's shared state: the `Checker` that every phase module extends with its own
//! `impl Checker` block, the lexical scopes (`Ctx`) of a resolver body, and the helpers every
//! phase uses to report diagnostics and to quote sources.

use super::SourceFile;
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// A name bound in a resolver body: its type, its interval and the Rust variable behind it.
#[derive(Clone)]
pub(super) struct Local {
    pub(super) ty: Ty,
    pub(super) iv: Iv,
    pub(super) rust: String,
    pub(super) mutable: bool,
}

/// The scopes of the resolver being lowered (`rid` is `usize::MAX` outside any resolver).
pub(super) struct Ctx {
    pub(super) rid: usize,
    pub(super) scopes: Vec<BTreeMap<String, Local>>,
    pub(super) loops: usize,
    pub(super) counter: usize,
    /// The outputs set so far, in the order of the text (a loop's sets count from its start):
    /// a bare read of an input that shares such an output's name is then a warning (W0005).
    pub(super) set: BTreeSet<String>,
}

impl Ctx {
    /// A fresh context with one empty scope.
    pub(super) fn new(rid: usize) -> Self {
        Ctx {
            rid,
            scopes: vec![BTreeMap::new()],
            loops: 0,
            counter: 0,
            set: BTreeSet::new(),
        }
    }
    pub(super) fn lookup(&self, name: &str) -> Option<&Local> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }
    pub(super) fn bind(&mut self, name: &str, ty: Ty, iv: Iv, mutable: bool) -> String {
        self.counter += 1;
        let rust = format!("v_{}_{}", name, self.counter);
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(
                name.to_string(),
                Local {
                    ty,
                    iv,
                    rust: rust.clone(),
                    mutable,
                },
            );
        }
        rust
    }
}

/// The state of checking one system: what each phase declared so far, and the diagnostics sink.
pub(super) struct Checker<'a> {
    pub(super) srcs: &'a [SourceFile],
    /// `diag::line_starts` of every source, computed once (a line number is a binary search).
    pub(super) lines: &'a [Vec<usize>],
    pub(super) diags: &'a mut Vec<Diagnostic>,
    pub(super) cite_prefix: String,
    pub(super) enums: Vec<EnumDef>,
    pub(super) enum_idx: BTreeMap<String, usize>,
    pub(super) options: Vec<OptionDef>,
    pub(super) option_idx: BTreeMap<String, usize>,
    pub(super) consts: BTreeMap<String, (Const, Ty, Iv)>,
    pub(super) aliases: BTreeMap<String, &'a ast::TypeExpr>,
    pub(super) tables: Vec<TableDef>,
    pub(super) table_idx: BTreeMap<String, usize>,
    pub(super) table_keys: Vec<BTreeMap<String, usize>>,
    pub(super) resolvers: Vec<ResolverDef>,
    pub(super) resolver_idx: BTreeMap<String, usize>,
    pub(super) alias_stack: Vec<String>,
    pub(super) records: Vec<RecordDef>,
    pub(super) record_idx: BTreeMap<String, usize>,
    pub(super) option_spans: Vec<Span>,
    /// Tables whose kind could not be told (a bad matrix axis or enum key, already reported):
    /// their lookups are not checked further.
    pub(super) broken_tables: std::collections::BTreeSet<usize>,
    /// Set when a file of this system failed to parse: what it probably declared. Checks that
    /// need the whole system (unused tables and options) are skipped, and unknown names it
    /// declares are not reported.
    pub(super) unparsed: Option<super::names::Unparsed>,
    /// `let`s of the resolver being lowered that an `int` value and a decimal modifier made
    /// decimal, by their Rust name: the modifier's span and name. A type error at a use of one
    /// points at the modifier, its cause.
    pub(super) made_decimal: BTreeMap<String, (Span, String)>,
    /// Each keyed table's keys and aliases as the table spells them, by normalised form: what a
    /// "did you mean" shows, whether or not the table's rows are lowered yet.
    pub(super) key_spellings: BTreeMap<(usize, String), String>,
}

impl<'a> Checker<'a> {
    pub(super) fn new(srcs: &'a [SourceFile], lines: &'a [Vec<usize>], diags: &'a mut Vec<Diagnostic>) -> Self {
        Checker {
            srcs,
            lines,
            diags,
            cite_prefix: String::new(),
            enums: Vec::new(),
            enum_idx: BTreeMap::new(),
            options: Vec::new(),
            option_idx: BTreeMap::new(),
            consts: BTreeMap::new(),
            aliases: BTreeMap::new(),
            tables: Vec::new(),
            table_idx: BTreeMap::new(),
            table_keys: Vec::new(),
            resolvers: Vec::new(),
            resolver_idx: BTreeMap::new(),
            alias_stack: Vec::new(),
            records: Vec::new(),
            record_idx: BTreeMap::new(),
            made_decimal: BTreeMap::new(),
            key_spellings: BTreeMap::new(),
            option_spans: Vec::new(),
            broken_tables: Default::default(),
            unparsed: None,
        }
    }

    pub(super) fn err(&mut self, code: &'static str, span: Span, msg: impl Into<String>, label: impl Into<String>, help: Option<String>) {
        let mut d = Diagnostic::error(code, span, msg).label(label);
        d.help = help;
        self.diags.push(d);
    }

    /// E0101 for a name that is not among `candidates` (`kind`: "variant", "column"...), with
    /// "did you mean" as its help.
    pub(super) fn err_unknown(&mut self, span: Span, msg: String, label: &str, name: &str, candidates: Vec<String>, kind: &str) {
        let help = crate::diag::did_you_mean(name, candidates.iter().map(String::as_str), kind);
        self.err("E0101", span, msg, label, Some(help));
    }

    pub(super) fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>, label: impl Into<String>, help: Option<String>) {
        let mut d = Diagnostic::warning(code, span, msg).label(label);
        d.help = help;
        self.diags.push(d);
    }

    /// A citation as traces show it: one that starts with a rule number (`6.3`) or a page
    /// (`p.13 Kills`, `pp.12-13`) gets the system's cite prefix ("Starleader 6.3").
    pub(super) fn cite(&self, c: &ast::Cite) -> String {
        let page = ["p.", "pp."].iter().any(|p| {
            c.text
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with(|ch: char| ch.is_ascii_digit()))
        });
        if (page || c.text.starts_with(|ch: char| ch.is_ascii_digit())) && !self.cite_prefix.is_empty() {
            format!("{} {}", self.cite_prefix, c.text)
        } else {
            c.text.clone()
        }
    }

    /// `path:line:col` of the start of `span` (the column counted in characters), as run-time
    /// errors name a place in the rules.
    pub(super) fn place_of(&self, span: Span) -> String {
        let line = self.line_of(span);
        let Some(src) = self.srcs.get(span.file) else {
            return String::new();
        };
        let start = self
            .lines
            .get(span.file)
            .and_then(|starts| starts.get(line.saturating_sub(1)))
            .copied()
            .unwrap_or(0);
        let col = src.text.get(start..span.start).map_or(0, |t| t.chars().count()) + 1;
        format!("{}:{line}:{col}", src.path)
    }

    pub(super) fn line_of(&self, span: Span) -> usize {
        self.lines
            .get(span.file)
            .map(|starts| crate::diag::line_of(starts, span.start))
            .unwrap_or(0)
    }

    pub(super) fn text_of(&self, span: Span) -> String {
        self.srcs
            .get(span.file)
            .and_then(|s| s.text.get(span.start..span.end))
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}
