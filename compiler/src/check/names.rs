//! Names: the folder's `system` declaration, then every enum, option, type alias, table,
//! resolver, constant and record entering its namespace (pass 1), record fields, constant values,
//! and the lookup of enum variants. Reserved words, duplicates and unknown names with "did you
//! mean" are reported here. `Unparsed` reads what a file that failed to parse probably declares
//! (names, and the table keys its text mentions), so that the rest of its system is checked
//! without false reports about it.
//!
//! Diagnostics owned here: E0103 (system declaration missing, repeated or misnamed), E0102
//! (reserved word, defined twice, variants too alike), E0101 (unknown variant), and E0201 for a
//! constant that is not a plain value.

use super::ctx::Checker;
use crate::ast::{self, CellKind, Span};
use crate::diag::did_you_mean;
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

fn article(what: &str) -> &'static str {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Names the generated Rust cannot use even as raw identifiers, or that it uses itself (the
/// prefix `rt_` names the generated code's own helpers, such as `rt_body_fire`).
pub(super) fn rust_ident_ok(name: &str) -> bool {
    !matches!(
        name,
        "self" | "Self" | "super" | "crate" | "_" | "dice" | "trace" | "inp" | "out" | "rt" | "violations"
    ) && !name.starts_with("rt_")
}

/// What a file that failed to parse would probably have declared, read from its text without the
/// grammar, so that the rest of its system is checked without false reports about it: whether
/// it declares the `system`, and the names of its items (`option x "..."`, `enum x { a, b }` with
/// its variants, `type x =`, `const x`, `record x`, `table x`, `resolver x`, `policy x`), and its
/// text with keys folded, for the table keys it mentions.
#[derive(Debug, Default)]
pub(super) struct Unparsed {
    pub(super) system: bool,
    pub(super) names: BTreeSet<String>,
    /// The files' text folded as keys are (`normalize_key`).
    folded: String,
}

impl Unparsed {
    /// True when the files mention `key` (folded): it may be a row of a table they declare (an
    /// unterminated string on a row hides the whole table), so "not a key" would be a false report.
    pub(super) fn mentions(&self, folded_key: &str) -> bool {
        !folded_key.is_empty() && self.folded.contains(folded_key)
    }

    pub(super) fn scan(&mut self, text: &str) {
        self.folded.push_str(&super::normalize_key(text));
        self.folded.push('\n');
        let tokens = tokens(text);
        let word = |i: usize| match tokens.get(i) {
            Some(Tok::Word(w)) => Some(*w),
            _ => None,
        };
        for (i, t) in tokens.iter().enumerate() {
            let Tok::Word(kw) = t else { continue };
            let Some(name) = word(i + 1) else { continue };
            let next = tokens.get(i + 2);
            let declares = match *kw {
                "system" => {
                    self.system = true;
                    false
                }
                // `option x` is also how an expression reads an option; a declaration has a title.
                "option" => matches!(next, Some(Tok::Str)),
                "policy" => matches!(next, Some(Tok::Str) | Some(Tok::Punct('['))),
                "type" => matches!(next, Some(Tok::Punct('='))),
                "const" | "record" | "table" | "resolver" => true,
                "enum" => {
                    // The variants: each name after the `{` or a `,`, up to the `}`.
                    let body = tokens[i + 2..].iter().skip_while(|t| **t != Tok::Punct('{'));
                    let mut prev_sep = false;
                    for t in body {
                        match t {
                            Tok::Punct('{') | Tok::Punct(',') => prev_sep = true,
                            Tok::Punct('}') => break,
                            Tok::Word(v) if prev_sep => {
                                self.names.insert(v.to_string());
                                prev_sep = false;
                            }
                            _ => prev_sep = false,
                        }
                    }
                    true
                }
                _ => false,
            };
            if declares {
                self.names.insert(name.to_string());
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'t> {
    Word(&'t str),
    Str,
    Punct(char),
}

/// Words, strings and punctuation of rules text; comments, numbers and spaces are left out.
fn tokens(text: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '/' && chars.peek().is_some_and(|&(_, n)| n == '/') {
            while chars.next_if(|&(_, n)| n != '\n').is_some() {}
        } else if c == '"' {
            while let Some((_, n)) = chars.next() {
                match n {
                    '\\' => {
                        chars.next();
                    }
                    '"' | '\n' => break,
                    _ => {}
                }
            }
            out.push(Tok::Str);
        } else if c.is_ascii_alphabetic() || c == '_' || c.is_ascii_digit() {
            let mut end = i + c.len_utf8();
            while let Some((j, n)) = chars.next_if(|&(_, n)| n.is_ascii_alphanumeric() || n == '_') {
                end = j + n.len_utf8();
            }
            if !c.is_ascii_digit() {
                out.push(Tok::Word(&text[i..end]));
            }
        } else if !c.is_whitespace() {
            out.push(Tok::Punct(c));
        }
    }
    out
}

impl<'a> Checker<'a> {
    /// E0102 for a name the generated code reserves for itself.
    pub(super) fn reserved(&mut self, name: &ast::Ident, what: &str) {
        if let Some(rest) = name.name.strip_prefix("rt_") {
            self.err(
                "E0102",
                name.span,
                format!(
                    "`{}` begins with `rt_`, which is kept for the generated code's own names: it cannot name {} {what}",
                    name.name,
                    article(what)
                ),
                "reserved prefix",
                Some(format!("choose a name that does not begin with `rt_`, such as `{rest}`")),
            );
            return;
        }
        self.err(
            "E0102",
            name.span,
            format!("`{}` is a reserved word and cannot name {} {what}", name.name, article(what)),
            "reserved word",
            Some(crate::diag::reserved_word_help(&name.name)),
        );
    }

    /// True when `name` is unknown only because the file that probably declares it failed to
    /// parse: the syntax error is reported, so an "unknown name" would be a false second report.
    pub(super) fn declared_in_unparsed(&self, name: &str) -> bool {
        self.unparsed.as_ref().is_some_and(|u| u.names.contains(name))
    }

    pub(super) fn defined(&mut self, name: &ast::Ident, seen: &mut BTreeMap<String, Span>, what: &str) -> bool {
        // `policy` names the generated code's policy parameter, so no resolver may take it.
        if matches!(what, "resolver" | "enum" | "record" | "table" | "type" | "option" | "constant")
            && (!rust_ident_ok(&name.name) || (what == "resolver" && name.name == "policy"))
        {
            self.reserved(name, what);
            return false;
        }
        if let Some(prev) = seen.get(&name.name) {
            let line = self.line_of(*prev);
            let path = self.srcs.get(prev.file).map(|s| s.path.clone()).unwrap_or_default();
            self.err(
                "E0102",
                name.span,
                format!("`{}` is defined twice", name.name),
                format!("second {what} named `{}`", name.name),
                Some(format!("the first is at {path}:{line}; rename one of them")),
            );
            false
        } else {
            seen.insert(name.name.clone(), name.span);
            true
        }
    }

    /// The folder's one `system` declaration: its name and title, and the cite prefix of its
    /// items. `None` when there is no single declaration to go on.
    pub(super) fn declare_system(
        &mut self,
        folder: &str,
        files: &[(usize, &'a ast::File)],
        items: &[&'a ast::Item],
    ) -> Option<(String, String)> {
        let systems: Vec<_> = items
            .iter()
            .filter_map(|i| {
                if let ast::Item::System {
                    name,
                    title,
                    cite_prefix,
                    span,
                } = i
                {
                    Some((name, title, cite_prefix, span))
                } else {
                    None
                }
            })
            .collect();
        let first_file = files.first().map(|(fi, _)| *fi).unwrap_or(0);
        let (name, title) = match systems.as_slice() {
            // The declaration is in a file that failed to parse: check the rest under the folder's name.
            [] if self.unparsed.as_ref().is_some_and(|u| u.system) => return Some((folder.to_string(), String::new())),
            [] => {
                self.err(
                    "E0103",
                    Span {
                        file: first_file,
                        start: 0,
                        end: 0,
                    },
                    format!("the `{folder}` rules have no `system` declaration"),
                    "system expected in this folder",
                    Some(format!(
                        "add `system {folder} \"Title of the book\" cite \"Book\"` to one file of the folder"
                    )),
                );
                return None;
            }
            [(n, t, c, _)] => {
                self.cite_prefix = (*c).clone().unwrap_or_default();
                if n.name != folder {
                    self.err(
                        "E0103",
                        n.span,
                        format!("system `{}` is declared in folder `{folder}`", n.name),
                        "name differs from its folder",
                        Some(format!("name the system `{folder}` or move its files to `rules-src/{}/`", n.name)),
                    );
                }
                (n.name.clone(), (*t).clone())
            }
            [_, rest @ ..] => {
                for (n, _, _, _) in rest {
                    self.err(
                        "E0103",
                        n.span,
                        "a second `system` declaration in the same folder",
                        "repeated",
                        Some("each system folder declares its system once".into()),
                    );
                }
                return None;
            }
        };
        Some((name, title))
    }

    /// Pass 1: every named item enters its namespace (enums, options, aliases, table names,
    /// resolver names, constants, records); the contents come in later phases.
    pub(super) fn declare_items(&mut self, items: &[&'a ast::Item]) {
        let mut seen: BTreeMap<String, Span> = BTreeMap::new();
        for item in items {
            match item {
                ast::Item::Enum(e) => self.declare_enum(e, &mut seen),
                ast::Item::Option { name, title, cite } => self.declare_option(name, title, cite, &mut seen),
                ast::Item::Type { name, ty, .. } => {
                    if self.defined(name, &mut seen, "type") {
                        self.aliases.insert(name.name.clone(), ty);
                    }
                }
                ast::Item::Table(t) => self.declare_table(t, &mut seen),
                ast::Item::Resolver(r) => self.declare_resolver(r, &mut seen),
                ast::Item::Const { name, .. } => {
                    self.defined(name, &mut seen, "constant");
                }
                ast::Item::Record { name, title, cite, .. } => self.declare_record(name, title.as_deref(), cite.as_ref(), &mut seen),
                ast::Item::System { .. } => {}
            }
        }
    }

    fn declare_enum(&mut self, e: &ast::EnumDecl, seen: &mut BTreeMap<String, Span>) {
        if self.defined(&e.name, seen, "enum") {
            let mut vseen = BTreeMap::new();
            let mut variants = Vec::new();
            for (v, doc) in &e.variants {
                if self.defined(v, &mut vseen, "variant") {
                    if !rust_ident_ok(&v.name) {
                        self.reserved(v, "variant");
                    }
                    variants.push((v.name.clone(), doc.clone().unwrap_or_default()));
                }
            }
            let mut camels: BTreeMap<String, String> = BTreeMap::new();
            for (v, _) in &e.variants {
                let c = crate::codegen::camel(&v.name).to_lowercase();
                if let Some(prev) = camels.insert(c, v.name.clone()) {
                    if prev != v.name {
                        self.err(
                            "E0102",
                            v.span,
                            format!("variants `{prev}` and `{}` are too alike", v.name),
                            "clashes with an earlier variant",
                            Some("they differ only in underscores or case; rename one".into()),
                        );
                    }
                }
            }
            self.enum_idx.insert(e.name.name.clone(), self.enums.len());
            let cite = e.cite.as_ref().map(|c| self.cite(c)).unwrap_or_default();
            self.enums.push(EnumDef {
                name: e.name.name.clone(),
                title: e.title.clone().unwrap_or_default(),
                cite,
                variants,
            });
        }
    }

    fn declare_option(&mut self, name: &ast::Ident, title: &str, cite: &ast::Cite, seen: &mut BTreeMap<String, Span>) {
        if self.defined(name, seen, "option") {
            self.option_idx.insert(name.name.clone(), self.options.len());
            self.option_spans.push(name.span);
            let cite = self.cite(cite);
            self.options.push(OptionDef {
                name: name.name.clone(),
                title: title.to_string(),
                cite,
            });
        }
    }

    /// A table's name and place; its columns and rows come with the tables phase.
    fn declare_table(&mut self, t: &ast::TableDecl, seen: &mut BTreeMap<String, Span>) {
        if self.defined(&t.name, seen, "table") {
            self.table_idx.insert(t.name.name.clone(), self.tables.len());
            let cite = self.cite(&t.cite);
            let source = self.srcs.get(t.span.file).map(|s| s.path.clone()).unwrap_or_default();
            let line = self.line_of(t.span);
            self.tables.push(TableDef {
                name: t.name.name.clone(),
                title: t.title.clone().unwrap_or_else(|| t.name.name.clone()),
                cite,
                kind: TableKind::Keyed,
                key_column: "name".into(),
                columns: Vec::new(),
                result: None,
                rows: Vec::new(),
                aliases: Vec::new(),
                source,
                line,
                used: false,
            });
            self.table_keys.push(BTreeMap::new());
        }
    }

    /// A resolver's name and place; its signature and body come with the resolvers phase.
    fn declare_resolver(&mut self, r: &ast::ResolverDecl, seen: &mut BTreeMap<String, Span>) {
        if self.defined(&r.name, seen, "resolver") {
            self.resolver_idx.insert(r.name.name.clone(), self.resolvers.len());
            let cite = self.cite(&r.cite);
            let source = self.srcs.get(r.span.file).map(|s| s.path.clone()).unwrap_or_default();
            let line = self.line_of(r.span);
            self.resolvers.push(ResolverDef {
                policy: r.policy,
                name: r.name.name.clone(),
                title: r.title.clone().unwrap_or_else(|| r.name.name.clone()),
                cite,
                inputs: Vec::new(),
                outputs: Vec::new(),
                body: Vec::new(),
                source,
                line,
                at: self.place_of(r.span),
            });
        }
    }

    fn declare_record(&mut self, name: &ast::Ident, title: Option<&str>, cite: Option<&ast::Cite>, seen: &mut BTreeMap<String, Span>) {
        if self.defined(name, seen, "record") {
            self.record_idx.insert(name.name.clone(), self.records.len());
            let cite = cite.map(|c| self.cite(c)).unwrap_or_default();
            self.records.push(RecordDef {
                name: name.name.clone(),
                title: title.unwrap_or_default().to_string(),
                cite,
                fields: Vec::new(),
            });
        }
    }

    /// Pass 2b: record fields (they may name enums, tables and other records).
    pub(super) fn record_fields(&mut self, items: &[&'a ast::Item]) {
        for item in items {
            if let ast::Item::Record { name, fields, .. } = item {
                let Some(&ri) = self.record_idx.get(&name.name) else { continue };
                let mut fseen = BTreeMap::new();
                let mut out = Vec::new();
                for (f, te) in fields {
                    let (ty, mut bounds) = self.type_expr(te);
                    if ty == Ty::Dec && bounds.is_some() {
                        self.err(
                            "E0201",
                            f.span,
                            format!("field `{}`: a record field of type `decimal` takes no bounds", f.name),
                            "decimal bounds on a field",
                            Some("decimal bounds are checked on resolver inputs; check a field with `require`".into()),
                        );
                        bounds = None;
                    }
                    if self.defined(f, &mut fseen, "field") {
                        if !rust_ident_ok(&f.name) {
                            self.reserved(f, "field");
                        }
                        out.push((f.name.clone(), ty, bounds));
                    }
                }
                self.records[ri].fields = out;
            }
        }
    }

    /// Pass 3: constants, with the interval of the integer ones.
    pub(super) fn constants(&mut self, items: &[&'a ast::Item]) {
        for item in items {
            if let ast::Item::Const { name, value, .. } = item {
                let (c, ty) = match &value.kind {
                    CellKind::Int(v) => (Const::Int(*v), Ty::Int),
                    CellKind::Dec(n, d) => (Const::Dec(*n, *d), Ty::Dec),
                    CellKind::Bool(b) => (Const::Bool(*b), Ty::Bool),
                    CellKind::Str(s) => (Const::Text(s.clone()), Ty::Text),
                    _ => {
                        self.err(
                            "E0201",
                            value.span,
                            "a constant must be a number, decimal, yes/no or text",
                            "not a constant value",
                            None,
                        );
                        continue;
                    }
                };
                let iv = if let Const::Int(v) = c { Iv::exact(v) } else { Iv::UNKNOWN };
                self.consts.insert(name.name.clone(), (c, ty, iv));
            }
        }
    }

    pub(super) fn variant_const(&mut self, e: usize, v: &str, span: Span) -> Const {
        match self.enums[e].variants.iter().position(|(n, _)| n == v) {
            Some(i) => Const::Enum(e, i),
            None => {
                let en = self.enums[e].name.clone();
                let help = did_you_mean(
                    v,
                    self.enums[e].variants.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
                    "variant",
                );
                self.err(
                    "E0101",
                    span,
                    format!("`{v}` is not a variant of `{en}`"),
                    "unknown variant",
                    Some(help),
                );
                Const::None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only, run};

    #[test]
    fn declarations_that_check_clean() {
        check_codes(
            "enum e \"E\" [1] { a, b }\nconst limit = 3 [1]\nresolver r \"R\" [1] {\n  in k: e = a\n  out x: int\n  set x = limit\n}\n",
            &[],
        );
    }

    #[test]
    fn a_folder_needs_exactly_one_system_named_after_it() {
        let codes = |text: &str| run(text).1.iter().map(|d| d.code).collect::<Vec<_>>();
        assert_eq!(codes("enum e \"E\" [1] { a }\n"), ["E0103"]);
        assert_eq!(codes("system u \"U\"\n"), ["E0103"]);
        assert_eq!(codes("system t \"T\"\nsystem t \"T\"\n"), ["E0103"]);
    }

    #[test]
    fn a_name_defined_twice_points_at_the_first() {
        let (msg, help) = only("enum e \"E\" [1] { a }\nenum e \"E\" [1] { b }\n", "E0102");
        assert_eq!(msg, "`e` is defined twice");
        assert_eq!(help, "the first is at t/test.rules:2; rename one of them");
    }

    #[test]
    fn reserved_and_clashing_names() {
        check_codes("enum dice \"D\" [1] { a }\n", &["E0102"]);
        check_codes("enum e \"E\" [1] { x_1, x1 }\n", &["E0102"]);
        check_codes("enum e \"E\" [1] { a, a }\n", &["E0102"]);
    }

    #[test]
    fn the_generated_codes_prefix_is_kept() {
        // `rt_body_r` is the body of resolver `r` in the generated code.
        let (msg, help) = only("resolver rt_body_r \"R\" [1] {\n  out x: int = 0\n}\n", "E0102");
        assert_eq!(
            msg,
            "`rt_body_r` begins with `rt_`, which is kept for the generated code's own names: it cannot name a resolver"
        );
        assert_eq!(help, "choose a name that does not begin with `rt_`, such as `body_r`");
        check_codes("record rt_x \"X\" [1] { a: int }\n", &["E0102"]);
    }

    #[test]
    fn an_unknown_variant_suggests_the_nearest() {
        let src = "enum e \"E\" [1] { alpha, beta }\ntable t \"T\" [1] by 1d6 -> e {\n  1..3 => alpah\n  4..6 => beta\n}\nresolver r \"R\" [1] {\n  out x: e\n  roll d = 1d6\n  set x = t(d)\n}\n";
        let (msg, help) = only(src, "E0101");
        assert_eq!(msg, "`alpah` is not a variant of `e`");
        assert_eq!(help, "did you mean `alpha`?");
    }

    #[test]
    fn a_constant_is_a_plain_value() {
        check_codes("const c = [1, 2] [1]\n", &["E0201"]);
    }

    #[test]
    fn reserved_words_suggest_another_name() {
        let (msg, help) = only("enum e \"E\" [1] { a, dice }\n", "E0102");
        assert_eq!(msg, "`dice` is a reserved word and cannot name a variant");
        assert_eq!(
            help,
            "choose another name, such as `dice_` or one that says what it holds, like `damage_dice`"
        );
    }

    #[test]
    fn an_unparsed_file_is_read_for_the_names_it_declares() {
        let mut u = super::Unparsed::default();
        u.scan(
            "system s \"S\"\n// enum not_me { x }\noption o \"O\" [1]\nenum e \"E\" [1] { a \"doc, with comma\", b }\n\
             type t = int\nconst c = 1 [1]\nrecord rec { f: int }\ntable tab \"T\" [1] {}\n\
             resolver r \"R\" [1] { if option o { } }\npolicy p \"P\" [1] {\n",
        );
        assert!(u.system);
        let names: Vec<&str> = u.names.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "e", "o", "p", "r", "rec", "t", "tab"]);
    }
}
