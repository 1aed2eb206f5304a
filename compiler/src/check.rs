//! AST → IR: resolves names, checks types, bounds integer arithmetic, validates tables, and lowers
//! resolvers into typed statements. Every problem becomes a diagnostic; checking never stops early.

use crate::ast::{self, Agg, BinOp, CellKind, CmpOp, Span};
use crate::diag::{did_you_mean, Diagnostic};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// One rules file as the checker sees it.
pub struct SourceFile {
    /// Path shown to users, e.g. `rules-src/starleader/fire.rules`.
    pub path: String,
    pub text: String,
    /// The system folder the file belongs to.
    pub system: String,
}

/// Check every system. Returns the program (when there were no errors) and all diagnostics.
pub fn check(sources: &[SourceFile], files: &[(usize, ast::File)]) -> (Option<Program>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut by_system: BTreeMap<&str, Vec<(usize, &ast::File)>> = BTreeMap::new();
    for (fi, f) in files {
        by_system.entry(sources[*fi].system.as_str()).or_default().push((*fi, f));
    }
    let mut systems = Vec::new();
    for (folder, files) in by_system {
        let mut c = Checker::new(sources, &mut diags);
        if let Some(sys) = c.system(folder, &files) {
            systems.push(sys);
        }
    }
    let ok = !diags.iter().any(|d| d.is_error());
    (if ok { Some(Program { systems }) } else { None }, diags)
}

/// Normalised form of a table key for matching: case-insensitive, with runs of spaces, hyphens, dots
/// and underscores folded to one space.
pub fn normalize_key(s: &str) -> String {
    // The same matching the CLI uses for `--set` values, so a key that checks here binds there.
    rulebook_runtime::normalize(s)
}

/// A table's `by` dice: their distribution (when computable) and the range of values.
type DiceDomain = (Option<Vec<(i64, u64)>>, i64, i64);

#[derive(Clone)]
struct Local {
    ty: Ty,
    iv: Iv,
    rust: String,
    mutable: bool,
}

struct Ctx {
    rid: usize,
    scopes: Vec<BTreeMap<String, Local>>,
    loops: usize,
    counter: usize,
}

impl Ctx {
    fn lookup(&self, name: &str) -> Option<&Local> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }
    fn bind(&mut self, name: &str, ty: Ty, iv: Iv, mutable: bool) -> String {
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

struct Checker<'a> {
    srcs: &'a [SourceFile],
    diags: &'a mut Vec<Diagnostic>,
    cite_prefix: String,
    enums: Vec<EnumDef>,
    enum_idx: BTreeMap<String, usize>,
    options: Vec<OptionDef>,
    option_idx: BTreeMap<String, usize>,
    consts: BTreeMap<String, (Const, Ty, Iv)>,
    aliases: BTreeMap<String, &'a ast::TypeExpr>,
    tables: Vec<TableDef>,
    table_idx: BTreeMap<String, usize>,
    table_keys: Vec<BTreeMap<String, usize>>,
    resolvers: Vec<ResolverDef>,
    resolver_idx: BTreeMap<String, usize>,
    alias_stack: Vec<String>,
    records: Vec<RecordDef>,
    record_idx: BTreeMap<String, usize>,
    option_spans: Vec<Span>,
}

/// Names the generated Rust cannot use even as raw identifiers, or that it uses itself.
fn rust_ident_ok(name: &str) -> bool {
    !matches!(
        name,
        "self" | "Self" | "super" | "crate" | "_" | "dice" | "trace" | "inp" | "out" | "rt" | "violations"
    )
}

impl<'a> Checker<'a> {
    fn new(srcs: &'a [SourceFile], diags: &'a mut Vec<Diagnostic>) -> Self {
        Checker {
            srcs,
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
            option_spans: Vec::new(),
        }
    }

    fn err(&mut self, code: &'static str, span: Span, msg: impl Into<String>, label: impl Into<String>, help: Option<String>) {
        let mut d = Diagnostic::error(code, span, msg).label(label);
        d.help = help;
        self.diags.push(d);
    }

    fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>, label: impl Into<String>, help: Option<String>) {
        let mut d = Diagnostic::warning(code, span, msg).label(label);
        d.help = help;
        self.diags.push(d);
    }

    fn cite(&self, c: &ast::Cite) -> String {
        if c.text.starts_with(|ch: char| ch.is_ascii_digit()) && !self.cite_prefix.is_empty() {
            format!("{} {}", self.cite_prefix, c.text)
        } else {
            c.text.clone()
        }
    }

    fn line_of(&self, span: Span) -> usize {
        self.srcs
            .get(span.file)
            .map(|s| s.text[..span.start.min(s.text.len())].matches('\n').count() + 1)
            .unwrap_or(0)
    }

    fn text_of(&self, span: Span) -> String {
        self.srcs
            .get(span.file)
            .and_then(|s| s.text.get(span.start..span.end))
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn defined(&mut self, name: &ast::Ident, seen: &mut BTreeMap<String, Span>, what: &str) -> bool {
        // `policy` names the generated code's policy parameter, so no resolver may take it.
        if matches!(what, "resolver" | "enum" | "record" | "table" | "type" | "option" | "constant")
            && (!rust_ident_ok(&name.name) || (what == "resolver" && name.name == "policy"))
        {
            self.err(
                "E0102",
                name.span,
                format!("`{}` is a reserved word and cannot name a {what}", name.name),
                "reserved",
                Some(format!("choose another name for this {what}")),
            );
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

    // ---------------------------------------------------------------- system
    fn system(&mut self, folder: &str, files: &[(usize, &'a ast::File)]) -> Option<System> {
        let items: Vec<&'a ast::Item> = files.iter().flat_map(|(_, f)| f.items.iter()).collect();
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
        let mut seen: BTreeMap<String, Span> = BTreeMap::new();
        // Pass 1: enums, options, aliases, table names, resolver names.
        for item in &items {
            match item {
                ast::Item::Enum(e) => {
                    if self.defined(&e.name, &mut seen, "enum") {
                        let mut vseen = BTreeMap::new();
                        let mut variants = Vec::new();
                        for (v, doc) in &e.variants {
                            if self.defined(v, &mut vseen, "variant") {
                                if !rust_ident_ok(&v.name) {
                                    self.err(
                                        "E0102",
                                        v.span,
                                        format!("`{}` is reserved", v.name),
                                        "reserved word",
                                        Some("choose another variant name".into()),
                                    );
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
                ast::Item::Option { name, title, cite } => {
                    if self.defined(name, &mut seen, "option") {
                        self.option_idx.insert(name.name.clone(), self.options.len());
                        self.option_spans.push(name.span);
                        let cite = self.cite(cite);
                        self.options.push(OptionDef {
                            name: name.name.clone(),
                            title: title.clone(),
                            cite,
                        });
                    }
                }
                ast::Item::Type { name, ty, .. } => {
                    if self.defined(name, &mut seen, "type") {
                        self.aliases.insert(name.name.clone(), ty);
                    }
                }
                ast::Item::Table(t) => {
                    if self.defined(&t.name, &mut seen, "table") {
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
                ast::Item::Resolver(r) => {
                    if self.defined(&r.name, &mut seen, "resolver") {
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
                        });
                    }
                }
                ast::Item::Const { name, .. } => {
                    self.defined(name, &mut seen, "constant");
                }
                ast::Item::Record { name, title, cite, .. } => {
                    if self.defined(name, &mut seen, "record") {
                        self.record_idx.insert(name.name.clone(), self.records.len());
                        let cite = cite.as_ref().map(|c| self.cite(c)).unwrap_or_default();
                        self.records.push(RecordDef {
                            name: name.name.clone(),
                            title: title.clone().unwrap_or_default(),
                            cite,
                            fields: Vec::new(),
                        });
                    }
                }
                ast::Item::System { .. } => {}
            }
        }
        // Pass 2: keys of keyed tables (so cells can refer to rows of any table).
        let tables_ast: Vec<&'a ast::TableDecl> = items
            .iter()
            .filter_map(|i| if let ast::Item::Table(t) = i { Some(t) } else { None })
            .collect();
        for t in &tables_ast {
            let Some(&tid) = self.table_idx.get(&t.name.name) else {
                continue;
            };
            if matches!(t.kind, ast::TableKind::Keyed) {
                let mut keys: BTreeMap<String, usize> = BTreeMap::new();
                for (ri, row) in t.rows.iter().enumerate() {
                    let key = match &row.head {
                        ast::RowHead::Key(k) | ast::RowHead::Label(k) => k.clone(),
                        ast::RowHead::Range(..) => continue,
                    };
                    let norm = normalize_key(&key);
                    if let Some(&prev) = keys.get(&norm) {
                        let prev: usize = prev;
                        let prev_key: String = match &t.rows[prev].head {
                            ast::RowHead::Key(k) | ast::RowHead::Label(k) => k.clone(),
                            _ => String::new(),
                        };
                        self.err(
                            "E0306",
                            row.head_span,
                            format!("key `{key}` is already used in table `{}`", t.name.name),
                            "duplicate key",
                            Some(format!(
                                "it matches row `{prev_key}` (keys compare ignoring case, and spaces, hyphens, dots and underscores count alike); give each row its own key"
                            )),
                        );
                    } else {
                        keys.insert(norm, ri);
                    }
                }
                for (names, target, span) in &t.aliases {
                    match keys.get(&normalize_key(target)).copied() {
                        Some(row) => {
                            for (n, nspan) in names {
                                let norm = normalize_key(n);
                                if let std::collections::btree_map::Entry::Vacant(e) = keys.entry(norm) {
                                    e.insert(row);
                                    self.tables[tid].aliases.push((n.clone(), row));
                                } else {
                                    self.err(
                                        "E0306",
                                        *nspan,
                                        format!("alias `{n}` already names a row of `{}`", t.name.name),
                                        "duplicate key",
                                        Some("remove the alias; keys already match ignoring case and separators".into()),
                                    );
                                }
                            }
                        }
                        None => {
                            let cands: Vec<String> = t
                                .rows
                                .iter()
                                .filter_map(|r| {
                                    if let ast::RowHead::Key(k) = &r.head {
                                        Some(k.clone())
                                    } else {
                                        None
                                    }
                                })
                                .collect();
                            let help = did_you_mean(target, cands.iter().map(|s| s.as_str()), "key");
                            self.err(
                                "E0101",
                                *span,
                                format!("alias target `{target}` is not a key of `{}`", t.name.name),
                                "unknown key",
                                Some(help),
                            );
                        }
                    }
                }
                self.table_keys[tid] = keys;
            }
        }
        // Pass 2b: record fields (they may name enums, tables and other records).
        for item in &items {
            if let ast::Item::Record { name, fields, .. } = item {
                let Some(&ri) = self.record_idx.get(&name.name) else { continue };
                let mut fseen = BTreeMap::new();
                let mut out = Vec::new();
                for (f, te) in fields {
                    let (ty, bounds) = self.type_expr(te);
                    if self.defined(f, &mut fseen, "field") {
                        if !rust_ident_ok(&f.name) {
                            self.err(
                                "E0102",
                                f.span,
                                format!("`{}` is a reserved name", f.name),
                                "reserved",
                                Some("choose another field name".into()),
                            );
                        }
                        out.push((f.name.clone(), ty, bounds));
                    }
                }
                self.records[ri].fields = out;
            }
        }
        // Pass 3: constants.
        for item in &items {
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
        // Pass 4: tables.
        for t in &tables_ast {
            if let Some(&tid) = self.table_idx.get(&t.name.name) {
                self.table(tid, t);
            }
        }
        // Pass 5: resolver signatures, then options each resolver needs (transitively), then bodies.
        let res_ast: Vec<&'a ast::ResolverDecl> = items
            .iter()
            .filter_map(|i| if let ast::Item::Resolver(r) = i { Some(r) } else { None })
            .collect();
        for r in &res_ast {
            if let Some(&rid) = self.resolver_idx.get(&r.name.name) {
                self.signature(rid, r);
            }
        }
        self.add_option_inputs(&res_ast);
        for r in &res_ast {
            if let Some(&rid) = self.resolver_idx.get(&r.name.name) {
                self.check_outputs_set(rid, r);
            }
        }
        for r in &res_ast {
            if let Some(&rid) = self.resolver_idx.get(&r.name.name) {
                let mut ctx = Ctx {
                    rid,
                    scopes: vec![BTreeMap::new()],
                    loops: 0,
                    counter: 0,
                };
                let body = self.block(&mut ctx, &r.body);
                self.resolvers[rid].body = body;
            }
        }
        for (tid, t) in self.tables.iter().enumerate() {
            if !t.used {
                if let Some(ta) = tables_ast.iter().find(|x| self.table_idx.get(&x.name.name) == Some(&tid)) {
                    let span = ta.name.span;
                    let name = t.name.clone();
                    self.diags.push(
                        Diagnostic::warning("W0001", span, format!("table `{name}` is never used by a resolver"))
                            .label("unused")
                            .help("reference it from a resolver, an input type or another table, or remove it"),
                    );
                }
            }
        }
        Some(System {
            name,
            title,
            cite_prefix: self.cite_prefix.clone(),
            options: std::mem::take(&mut self.options),
            enums: std::mem::take(&mut self.enums),
            tables: std::mem::take(&mut self.tables),
            resolvers: std::mem::take(&mut self.resolvers),
            records: std::mem::take(&mut self.records),
        })
    }

    // ---------------------------------------------------------------- types
    fn ty_name(&self, t: &Ty) -> String {
        match t {
            Ty::Int => "int".into(),
            Ty::Dec => "decimal".into(),
            Ty::Bool => "bool".into(),
            Ty::Text => "text".into(),
            Ty::Enum(e) => self.enums.get(*e).map(|e| e.name.clone()).unwrap_or_default(),
            Ty::Key(ts) => ts
                .iter()
                .filter_map(|t| self.tables.get(*t).map(|t| t.name.clone()))
                .collect::<Vec<_>>()
                .join(" | "),
            Ty::Opt(i) => format!("{}?", self.ty_name(i)),
            Ty::List(i) => format!("list {}", self.ty_name(i)),
            Ty::Outcome(r) => format!("outcome of `{}`", self.resolvers.get(*r).map(|r| r.name.as_str()).unwrap_or("")),
            Ty::Row(t) => format!("row of `{}`", self.tables.get(*t).map(|t| t.name.as_str()).unwrap_or("")),
            Ty::Rec(r) => self.records.get(*r).map(|r| r.name.clone()).unwrap_or_default(),
            Ty::NoneLit => "none".into(),
            Ty::EmptyList => "empty list".into(),
            Ty::Error => "?".into(),
        }
    }

    fn type_names(&self) -> Vec<String> {
        let mut v: Vec<String> = ["int", "decimal", "bool", "text"].iter().map(|s| s.to_string()).collect();
        v.extend(self.enums.iter().map(|e| e.name.clone()));
        v.extend(self.records.iter().map(|r| r.name.clone()));
        v.extend(
            self.tables
                .iter()
                .filter(|t| matches!(t.kind, TableKind::Keyed))
                .map(|t| t.name.clone()),
        );
        v.extend(self.aliases.keys().cloned());
        v
    }

    fn type_atom(&mut self, a: &ast::TypeAtom) -> (Ty, Option<(i64, i64)>) {
        let name = a.name.name.as_str();
        if a.bounds.is_some() && name != "int" {
            self.err(
                "E0201",
                a.name.span,
                format!("only `int` takes bounds, not `{name}`"),
                "bounds need an int",
                None,
            );
        }
        match name {
            "int" => {
                if let Some((lo, hi)) = a.bounds {
                    if lo > hi {
                        self.err(
                            "E0201",
                            a.name.span,
                            format!("empty range {lo}..{hi}"),
                            "lower bound above upper",
                            Some("write the bounds as low..high".into()),
                        );
                    }
                }
                (Ty::Int, a.bounds)
            }
            "decimal" => (Ty::Dec, None),
            "bool" => (Ty::Bool, None),
            "text" => (Ty::Text, None),
            _ => {
                if let Some(&e) = self.enum_idx.get(name) {
                    return (Ty::Enum(e), None);
                }
                if let Some(&r) = self.record_idx.get(name) {
                    return (Ty::Rec(r), None);
                }
                if let Some(&t) = self.table_idx.get(name) {
                    self.tables[t].used = true;
                    return (Ty::Key(vec![t]), None);
                }
                if let Some(te) = self.aliases.get(name).copied() {
                    if self.alias_stack.iter().any(|s| s == name) || self.alias_stack.len() > 16 {
                        self.err(
                            "E0201",
                            a.name.span,
                            format!("type `{name}` is defined in terms of itself"),
                            "cycle",
                            None,
                        );
                        return (Ty::Error, None);
                    }
                    self.alias_stack.push(name.to_string());
                    let r = self.type_expr(te);
                    self.alias_stack.pop();
                    return r;
                }
                let help = did_you_mean(name, self.type_names().iter().map(|s| s.as_str()).collect::<Vec<_>>(), "type");
                self.err("E0101", a.name.span, format!("unknown type `{name}`"), "not a type", Some(help));
                (Ty::Error, None)
            }
        }
    }

    fn type_expr(&mut self, te: &ast::TypeExpr) -> (Ty, Option<(i64, i64)>) {
        let mut bounds = None;
        let mut ty = if te.atoms.len() == 1 {
            let (t, b) = self.type_atom(&te.atoms[0]);
            bounds = b;
            t
        } else {
            let mut set = BTreeSet::new();
            for a in &te.atoms {
                match self.type_atom(a).0 {
                    Ty::Key(ts) => set.extend(ts),
                    Ty::Error => {}
                    other => {
                        let n = self.ty_name(&other);
                        self.err(
                            "E0201",
                            a.name.span,
                            format!("`{n}` cannot be part of a union"),
                            "not a keyed table",
                            Some("a union `a | b` joins keyed tables".into()),
                        );
                    }
                }
            }
            Ty::Key(set.into_iter().collect())
        };
        if te.optional {
            ty = Ty::Opt(Box::new(ty));
        }
        for _ in 0..te.list_depth {
            ty = Ty::List(Box::new(ty));
        }
        (ty, bounds)
    }

    // ---------------------------------------------------------------- tables
    fn table(&mut self, tid: usize, t: &ast::TableDecl) {
        if let Some(k) = &t.key {
            self.tables[tid].key_column = k.name.clone();
        }
        let mut cols = Vec::new();
        let mut cseen = BTreeMap::new();
        for (n, te) in &t.columns {
            let (ty, _) = self.type_expr(te);
            if self.defined(n, &mut cseen, "column") {
                if !rust_ident_ok(&n.name) || n.name == self.tables[tid].key_column {
                    self.err(
                        "E0102",
                        n.span,
                        format!("column name `{}` is reserved", n.name),
                        "reserved",
                        Some("choose another column name".into()),
                    );
                }
                cols.push((n.name.clone(), ty));
            }
        }
        self.tables[tid].columns = cols.clone();
        match &t.kind {
            ast::TableKind::Keyed => {
                if cols.is_empty() {
                    self.err(
                        "E0307",
                        t.name.span,
                        format!("keyed table `{}` has no `columns` line", t.name.name),
                        "no columns",
                        Some("add `columns name: type, ...` before the rows".into()),
                    );
                }
                let mut rows = Vec::new();
                for row in &t.rows {
                    let key = match &row.head {
                        ast::RowHead::Key(k) | ast::RowHead::Label(k) => k.clone(),
                        ast::RowHead::Range(..) => {
                            self.err(
                                "E0307",
                                row.head_span,
                                "a keyed table row starts with its key in quotes",
                                "a range here",
                                Some(format!(
                                    "write the key as a string, e.g. `\"Hanza 6/-3\" | ...`; or declare `by int` on table `{}`",
                                    t.name.name
                                )),
                            );
                            continue;
                        }
                    };
                    let cells = self.row_cells(row, &cols, false);
                    rows.push(RowDef {
                        label: key,
                        range: (0, 0),
                        cells,
                    });
                }
                self.tables[tid].rows = rows;
            }
            ast::TableKind::By { index, result } => self.range_table(tid, t, index, result.as_ref(), &cols),
            ast::TableKind::Matrix {
                row_name: _,
                row_ty,
                col_name: _,
                col_ty,
                result,
            } => self.matrix_table(tid, t, row_ty, col_ty, result),
        }
    }

    fn row_cells(&mut self, row: &ast::Row, cols: &[(String, Ty)], arrow_ok: bool) -> Vec<Const> {
        if row.arrow && !arrow_ok {
            self.err(
                "E0307",
                row.span,
                "`=>` rows belong to tables declared with `-> type`",
                "arrow row",
                Some("separate cells with `|`".into()),
            );
            return Vec::new();
        }
        if row.cells.len() != cols.len() {
            let found = row.cells.len();
            let want = cols.len();
            let names = cols.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
            self.err(
                "E0305",
                row.span,
                format!("row has {found} cells but the table has {want} columns"),
                format!("{found} cells"),
                Some(format!("the columns are: {names}")),
            );
            return Vec::new();
        }
        row.cells.iter().zip(cols).map(|(c, (_, ty))| self.cell_const(c, ty)).collect()
    }

    fn cell_const(&mut self, c: &ast::Cell, ty: &Ty) -> Const {
        match (ty, &c.kind) {
            (Ty::Opt(_), CellKind::None) => Const::None,
            (Ty::Opt(inner), _) => self.cell_const(c, inner),
            (Ty::Int, CellKind::Int(v)) => Const::Int(*v),
            (Ty::Dec, CellKind::Int(v)) => Const::Dec(*v, 1),
            (Ty::Dec, CellKind::Dec(n, d)) => Const::Dec(*n, *d),
            (Ty::Bool, CellKind::Bool(b)) => Const::Bool(*b),
            (Ty::Text, CellKind::Str(s)) | (Ty::Text, CellKind::Ident(s)) => Const::Text(s.clone()),
            (Ty::Enum(e), CellKind::Ident(v)) => self.variant_const(*e, v, c.span),
            (Ty::Key(ts), CellKind::Str(k)) | (Ty::Key(ts), CellKind::Ident(k)) => self.key_const(ts, k, c.span),
            (Ty::List(inner), CellKind::List(items)) => Const::List(items.iter().map(|i| self.cell_const(i, inner)).collect()),
            (Ty::Error, _) => Const::None,
            _ => {
                let want = self.ty_name(ty);
                let found = match &c.kind {
                    CellKind::Int(_) => "a whole number",
                    CellKind::Dec(..) => "a decimal",
                    CellKind::Bool(_) => "yes/no",
                    CellKind::Str(_) => "text",
                    CellKind::Ident(_) => "a name",
                    CellKind::None => "`-` (none)",
                    CellKind::List(_) => "a list",
                };
                let help = match ty {
                    Ty::Opt(_) | Ty::NoneLit => None,
                    _ if matches!(c.kind, CellKind::None) => {
                        Some(format!("`-` is allowed only in a column of optional type, e.g. `{want}?`"))
                    }
                    Ty::List(_) => Some("write a list as `[a, b]`".into()),
                    _ => None,
                };
                self.err(
                    "E0201",
                    c.span,
                    format!("expected {want}, found {found}"),
                    format!("not {want}"),
                    help,
                );
                Const::None
            }
        }
    }

    fn variant_const(&mut self, e: usize, v: &str, span: Span) -> Const {
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

    fn key_const(&mut self, tables: &[usize], k: &str, span: Span) -> Const {
        let norm = normalize_key(k);
        for &t in tables {
            if let Some(&row) = self.table_keys.get(t).and_then(|m| m.get(&norm)) {
                self.tables[t].used = true;
                let name = self.tables[t]
                    .rows
                    .get(row)
                    .map(|r| r.label.clone())
                    .unwrap_or_else(|| k.to_string());
                return Const::Key { table: t, row, name };
            }
        }
        let mut cands: Vec<String> = Vec::new();
        for &t in tables {
            cands.extend(self.table_keys.get(t).map(|m| m.keys().cloned()).unwrap_or_default());
        }
        // Suggest real keys, not normalised forms.
        let near_norm = crate::diag::nearest(&norm, cands.iter().map(|s| s.as_str()));
        let mut near = Vec::new();
        for n in near_norm {
            for &t in tables {
                if let Some(&row) = self.table_keys.get(t).and_then(|m| m.get(&n)) {
                    if let Some(label) = self.raw_key(t, row) {
                        near.push(format!("`{label}`"));
                    }
                }
            }
        }
        let tn = self.ty_name(&Ty::Key(tables.to_vec()));
        let help = if near.is_empty() {
            format!("run `rulebook list` to see the rows of `{tn}`")
        } else {
            format!("did you mean {}?", near.join(" or "))
        };
        self.err("E0101", span, format!("`{k}` is not a key of `{tn}`"), "unknown key", Some(help));
        Const::None
    }

    fn raw_key(&self, t: usize, row: usize) -> Option<String> {
        self.tables
            .get(t)
            .and_then(|t| t.rows.get(row))
            .map(|r| r.label.clone())
            .or_else(|| {
                // rows of tables not yet lowered: fall back to the normalised form
                self.table_keys
                    .get(t)
                    .and_then(|m| m.iter().find(|(_, &r)| r == row).map(|(k, _)| k.clone()))
            })
    }

    fn range_table(&mut self, tid: usize, t: &ast::TableDecl, index: &ast::ByIndex, result: Option<&ast::TypeExpr>, cols: &[(String, Ty)]) {
        let (lo, hi, dist) = match index {
            ast::ByIndex::Dice(d) => match self.static_dice(d) {
                Some((spec, lo, hi)) => (lo, hi, spec),
                None => return,
            },
            ast::ByIndex::Type(a) => {
                let (ty, b) = self.type_atom(a);
                if ty != Ty::Int {
                    self.err(
                        "E0201",
                        a.name.span,
                        "a range table is indexed `by` dice or `int lo..hi`",
                        "not an int",
                        None,
                    );
                    return;
                }
                let (lo, hi) = b.unwrap_or((i64::MIN, i64::MAX));
                (lo, hi, None)
            }
        };
        let result_ty = result.map(|r| self.type_expr(r).0);
        if result_ty.is_some() && !cols.is_empty() {
            self.err(
                "E0307",
                t.name.span,
                "a range table has either `-> type` or `columns`, not both",
                "both",
                None,
            );
            return;
        }
        if result_ty.is_none() && cols.is_empty() {
            self.err(
                "E0307",
                t.name.span,
                format!("range table `{}` needs `-> type` or a `columns` line", t.name.name),
                "no result",
                Some("e.g. `table heavy_hit \"...\" [6.61] by 1d6 -> effect { 1..2 => down }`".into()),
            );
            return;
        }
        self.tables[tid].kind = TableKind::Range { lo, hi };
        self.tables[tid].result = result_ty.clone();
        let mut rows: Vec<RowDef> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for row in &t.rows {
            let (rlo, rhi) = match &row.head {
                ast::RowHead::Range(a, b) => (a.unwrap_or(i64::MIN), b.unwrap_or(i64::MAX)),
                _ => {
                    self.err(
                        "E0307",
                        row.head_span,
                        "a range table row starts with a value or range, e.g. `3..4`",
                        "not a range",
                        None,
                    );
                    continue;
                }
            };
            if rlo > rhi {
                self.err(
                    "E0307",
                    row.head_span,
                    format!("empty range {rlo}..{rhi}"),
                    "low above high",
                    Some("write ranges low..high; both ends are included".into()),
                );
                continue;
            }
            let cells = match &result_ty {
                Some(rt) => {
                    if !row.arrow || row.cells.len() != 1 {
                        self.err(
                            "E0305",
                            row.span,
                            "this table gives one value per row: `range => value`",
                            "expected `=> value`",
                            None,
                        );
                        continue;
                    }
                    vec![self.cell_const(&row.cells[0], rt)]
                }
                None => self.row_cells(row, cols, false),
            };
            if rhi < lo || rlo > hi {
                self.warn(
                    "W0002",
                    row.head_span,
                    format!(
                        "row `{}` is outside the table's index range {}",
                        range_label(rlo, rhi),
                        range_label(lo, hi)
                    ),
                    "never used",
                    Some("remove the row or widen the `by` range".into()),
                );
            }
            rows.push(RowDef {
                label: range_label(rlo, rhi),
                range: (rlo, rhi),
                cells,
            });
            spans.push(row.head_span);
        }
        // Overlaps between rows, with the values involved.
        for i in 0..rows.len() {
            for j in 0..i {
                let (a, b) = (rows[i].range, rows[j].range);
                let (olo, ohi) = (a.0.max(b.0), a.1.min(b.1));
                if olo <= ohi {
                    let line = self.line_of(spans[j]);
                    self.err(
                        "E0302",
                        spans[i],
                        format!(
                            "rows `{}` and `{}` overlap on {}",
                            rows[j].label,
                            rows[i].label,
                            range_label(olo, ohi)
                        ),
                        "overlaps an earlier row",
                        Some(format!("the earlier row is on line {line}; each value must map to exactly one row")),
                    );
                }
            }
        }
        // Gaps inside the index range, with their probability when the index is a roll.
        let mut sorted: Vec<(i64, i64)> = rows.iter().map(|r| r.range).collect();
        sorted.sort();
        let mut gaps = Vec::new();
        let mut next = lo as i128;
        for (a, b) in sorted {
            if (a as i128) > next && next <= hi as i128 {
                gaps.push((next as i64, (a as i128 - 1).min(hi as i128) as i64));
            }
            next = next.max(b as i128 + 1);
        }
        if next <= hi as i128 {
            gaps.push((next as i64, hi));
        }
        for (glo, ghi) in gaps {
            let mass = dist.as_ref().map(|d| {
                let (n, total) = d
                    .iter()
                    .filter(|(v, _)| *v >= glo && *v <= ghi)
                    .fold((0u64, 0u64), |acc, (_, c)| (acc.0 + c, acc.1));
                let total_all: u64 = d.iter().map(|(_, c)| c).sum();
                let _ = total;
                let g = num_integer::gcd(n, total_all.max(1)).max(1);
                format!(" (probability {}/{})", n / g, total_all.max(1) / g)
            });
            self.err(
                "E0301",
                t.name.span,
                format!(
                    "table `{}` has no row for {}{}",
                    t.name.name,
                    range_label(glo, ghi),
                    mass.unwrap_or_default()
                ),
                "gap in this table",
                Some(format!(
                    "add a row covering {} or narrow the table's `by` range",
                    range_label(glo, ghi)
                )),
            );
        }
        self.tables[tid].rows = rows;
    }

    fn matrix_table(&mut self, tid: usize, t: &ast::TableDecl, row_ty: &ast::Ident, col_ty: &ast::Ident, result: &ast::TypeExpr) {
        let (rty, _) = self.type_atom(&ast::TypeAtom {
            name: row_ty.clone(),
            bounds: None,
        });
        let (cty, _) = self.type_atom(&ast::TypeAtom {
            name: col_ty.clone(),
            bounds: None,
        });
        let (Ty::Enum(re), Ty::Enum(ce)) = (rty, cty) else {
            self.err("E0201", row_ty.span, "matrix axes must be enums", "not an enum", None);
            return;
        };
        let res = self.type_expr(result).0;
        self.tables[tid].kind = TableKind::Matrix {
            row_enum: re,
            col_enum: ce,
        };
        self.tables[tid].result = Some(res.clone());
        let Some(header) = &t.header else {
            self.err(
                "E0307",
                t.name.span,
                "a matrix needs a header row of column labels: `| a | b | ...`",
                "no header",
                None,
            );
            return;
        };
        let cvars: Vec<String> = self.enums[ce].variants.iter().map(|(n, _)| n.clone()).collect();
        let mut col_pos = Vec::new();
        for h in header {
            match cvars.iter().position(|v| *v == h.name) {
                Some(i) => col_pos.push(i),
                None => {
                    let help = did_you_mean(&h.name, cvars.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "variant");
                    let en = self.enums[ce].name.clone();
                    self.err(
                        "E0101",
                        h.span,
                        format!("`{}` is not a variant of `{en}`", h.name),
                        "unknown column",
                        Some(help),
                    );
                    return;
                }
            }
        }
        for (i, v) in cvars.iter().enumerate() {
            if !col_pos.contains(&i) {
                self.err(
                    "E0303",
                    t.name.span,
                    format!("matrix `{}` has no column for `{v}`", t.name.name),
                    "missing column",
                    Some(format!("add `| {v}` to the header row")),
                );
            }
        }
        let rvars: Vec<String> = self.enums[re].variants.iter().map(|(n, _)| n.clone()).collect();
        let none_ok = matches!(res, Ty::Opt(_));
        let mut grid: Vec<Option<Vec<Const>>> = vec![None; rvars.len()];
        for row in &t.rows {
            let label = match &row.head {
                ast::RowHead::Label(l) => l.clone(),
                _ => {
                    self.err(
                        "E0307",
                        row.head_span,
                        "a matrix row starts with its row label",
                        "not a label",
                        None,
                    );
                    continue;
                }
            };
            let Some(ri) = rvars.iter().position(|v| *v == label) else {
                let help = did_you_mean(&label, rvars.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "variant");
                self.err(
                    "E0101",
                    row.head_span,
                    format!("`{label}` is not a variant of `{}`", self.enums[re].name),
                    "unknown row",
                    Some(help),
                );
                continue;
            };
            if row.cells.len() != header.len() {
                self.err(
                    "E0303",
                    row.span,
                    format!("row `{label}` has {} cells but the header has {}", row.cells.len(), header.len()),
                    "missing matrix cell",
                    Some("fill every cell; write `-` where an attack is impossible, if the result type is optional".into()),
                );
                continue;
            }
            let mut cells = vec![Const::None; cvars.len()];
            for (c, &pos) in row.cells.iter().zip(&col_pos) {
                if matches!(c.kind, CellKind::None) && !none_ok {
                    let rn = self.ty_name(&res);
                    self.err(
                        "E0303",
                        c.span,
                        format!("empty cell in matrix `{}` at `{label}`, `{}`", t.name.name, cvars[pos]),
                        "missing matrix cell",
                        Some(format!("give a value, or declare the result as `{rn}?` to allow `-`")),
                    );
                    continue;
                }
                cells[pos] = self.cell_const(c, &res);
            }
            if grid[ri].is_some() {
                self.err(
                    "E0306",
                    row.head_span,
                    format!("row `{label}` appears twice"),
                    "duplicate row",
                    None,
                );
            }
            grid[ri] = Some(cells);
        }
        let mut rows = Vec::new();
        for (i, g) in grid.into_iter().enumerate() {
            match g {
                Some(cells) => rows.push(RowDef {
                    label: rvars[i].clone(),
                    range: (i as i64, i as i64),
                    cells,
                }),
                None => {
                    self.err(
                        "E0303",
                        t.name.span,
                        format!("matrix `{}` has no row for `{}`", t.name.name, rvars[i]),
                        "missing row",
                        Some(format!("add a row `{} | ...`", rvars[i])),
                    );
                    rows.push(RowDef {
                        label: rvars[i].clone(),
                        range: (i as i64, i as i64),
                        cells: vec![Const::None; cvars.len()],
                    });
                }
            }
        }
        self.tables[tid].rows = rows;
    }

    /// Dice with literal parameters: their distribution (for gap probabilities) and range.
    fn static_dice(&mut self, d: &ast::DiceExpr) -> Option<DiceDomain> {
        let mut ctx = Ctx {
            rid: usize::MAX,
            scopes: vec![BTreeMap::new()],
            loops: 0,
            counter: 0,
        };
        let dice = self.dice(&mut ctx, d)?;
        let ExprKind::Const(Const::Int(count)) = dice.count.kind else {
            self.err(
                "E0403",
                d.span,
                "a table's `by` dice must have a fixed count",
                "count not fixed",
                None,
            );
            return None;
        };
        let spec = runtime_spec(&dice, count)?;
        let dist = spec.distribution().ok();
        let (lo, hi) = match &dist {
            Some(v) if !v.is_empty() => (v[0].0, v[v.len() - 1].0),
            _ => (spec.min(), spec.max()),
        };
        Some((dist, lo, hi))
    }

    // ---------------------------------------------------------------- resolvers
    fn param(&mut self, p: &ast::Param, output: bool) -> Option<Param> {
        let (ty, bounds) = self.type_expr(&p.ty);
        if !rust_ident_ok(&p.name.name) {
            self.err(
                "E0102",
                p.name.span,
                format!("`{}` is a reserved name", p.name.name),
                "reserved",
                Some("choose another name".into()),
            );
            return None;
        }
        if output && bounds.is_some() {
            self.err("E0201", p.ty.span, "outputs do not take bounds", "bounds on an output", None);
        }
        let default = p.default.as_ref().map(|c| {
            let k = self.cell_const(c, &ty);
            if let (Some((lo, hi)), Const::Int(v)) = (bounds, &k) {
                if *v < lo || *v > hi {
                    self.err("E0201", c.span, format!("default {v} is outside {lo}..{hi}"), "out of range", None);
                }
            }
            k
        });
        let cite = p.cite.as_ref().map(|c| self.cite(c)).unwrap_or_default();
        Some(Param {
            name: p.name.name.clone(),
            ty,
            bounds,
            default,
            doc: p.doc.clone().unwrap_or_default(),
            cite,
            is_option: false,
        })
    }

    fn signature(&mut self, rid: usize, r: &ast::ResolverDecl) {
        let mut seen = BTreeMap::new();
        let mut inputs = Vec::new();
        for p in &r.inputs {
            if self.defined(&p.name, &mut seen, "input") {
                if self.option_idx.contains_key(&p.name.name) {
                    self.err(
                        "E0102",
                        p.name.span,
                        format!("input `{}` has the name of an optional rule", p.name.name),
                        "clashes with an option",
                        Some(format!(
                            "options become inputs by themselves; use `option {}` in expressions",
                            p.name.name
                        )),
                    );
                }
                if let Some(x) = self.param(p, false) {
                    inputs.push(x);
                }
            }
        }
        let mut oseen = BTreeMap::new();
        let mut outputs = Vec::new();
        for p in &r.outputs {
            if self.defined(&p.name, &mut oseen, "output") {
                if let Some(x) = self.param(p, true) {
                    outputs.push(x);
                }
            }
        }
        self.resolvers[rid].inputs = inputs;
        self.resolvers[rid].outputs = outputs;
    }

    fn add_option_inputs(&mut self, res_ast: &[&ast::ResolverDecl]) {
        let n = self.resolvers.len();
        let mut direct: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        let mut calls: Vec<Vec<(usize, Span)>> = vec![Vec::new(); n];
        for r in res_ast {
            let Some(&rid) = self.resolver_idx.get(&r.name.name) else {
                continue;
            };
            let mut opts = Vec::new();
            let mut cs = Vec::new();
            scan_stmts(&r.body, &mut opts, &mut cs);
            for o in opts {
                if let Some(&oi) = self.option_idx.get(&o) {
                    direct[rid].insert(oi);
                }
            }
            for (c, span) in cs {
                if let Some(&ci) = self.resolver_idx.get(&c) {
                    calls[rid].push((ci, span));
                }
            }
        }
        // Cycles: resolvers calling each other would never finish.
        let mut state = vec![0u8; n];
        for start in 0..n {
            self.find_cycle(start, &calls, &mut state, &mut Vec::new());
        }
        let mut all = direct.clone();
        loop {
            let mut changed = false;
            for r in 0..n {
                for (c, _) in calls[r].clone() {
                    let add: Vec<usize> = all[c].difference(&all[r]).copied().collect();
                    if !add.is_empty() {
                        all[r].extend(add);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // An optional rule that no resolver consults would be a switch that does nothing.
        let used: BTreeSet<usize> = all.iter().flatten().copied().collect();
        for (oi, o) in self.options.clone().iter().enumerate() {
            if !used.contains(&oi) {
                if let Some(span) = self.option_spans.get(oi).copied() {
                    self.warn(
                        "W0004",
                        span,
                        format!("optional rule `{}` is never consulted by a resolver", o.name),
                        "unused option",
                        Some(format!(
                            "read it in the resolvers it changes with `option {}`, or remove it",
                            o.name
                        )),
                    );
                }
            }
        }
        for (r, opts) in all.into_iter().enumerate() {
            for o in opts {
                let od = &self.options[o];
                let p = Param {
                    name: od.name.clone(),
                    ty: Ty::Bool,
                    bounds: None,
                    default: Some(Const::Bool(false)),
                    doc: format!("optional rule: {}", od.title),
                    cite: od.cite.clone(),
                    is_option: true,
                };
                self.resolvers[r].inputs.push(p);
            }
        }
    }

    /// E0204: an output without a default must be set on every path, before each `return` too.
    fn check_outputs_set(&mut self, rid: usize, r: &ast::ResolverDecl) {
        let required: BTreeSet<String> = self.resolvers[rid]
            .outputs
            .iter()
            .filter(|o| o.default.is_none())
            .map(|o| o.name.clone())
            .collect();
        if required.is_empty() {
            return;
        }
        let mut missing_at = Vec::new();
        let end = self.assigned(&r.body, BTreeSet::new(), &required, &mut missing_at);
        if let Some(set) = end {
            let missing: Vec<String> = required.difference(&set).cloned().collect();
            if !missing.is_empty() {
                missing_at.push((r.name.span, missing, false));
            }
        }
        for (span, missing, at_return) in missing_at {
            let list = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
            let (msg, label) = if at_return {
                (
                    format!(
                        "this `return` can leave output{} {list} unset",
                        if missing.len() == 1 { "" } else { "s" }
                    ),
                    "returns here",
                )
            } else {
                (
                    format!(
                        "output{} {list} of `{}` may be left unset",
                        if missing.len() == 1 { "" } else { "s" },
                        r.name.name
                    ),
                    "some path does not set it",
                )
            };
            let first = &missing[0];
            self.err(
                "E0204",
                span,
                msg,
                label,
                Some(format!(
                    "`set {first} = ...` on every path, or give it a default: `out {first}: type = value`"
                )),
            );
        }
    }

    /// The outputs set on every path through `stmts` (None when every path returns).
    fn assigned(
        &self,
        stmts: &[ast::Stmt],
        mut set: BTreeSet<String>,
        required: &BTreeSet<String>,
        missing_at: &mut Vec<(Span, Vec<String>, bool)>,
    ) -> Option<BTreeSet<String>> {
        use ast::StmtKind as K;
        let meet = |acc: Option<BTreeSet<String>>, x: Option<BTreeSet<String>>| match (acc, x) {
            (None, x) | (x, None) => x,
            (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
        };
        for st in stmts {
            match &st.kind {
                K::Set { name, .. } => {
                    set.insert(name.name.clone());
                }
                K::Return => {
                    let missing: Vec<String> = required.difference(&set).cloned().collect();
                    if !missing.is_empty() {
                        missing_at.push((st.span, missing, true));
                    }
                    return None;
                }
                K::Break => return None,
                K::If { arms, otherwise } => {
                    let mut acc = None;
                    for (_, body) in arms {
                        acc = meet(
                            acc,
                            self.assigned(body, set.clone(), required, missing_at).map(Some).unwrap_or(None),
                        );
                    }
                    let other = match otherwise {
                        Some(b) => self.assigned(b, set.clone(), required, missing_at),
                        None => Some(set.clone()),
                    };
                    match meet(acc, other) {
                        Some(s) => set = s,
                        None => return None,
                    }
                }
                K::Match { arms, .. } => {
                    let mut acc = None;
                    let mut names = BTreeSet::new();
                    let mut wild = false;
                    for (pats, body) in arms {
                        for (p, _) in pats {
                            match p {
                                ast::Pattern::Wild => wild = true,
                                ast::Pattern::Name(n) => {
                                    names.insert(n.name.clone());
                                }
                                ast::Pattern::Range(..) => {}
                            }
                        }
                        acc = meet(acc, self.assigned(body, set.clone(), required, missing_at));
                    }
                    // Exhaustive when some enum's variants are all named.
                    let exhaustive = wild
                        || self
                            .enums
                            .iter()
                            .any(|e| !e.variants.is_empty() && e.variants.iter().all(|(v, _)| names.contains(v)));
                    if !exhaustive {
                        acc = meet(acc, Some(set.clone()));
                    }
                    match acc {
                        Some(s) => set = s,
                        None => return None,
                    }
                }
                K::Repeat { body, .. } | K::For { body, .. } => {
                    // The body may run zero times (or stop at a `break`): only its `return`s count.
                    let _ = self.assigned(body, set.clone(), required, missing_at);
                }
                _ => {}
            }
        }
        Some(set)
    }

    fn find_cycle(&mut self, r: usize, calls: &[Vec<(usize, Span)>], state: &mut [u8], path: &mut Vec<usize>) {
        if state[r] == 2 {
            return;
        }
        state[r] = 1;
        path.push(r);
        for &(c, span) in &calls[r] {
            if state[c] == 1 {
                let names: Vec<String> = path
                    .iter()
                    .skip_while(|&&x| x != c)
                    .map(|&x| self.resolvers[x].name.clone())
                    .chain(std::iter::once(self.resolvers[c].name.clone()))
                    .collect();
                self.err(
                    "E0501",
                    span,
                    format!("resolvers call each other in a cycle: {}", names.join(" → ")),
                    "this call closes the cycle",
                    Some("a resolver may not call itself, directly or through others; use `repeat` for repeated rolls".into()),
                );
            } else if state[c] == 0 {
                self.find_cycle(c, calls, state, path);
            }
        }
        path.pop();
        state[r] = 2;
    }

    fn block(&mut self, ctx: &mut Ctx, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        ctx.scopes.push(BTreeMap::new());
        let out = stmts.iter().filter_map(|s| self.stmt(ctx, s)).collect();
        ctx.scopes.pop();
        out
    }

    fn stmt(&mut self, ctx: &mut Ctx, s: &ast::Stmt) -> Option<Stmt> {
        use ast::StmtKind as K;
        Some(match &s.kind {
            K::Let {
                name,
                value,
                cite,
                mods,
                clamp,
            } => {
                let v = self.expr(ctx, value, None);
                let mut ty = v.ty.clone();
                let mut iv = v.iv;
                let mut ms = Vec::new();
                for m in mods {
                    match m {
                        ast::ModItem::One(one) => {
                            if let Some((mm, mty, miv)) = self.modifier(ctx, one) {
                                ty = self.numeric_join(&ty, &mty, one.span);
                                iv = add_iv(iv, miv);
                                ms.push(mm);
                            }
                        }
                        ast::ModItem::Highest { name, mods, span } => {
                            let mut group = Vec::new();
                            let mut giv: Option<Iv> = None;
                            for one in mods {
                                if let Some((mm, mty, miv)) = self.modifier(ctx, one) {
                                    ty = self.numeric_join(&ty, &mty, one.span);
                                    giv = Some(giv.map_or(miv, |g| g.join(miv)));
                                    group.push(mm);
                                }
                            }
                            let _ = span;
                            if let Some(g) = giv {
                                iv = add_iv(iv, g.join(Iv::exact(0)));
                            }
                            ms.push(Mod::Highest {
                                name: name.clone(),
                                mods: group,
                            });
                        }
                    }
                }
                if !mods.is_empty() && !matches!(ty, Ty::Int | Ty::Dec | Ty::Error) {
                    let n = self.ty_name(&ty);
                    self.err(
                        "E0201",
                        value.span,
                        format!("modifiers add to a number, but this value is {n}"),
                        "not a number",
                        None,
                    );
                }
                let mut value_e = v;
                if ty == Ty::Dec && value_e.ty == Ty::Int {
                    value_e = to_dec(value_e);
                }
                let clamp = clamp.as_ref().map(|(lo, hi, cspan)| {
                    if !matches!(ty, Ty::Int | Ty::Dec) {
                        self.err("E0201", *cspan, "only numbers can be clamped", "not a number", None);
                    }
                    if let Some(l) = lo {
                        iv.lo = if iv.known { iv.lo.max(*l as i128) } else { *l as i128 };
                    }
                    if let Some(h) = hi {
                        iv.hi = if iv.known { iv.hi.min(*h as i128) } else { *h as i128 };
                    }
                    // Clamped on both sides, the value is bounded whatever it was before.
                    if lo.is_some() && hi.is_some() {
                        iv.known = true;
                    }
                    (*lo, *hi)
                });
                self.check_iv(iv, value.span);
                let var = ctx.bind(&name.name, ty.clone(), iv, false);
                Stmt::Let {
                    var,
                    name: name.name.clone(),
                    ty,
                    value: value_e,
                    cite: cite.as_ref().map(|c| self.cite(c)),
                    mods: ms,
                    clamp,
                }
            }
            K::Var {
                name,
                ty: declared,
                value,
                cite,
            } => {
                let want = declared.as_ref().map(|t| self.type_expr(t).0);
                let v = self.expr(ctx, value, want.as_ref());
                let v = match &want {
                    Some(w) => self.coerce(v, w),
                    None => v,
                };
                let ty = v.ty.clone();
                if matches!(ty, Ty::NoneLit | Ty::EmptyList) {
                    self.err(
                        "E0201",
                        value.span,
                        "a `var` needs a value of known type to start",
                        "type unknown",
                        Some("give its type: `var xs: list unit = []`".into()),
                    );
                }
                let var = ctx.bind(&name.name, ty.clone(), Iv::UNKNOWN, true);
                let cite = cite.as_ref().map(|c| self.cite(c));
                Stmt::Var {
                    var,
                    name: name.name.clone(),
                    ty,
                    value: v,
                    cite,
                }
            }
            K::Assign { name, value, cite } => {
                let Some(local) = ctx.lookup(&name.name).cloned() else {
                    let cands: Vec<String> = ctx
                        .scopes
                        .iter()
                        .flat_map(|s| s.iter().filter(|(_, l)| l.mutable).map(|(k, _)| k.clone()))
                        .collect();
                    let help = did_you_mean(&name.name, cands.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "var");
                    self.err(
                        "E0101",
                        name.span,
                        format!("no `var {}` to assign to", name.name),
                        "unknown variable",
                        Some(help),
                    );
                    return None;
                };
                if !local.mutable {
                    self.err(
                        "E0203",
                        name.span,
                        format!("`{}` is a `let` and cannot change", name.name),
                        "not a var",
                        Some(format!(
                            "declare it with `var {} = ...` to change it later, or use `set` for outputs",
                            name.name
                        )),
                    );
                }
                let v = self.expr(ctx, value, Some(&local.ty));
                let v = self.coerce(v, &local.ty);
                let cite = cite.as_ref().map(|c| self.cite(c));
                Stmt::Assign {
                    var: local.rust,
                    name: name.name.clone(),
                    ty: local.ty.clone(),
                    value: v,
                    cite,
                }
            }
            K::Roll { name, dice, label, cite } => {
                let d = self.dice(ctx, dice)?;
                let iv = dice_iv(&d);
                let var = ctx.bind(&name.name, Ty::Int, iv, false);
                Stmt::Roll {
                    var,
                    label: label.clone().unwrap_or_else(|| name.name.clone()),
                    dice: d,
                    cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
                }
            }
            K::Check {
                name,
                left,
                op,
                right,
                cite,
            } => {
                let (l, r) = self.pair(ctx, left, right);
                self.comparable(&l, &r, *op, s.span);
                let left_text = self.text_of(left.span);
                let right_text = self.text_of(right.span);
                let var = ctx.bind(&name.name, Ty::Bool, Iv::UNKNOWN, false);
                Stmt::Check {
                    var,
                    left: l,
                    op: *op,
                    right: r,
                    left_text,
                    right_text,
                    cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
                }
            }
            K::Set { name, value, cite } => {
                let outs = self.resolvers[ctx.rid].outputs.clone();
                let Some(o) = outs.iter().find(|o| o.name == name.name) else {
                    let help = did_you_mean(&name.name, outs.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), "output");
                    self.err(
                        "E0101",
                        name.span,
                        format!("`{}` is not an output of `{}`", name.name, self.resolvers[ctx.rid].name),
                        "unknown output",
                        Some(help),
                    );
                    return None;
                };
                let v = self.expr(ctx, value, Some(&o.ty));
                let v = self.coerce(v, &o.ty);
                Stmt::Set {
                    field: name.name.clone(),
                    value: v,
                    cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
                }
            }
            K::If { arms, otherwise } => {
                let mut out = Vec::new();
                for (c, body) in arms {
                    let ce = self.expr(ctx, c, Some(&Ty::Bool));
                    let ce = self.coerce(ce, &Ty::Bool);
                    out.push((ce, self.block(ctx, body)));
                }
                let otherwise = otherwise.as_ref().map(|b| self.block(ctx, b)).unwrap_or_default();
                Stmt::If { arms: out, otherwise }
            }
            K::Match { scrutinee, arms } => {
                let se = self.expr(ctx, scrutinee, None);
                let mut out = Vec::new();
                for (pats, body) in arms {
                    let mut ps = Vec::new();
                    for (p, pspan) in pats {
                        ps.push(match (p, &se.ty) {
                            (ast::Pattern::Wild, _) => Pattern::Wild,
                            (ast::Pattern::Range(a, b), Ty::Int) => Pattern::Range(*a, *b),
                            (ast::Pattern::Name(n), Ty::Enum(e)) => match self.variant_const(*e, &n.name, n.span) {
                                Const::Enum(e, v) => Pattern::Variant(e, v),
                                _ => Pattern::Wild,
                            },
                            (_, Ty::Error) => Pattern::Wild,
                            _ => {
                                let tn = self.ty_name(&se.ty);
                                self.err(
                                    "E0201",
                                    *pspan,
                                    format!("this pattern cannot match a value of type {tn}"),
                                    "wrong kind of pattern",
                                    Some("match numbers with ranges like `3..4` and enums with variant names".into()),
                                );
                                Pattern::Wild
                            }
                        });
                    }
                    out.push((ps, self.block(ctx, body)));
                }
                Stmt::Match { scrutinee: se, arms: out }
            }
            K::Call {
                name,
                resolver,
                args,
                cite,
            } => {
                let Some(&callee) = self.resolver_idx.get(&resolver.name) else {
                    let help = did_you_mean(
                        &resolver.name,
                        self.resolvers.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
                        "resolver",
                    );
                    self.err(
                        "E0101",
                        resolver.span,
                        format!("unknown resolver `{}`", resolver.name),
                        "not a resolver",
                        Some(help),
                    );
                    return None;
                };
                let inputs = self.resolvers[callee].inputs.clone();
                let mut given: BTreeMap<String, Expr> = BTreeMap::new();
                for (an, ae) in args {
                    match inputs.iter().find(|p| p.name == an.name) {
                        Some(p) if p.is_option => {
                            self.err(
                                "E0202",
                                an.span,
                                format!("`{}` is an optional rule and passes through by itself", an.name),
                                "not an argument",
                                Some("remove it; the caller's own option setting is used".into()),
                            );
                        }
                        Some(p) => {
                            let e = self.expr(ctx, ae, Some(&p.ty));
                            let e = self.coerce(e, &p.ty);
                            if let (Some((lo, hi)), true) = (p.bounds, e.iv.known) {
                                if e.iv.lo < lo as i128 || e.iv.hi > hi as i128 {
                                    self.err(
                                        "E0304",
                                        ae.span,
                                        format!(
                                            "`{}` can be {}..{}, outside the input's range {lo}..{hi}",
                                            an.name, e.iv.lo, e.iv.hi
                                        ),
                                        "may be out of range",
                                        Some("clamp the value or widen the callee's input range".into()),
                                    );
                                }
                            }
                            given.insert(an.name.clone(), e);
                        }
                        None => {
                            let help = did_you_mean(
                                &an.name,
                                inputs.iter().filter(|p| !p.is_option).map(|p| p.name.as_str()).collect::<Vec<_>>(),
                                "input",
                            );
                            self.err(
                                "E0202",
                                an.span,
                                format!("`{}` has no input `{}`", resolver.name, an.name),
                                "unknown argument",
                                Some(help),
                            );
                        }
                    }
                }
                let mut full = Vec::new();
                for p in &inputs {
                    let e = if p.is_option {
                        Some(Expr {
                            kind: ExprKind::Input(p.name.clone()),
                            ty: Ty::Bool,
                            iv: Iv::UNKNOWN,
                            span: resolver.span,
                        })
                    } else if let Some(e) = given.remove(&p.name) {
                        Some(e)
                    } else if let Some(d) = &p.default {
                        let iv = if let Const::Int(v) = d { Iv::exact(*v) } else { Iv::UNKNOWN };
                        Some(Expr {
                            kind: ExprKind::Const(d.clone()),
                            ty: p.ty.clone(),
                            iv,
                            span: resolver.span,
                        })
                    } else {
                        let tn = self.ty_name(&p.ty);
                        self.err(
                            "E0202",
                            resolver.span,
                            format!("call to `{}` is missing input `{}` ({tn})", resolver.name, p.name),
                            "missing argument",
                            Some(format!("add `{}: ...` to the call", p.name)),
                        );
                        None
                    };
                    if let Some(e) = e {
                        full.push((p.name.clone(), e));
                    }
                }
                let var = ctx.bind(&name.name, Ty::Outcome(callee), Iv::UNKNOWN, false);
                Stmt::Call {
                    var,
                    resolver: callee,
                    args: full,
                    cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
                }
            }
            K::Require {
                cond,
                message,
                message_span,
                cite,
            } => {
                let c = self.expr(ctx, cond, Some(&Ty::Bool));
                let c = self.coerce(c, &Ty::Bool);
                let parts = self.message(ctx, message, *message_span);
                Stmt::Require {
                    cond: c,
                    message: parts,
                    cite: self.cite(cite),
                }
            }
            K::Note { text, cite } => Stmt::Note {
                text: text.clone(),
                cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
            },
            K::Return => Stmt::Return,
            K::Break => {
                if ctx.loops == 0 {
                    self.err(
                        "E0203",
                        s.span,
                        "`break` outside a `repeat` or `for`",
                        "not in a loop",
                        Some("use `return` to end the resolver".into()),
                    );
                }
                Stmt::Break
            }
            K::Repeat { times, body } => {
                if *times < 1 || *times > 100_000 {
                    self.err(
                        "E0203",
                        s.span,
                        format!("`repeat up to {times}` is outside 1..100000"),
                        "bad loop bound",
                        Some("loops need a finite bound so every resolution ends".into()),
                    );
                }
                ctx.loops += 1;
                let b = self.block(ctx, body);
                ctx.loops -= 1;
                Stmt::Repeat { times: *times, body: b }
            }
            K::For { var, list, body } => {
                let le = self.expr(ctx, list, None);
                let elem = match &le.ty {
                    Ty::List(t) => (**t).clone(),
                    Ty::Error => Ty::Error,
                    other => {
                        let tn = self.ty_name(other);
                        self.err("E0201", list.span, format!("`for` needs a list, found {tn}"), "not a list", None);
                        Ty::Error
                    }
                };
                ctx.scopes.push(BTreeMap::new());
                let iv = elem_iv(&le);
                let rust = ctx.bind(&var.name, elem, iv, false);
                ctx.loops += 1;
                let b = self.block(ctx, body);
                ctx.loops -= 1;
                ctx.scopes.pop();
                Stmt::For {
                    var: rust,
                    list: le,
                    body: b,
                }
            }
        })
    }

    fn modifier(&mut self, ctx: &mut Ctx, m: &ast::Modifier) -> Option<(Mod, Ty, Iv)> {
        let v = self.expr(ctx, &m.value, None);
        if !matches!(v.ty, Ty::Int | Ty::Dec | Ty::Error) {
            let tn = self.ty_name(&v.ty);
            self.err(
                "E0201",
                m.value.span,
                format!("a modifier's value must be a number, found {tn}"),
                "not a number",
                None,
            );
            return None;
        }
        let when = m.when.as_ref().map(|w| {
            let e = self.expr(ctx, w, Some(&Ty::Bool));
            self.coerce(e, &Ty::Bool)
        });
        if let Some(Expr {
            kind: ExprKind::Const(Const::Bool(false)),
            ..
        }) = &when
        {
            self.warn(
                "W0003",
                m.span,
                format!("modifier \"{}\" can never apply", m.name),
                "condition is always false",
                None,
            );
        }
        let iv = if when.is_some() { v.iv.join(Iv::exact(0)) } else { v.iv };
        let ty = v.ty.clone();
        Some((
            Mod::One {
                value: v,
                name: m.name.clone(),
                when,
                cite: self.cite(&m.cite),
            },
            ty,
            iv,
        ))
    }

    fn message(&mut self, ctx: &mut Ctx, msg: &str, span: Span) -> Vec<MsgPart> {
        let mut parts = Vec::new();
        let mut rest = msg;
        let mut offset = span.start + 1;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            if open > 0 {
                parts.push(MsgPart::Text(rest[..open].to_string()));
            }
            let path = &rest[open + 1..open + close];
            let pspan = Span {
                file: span.file,
                start: offset + open + 1,
                end: offset + open + close,
            };
            let mut segs = path.split('.');
            let head = segs.next().unwrap_or("").trim();
            let mut e = ast::Expr {
                kind: ast::ExprKind::Name(head.to_string()),
                span: pspan,
            };
            for seg in segs {
                e = ast::Expr {
                    kind: ast::ExprKind::Field(
                        Box::new(e),
                        ast::Ident {
                            name: seg.trim().to_string(),
                            span: pspan,
                        },
                    ),
                    span: pspan,
                };
            }
            parts.push(MsgPart::Value(self.expr(ctx, &e, None)));
            offset += open + close + 1;
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(MsgPart::Text(rest.to_string()));
        }
        parts
    }

    fn dice(&mut self, ctx: &mut Ctx, d: &ast::DiceExpr) -> Option<Dice> {
        let count = match &d.count {
            ast::DiceCount::Lit(n) => Expr {
                kind: ExprKind::Const(Const::Int(*n)),
                ty: Ty::Int,
                iv: Iv::exact(*n),
                span: d.span,
            },
            ast::DiceCount::Expr(e) => {
                let x = self.expr(ctx, e, Some(&Ty::Int));
                self.coerce(x, &Ty::Int)
            }
        };
        if count.iv.known && (count.iv.lo < 0 || count.iv.hi > 1000) {
            self.err(
                "E0403",
                d.span,
                format!("dice count can be {}..{}; it must stay within 0..1000", count.iv.lo, count.iv.hi),
                "bad dice count",
                Some("clamp the count, e.g. `(clamp(n, 0, 10))d6`".into()),
            );
        }
        if !(2..=1000).contains(&d.sides) {
            self.err(
                "E0403",
                d.span,
                format!("dice with {} sides", d.sides),
                "bad die",
                Some("dice have 2 to 1000 sides".into()),
            );
            return None;
        }
        let mut read = Read::Sum;
        let mut zero = false;
        let mut reroll = None;
        let lit_count = if let ExprKind::Const(Const::Int(n)) = count.kind {
            Some(n)
        } else {
            None
        };
        for m in &d.mods {
            match m {
                ast::DiceMod::Keep { highest, n } | ast::DiceMod::Drop { highest, n } => {
                    let Some(c) = lit_count else {
                        self.err("E0403", d.span, "keep/drop needs a fixed number of dice", "count not fixed", None);
                        return None;
                    };
                    let drop = matches!(m, ast::DiceMod::Drop { .. });
                    let keep = if drop { c - n } else { *n };
                    if keep < 1 || keep > c {
                        self.err("E0403", d.span, format!("cannot keep {keep} of {c} dice"), "bad keep/drop", None);
                        return None;
                    }
                    // "drop highest 1" keeps the lowest.
                    let keep_high = if drop { !highest } else { *highest };
                    read = if keep_high {
                        Read::KeepHighest(keep)
                    } else {
                        Read::KeepLowest(keep)
                    };
                }
                ast::DiceMod::Flux | ast::DiceMod::BadFlux => {
                    if lit_count != Some(2) {
                        self.err(
                            "E0403",
                            d.span,
                            "flux is the difference of exactly two dice",
                            "needs 2 dice",
                            Some("write `2d6 flux`".into()),
                        );
                        return None;
                    }
                    read = if matches!(m, ast::DiceMod::Flux) {
                        Read::Flux
                    } else {
                        Read::BadFlux
                    };
                }
                ast::DiceMod::ZeroBased => zero = true,
                ast::DiceMod::Each { value, floor } => {
                    let v = self.expr(ctx, value, Some(&Ty::Int));
                    let v = self.coerce(v, &Ty::Int);
                    if !v.iv.known || v.iv.lo < -100 || v.iv.hi > 100 {
                        self.err(
                            "E0403",
                            value.span,
                            "a per-die modifier must stay within -100..100",
                            "unbounded",
                            Some("clamp it".into()),
                        );
                    }
                    read = Read::SumFloor {
                        per_die: Box::new(v),
                        floor: *floor,
                    };
                }
                ast::DiceMod::Reroll(a, b) => reroll = Some((a.unwrap_or(i64::MIN), b.unwrap_or(i64::MAX))),
            }
        }
        if d.sides == 100 && lit_count == Some(1) && matches!(read, Read::Sum) {
            // d100 is read as two decimal dice, tens and units, "00" = 100.
            return Some(Dice {
                count: Box::new(Expr {
                    kind: ExprKind::Const(Const::Int(2)),
                    ty: Ty::Int,
                    iv: Iv::exact(2),
                    span: d.span,
                }),
                sides: 10,
                zero_based: true,
                read: Read::Percentile,
                reroll,
                notation: "d100".into(),
            });
        }
        let notation = self.text_of(d.span);
        let dice = Dice {
            count: Box::new(count),
            sides: d.sides,
            zero_based: zero,
            read,
            reroll,
            notation,
        };
        if let (Some(c), Some((a, b))) = (lit_count, dice.reroll) {
            if let Some(spec) = runtime_spec(&dice, c) {
                let dist = spec.distribution().unwrap_or_default();
                {
                    if dist.is_empty() {
                        self.err(
                            "E0403",
                            d.span,
                            format!("rerolling {} leaves no result", range_label(a, b)),
                            "always rerolled",
                            None,
                        );
                        return None;
                    }
                }
            }
        }
        Some(dice)
    }

    // ---------------------------------------------------------------- expressions
    fn numeric_join(&mut self, a: &Ty, b: &Ty, span: Span) -> Ty {
        match (a, b) {
            (Ty::Int, Ty::Int) => Ty::Int,
            (Ty::Int | Ty::Dec, Ty::Int | Ty::Dec) => Ty::Dec,
            (Ty::Error, _) | (_, Ty::Error) => Ty::Error,
            _ => {
                let (an, bn) = (self.ty_name(a), self.ty_name(b));
                self.err("E0201", span, format!("expected numbers, found {an} and {bn}"), "not numbers", None);
                Ty::Error
            }
        }
    }

    fn check_iv(&mut self, iv: Iv, span: Span) {
        if iv.known && !iv.fits_i64() {
            self.err(
                "E0401",
                span,
                format!("this value can reach {}..{}, beyond 64-bit integers", iv.lo, iv.hi),
                "can overflow",
                Some("tighten the input ranges (`int lo..hi`) this value depends on".into()),
            );
        }
    }

    fn assignable(&self, from: &Ty, to: &Ty) -> bool {
        match (from, to) {
            (a, b) if a == b => true,
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Int, Ty::Dec) => true,
            (Ty::NoneLit, Ty::Opt(_)) => true,
            (Ty::EmptyList, Ty::List(_)) => true,
            (Ty::Key(a), Ty::Key(b)) => a.iter().all(|t| b.contains(t)),
            (Ty::List(a), Ty::List(b)) => self.assignable(a, b),
            (Ty::Opt(a), Ty::Opt(b)) => self.assignable(a, b),
            (a, Ty::Opt(b)) => self.assignable(a, b),
            _ => false,
        }
    }

    fn coerce(&mut self, e: Expr, want: &Ty) -> Expr {
        if e.ty == *want || e.ty == Ty::Error || *want == Ty::Error {
            return e;
        }
        match (&e.ty, want) {
            (Ty::Int, Ty::Dec) => to_dec(e),
            (Ty::NoneLit, Ty::Opt(_)) => Expr {
                kind: ExprKind::Const(Const::None),
                ty: want.clone(),
                ..e
            },
            (Ty::EmptyList, Ty::List(_)) => Expr {
                kind: ExprKind::List(Vec::new()),
                ty: want.clone(),
                ..e
            },
            (Ty::Key(_), Ty::Key(_)) | (Ty::List(_), Ty::List(_)) | (Ty::Opt(_), Ty::Opt(_)) if self.assignable(&e.ty, want) => {
                // Same Rust representation; only the static type widens. Lists of ints widening to
                // decimals are not allowed (different representation).
                if let (Ty::List(a), Ty::List(b)) = (&e.ty, want) {
                    if **a == Ty::Int && **b == Ty::Dec {
                        return self.mismatch(e, want);
                    }
                }
                Expr { ty: want.clone(), ..e }
            }
            (_, Ty::Opt(inner)) if self.assignable(&e.ty, inner) => {
                let inner_e = self.coerce(e, inner);
                let span = inner_e.span;
                Expr {
                    kind: ExprKind::Some(Box::new(inner_e)),
                    ty: want.clone(),
                    iv: Iv::UNKNOWN,
                    span,
                }
            }
            _ => self.mismatch(e, want),
        }
    }

    fn mismatch(&mut self, e: Expr, want: &Ty) -> Expr {
        let (wn, fnm) = (self.ty_name(want), self.ty_name(&e.ty));
        let help = match (&e.ty, want) {
            (Ty::Dec, Ty::Int) => Some("round explicitly: `floor(x)`, `ceil(x)` or `round(x)`".to_string()),
            (Ty::Opt(_), _) => Some("give a fallback for none: `value ?? 0`".to_string()),
            _ => None,
        };
        self.err(
            "E0201",
            e.span,
            format!("expected {wn}, found {fnm}"),
            format!("this is {fnm}"),
            help,
        );
        Expr { ty: Ty::Error, ..e }
    }

    fn err_expr(span: Span) -> Expr {
        Expr {
            kind: ExprKind::Const(Const::None),
            ty: Ty::Error,
            iv: Iv::UNKNOWN,
            span,
        }
    }

    /// Infer two operands, letting a bare name or string on one side take its type from the other
    /// (so `action == counter_fire` and `"Syter" in gadgets` resolve).
    fn pair(&mut self, ctx: &mut Ctx, l: &ast::Expr, r: &ast::Expr) -> (Expr, Expr) {
        let needs_hint =
            |e: &ast::Expr| matches!(e.kind, ast::ExprKind::Str(_)) || matches!(&e.kind, ast::ExprKind::Name(n) if ctx.lookup(n).is_none());
        if needs_hint(l) && !needs_hint(r) {
            let re = self.expr(ctx, r, None);
            let le = self.expr(ctx, l, Some(&strip_opt(&re.ty)));
            (le, re)
        } else {
            let le = self.expr(ctx, l, None);
            let hint = strip_opt(&le.ty);
            let re = self.expr(ctx, r, Some(&hint));
            (le, re)
        }
    }

    fn comparable(&mut self, l: &Expr, r: &Expr, op: CmpOp, span: Span) {
        let ok = match (&l.ty, &r.ty) {
            (Ty::Int | Ty::Dec, Ty::Int | Ty::Dec) => true,
            (Ty::Error, _) | (_, Ty::Error) => true,
            (a, b) if matches!(op, CmpOp::Eq | CmpOp::Ne) => {
                a == b
                    || self.assignable(a, b)
                    || self.assignable(b, a)
                    || matches!((a, b), (Ty::Opt(_), Ty::NoneLit) | (Ty::NoneLit, Ty::Opt(_)))
            }
            _ => false,
        };
        if !ok {
            let (a, b) = (self.ty_name(&l.ty), self.ty_name(&r.ty));
            self.err(
                "E0201",
                span,
                format!("cannot compare {a} with {b}"),
                "incompatible types",
                if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    None
                } else {
                    Some("only numbers are ordered".into())
                },
            );
        }
    }

    fn expr(&mut self, ctx: &mut Ctx, e: &ast::Expr, hint: Option<&Ty>) -> Expr {
        use ast::ExprKind as K;
        let span = e.span;
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        match &e.kind {
            K::Int(v) => mk(ExprKind::Const(Const::Int(*v)), Ty::Int, Iv::exact(*v)),
            K::Dec(n, d) => mk(
                ExprKind::Const(Const::Dec(*n, *d)),
                Ty::Dec,
                Iv {
                    lo: div_floor_i128(*n as i128, *d as i128),
                    hi: div_ceil_i128(*n as i128, *d as i128),
                    known: true,
                },
            ),
            K::Bool(b) => mk(ExprKind::Const(Const::Bool(*b)), Ty::Bool, Iv::UNKNOWN),
            K::Str(s) => match hint.map(strip_opt).as_ref() {
                Some(Ty::Key(ts)) => {
                    let c = self.key_const(&ts.clone(), s, span);
                    if c == Const::None {
                        return Self::err_expr(span);
                    }
                    mk(ExprKind::Const(c), Ty::Key(ts.clone()), Iv::UNKNOWN)
                }
                _ => mk(ExprKind::Const(Const::Text(s.clone())), Ty::Text, Iv::UNKNOWN),
            },
            K::Name(n) => self.name(ctx, n, span, hint),
            K::List(items) => {
                if items.is_empty() {
                    return mk(ExprKind::List(Vec::new()), Ty::EmptyList, Iv::UNKNOWN);
                }
                let elem_hint = match hint {
                    Some(Ty::List(t)) => Some((**t).clone()),
                    _ => None,
                };
                let first = self.expr(ctx, &items[0], elem_hint.as_ref());
                let ety = elem_hint.unwrap_or_else(|| first.ty.clone());
                let mut out = vec![self.coerce(first, &ety)];
                for it in &items[1..] {
                    let x = self.expr(ctx, it, Some(&ety));
                    out.push(self.coerce(x, &ety));
                }
                mk(ExprKind::List(out), Ty::List(Box::new(ety)), Iv::UNKNOWN)
            }
            K::Option(id) => {
                if !self.option_idx.contains_key(&id.name) {
                    let help = did_you_mean(&id.name, self.options.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), "option");
                    self.err(
                        "E0101",
                        id.span,
                        format!("unknown optional rule `{}`", id.name),
                        "not an option",
                        Some(help),
                    );
                    return Self::err_expr(span);
                }
                mk(ExprKind::Input(id.name.clone()), Ty::Bool, Iv::UNKNOWN)
            }
            K::Field(base, field) => {
                let b = self.expr(ctx, base, None);
                self.field(b, field, span)
            }
            K::Call(f, args) => self.call(ctx, f, args, span, hint),
            K::Agg { kind, var, list, body } => {
                let le = self.expr(ctx, list, None);
                let elem = match &le.ty {
                    Ty::List(t) => (**t).clone(),
                    Ty::EmptyList => Ty::Error,
                    Ty::Error => Ty::Error,
                    other => {
                        let tn = self.ty_name(other);
                        self.err(
                            "E0201",
                            list.span,
                            format!("`{}` needs a list, found {tn}", agg_name(*kind)),
                            "not a list",
                            None,
                        );
                        Ty::Error
                    }
                };
                ctx.scopes.push(BTreeMap::new());
                let eiv = elem_iv(&le);
                let elem_ty = elem.clone();
                let rust = ctx.bind(&var.name, elem, eiv, false);
                let want_bool = matches!(kind, Agg::Count | Agg::Any | Agg::All | Agg::Filter | Agg::First);
                let be = self.expr(ctx, body, if want_bool { Some(&Ty::Bool) } else { None });
                ctx.scopes.pop();
                let be = if want_bool { self.coerce(be, &Ty::Bool) } else { be };
                let (ty, iv) = match kind {
                    Agg::Count => (Ty::Int, Iv::range(0, u32::MAX as i64)),
                    Agg::Any | Agg::All => (Ty::Bool, Iv::UNKNOWN),
                    Agg::Sum => {
                        if !matches!(be.ty, Ty::Int | Ty::Dec | Ty::Error) {
                            let tn = self.ty_name(&be.ty);
                            self.err("E0201", body.span, format!("`sum` adds numbers, found {tn}"), "not a number", None);
                        }
                        let iv = if be.iv.known {
                            mul_iv(be.iv.join(Iv::exact(0)), Iv::range(0, u32::MAX as i64))
                        } else {
                            Iv::UNKNOWN
                        };
                        let iv = if iv.fits_i64() { iv } else { Iv::UNKNOWN };
                        (be.ty.clone(), iv)
                    }
                    Agg::Max | Agg::Min => {
                        if !matches!(be.ty, Ty::Int | Ty::Dec | Ty::Error) {
                            let tn = self.ty_name(&be.ty);
                            self.err(
                                "E0201",
                                body.span,
                                format!("`{}` compares numbers, found {tn}", agg_name(*kind)),
                                "not a number",
                                None,
                            );
                        }
                        (be.ty.clone(), be.iv.join(Iv::exact(0)))
                    }
                    Agg::Map => (Ty::List(Box::new(be.ty.clone())), Iv::UNKNOWN),
                    Agg::Filter => (Ty::List(Box::new(elem_ty.clone())), Iv::UNKNOWN),
                    Agg::First => (Ty::Opt(Box::new(elem_ty.clone())), Iv::UNKNOWN),
                    Agg::Sort | Agg::SortDesc => {
                        if !matches!(be.ty, Ty::Int | Ty::Dec | Ty::Bool | Ty::Text | Ty::Enum(_) | Ty::Error) {
                            let tn = self.ty_name(&be.ty);
                            self.err(
                                "E0201",
                                body.span,
                                format!("`{}` orders by a number, yes/no, text or enum, found {tn}", agg_name(*kind)),
                                "cannot order by this",
                                None,
                            );
                        }
                        (Ty::List(Box::new(elem_ty.clone())), Iv::UNKNOWN)
                    }
                };
                mk(
                    ExprKind::Agg {
                        kind: *kind,
                        var: rust,
                        list: Box::new(le),
                        body: Box::new(be),
                    },
                    ty,
                    iv,
                )
            }
            K::Construct(name, inits) => {
                let Some(&ri) = self.record_idx.get(&name.name) else {
                    let help = did_you_mean(
                        &name.name,
                        self.records.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
                        "record",
                    );
                    self.err(
                        "E0101",
                        name.span,
                        format!("unknown record type `{}`", name.name),
                        "not a record",
                        Some(help),
                    );
                    return Self::err_expr(span);
                };
                let fields = self.records[ri].fields.clone();
                let mut given: BTreeMap<String, Expr> = BTreeMap::new();
                for (f, x) in inits {
                    match fields.iter().find(|(n, _, _)| *n == f.name) {
                        Some((_, fty, _)) => {
                            let e = self.expr(ctx, x, Some(fty));
                            let e = self.coerce(e, fty);
                            if given.insert(f.name.clone(), e).is_some() {
                                self.err("E0202", f.span, format!("field `{}` is given twice", f.name), "repeated", None);
                            }
                        }
                        None => {
                            let help = did_you_mean(&f.name, fields.iter().map(|(n, _, _)| n.as_str()).collect::<Vec<_>>(), "field");
                            self.err(
                                "E0202",
                                f.span,
                                format!("record `{}` has no field `{}`", name.name, f.name),
                                "unknown field",
                                Some(help),
                            );
                        }
                    }
                }
                let mut out = Vec::new();
                for (n, fty, _) in &fields {
                    match given.remove(n) {
                        Some(e) => out.push((n.clone(), e)),
                        None => {
                            let tn = self.ty_name(fty);
                            self.err(
                                "E0202",
                                name.span,
                                format!("record `{}` is missing field `{n}` ({tn})", name.name),
                                "missing field",
                                Some(format!("add `{n}: ...`")),
                            );
                        }
                    }
                }
                mk(ExprKind::Construct { rec: ri, fields: out }, Ty::Rec(ri), Iv::UNKNOWN)
            }
            K::With(base, inits) => {
                let b = self.expr(ctx, base, None);
                let Ty::Rec(ri) = b.ty else {
                    if b.ty != Ty::Error {
                        let tn = self.ty_name(&b.ty);
                        self.err(
                            "E0201",
                            base.span,
                            format!("`with` copies a record, but this is {tn}"),
                            "not a record",
                            None,
                        );
                    }
                    return Self::err_expr(span);
                };
                let fields = self.records[ri].fields.clone();
                let mut updates = Vec::new();
                for (f, x) in inits {
                    match fields.iter().find(|(n, _, _)| *n == f.name) {
                        Some((_, fty, _)) => {
                            let e = self.expr(ctx, x, Some(fty));
                            updates.push((f.name.clone(), self.coerce(e, fty)));
                        }
                        None => {
                            let rn = self.records[ri].name.clone();
                            let help = did_you_mean(&f.name, fields.iter().map(|(n, _, _)| n.as_str()).collect::<Vec<_>>(), "field");
                            self.err(
                                "E0202",
                                f.span,
                                format!("record `{rn}` has no field `{}`", f.name),
                                "unknown field",
                                Some(help),
                            );
                        }
                    }
                }
                mk(
                    ExprKind::With {
                        base: Box::new(b),
                        rec: ri,
                        updates,
                    },
                    Ty::Rec(ri),
                    Iv::UNKNOWN,
                )
            }
            K::Neg(x) => {
                let v = self.expr(ctx, x, None);
                if !matches!(v.ty, Ty::Int | Ty::Dec | Ty::Error) {
                    let tn = self.ty_name(&v.ty);
                    self.err("E0201", span, format!("cannot negate {tn}"), "not a number", None);
                }
                let iv = Iv {
                    lo: -v.iv.hi,
                    hi: -v.iv.lo,
                    known: v.iv.known,
                };
                let ty = v.ty.clone();
                self.check_iv(iv, span);
                mk(ExprKind::Neg(Box::new(v)), ty, iv)
            }
            K::Not(x) => {
                let v = self.expr(ctx, x, Some(&Ty::Bool));
                let v = self.coerce(v, &Ty::Bool);
                mk(ExprKind::Not(Box::new(v)), Ty::Bool, Iv::UNKNOWN)
            }
            K::Bin(op, l, r) => self.bin(ctx, *op, l, r, span, hint),
            K::Cmp(op, l, r) => {
                let (le, re) = self.pair(ctx, l, r);
                self.comparable(&le, &re, *op, span);
                // `x == none` on an optional: compare against the typed none.
                let (le, re) = match (&le.ty, &re.ty) {
                    (Ty::Opt(_), Ty::NoneLit) => {
                        let t = le.ty.clone();
                        let re = self.coerce(re, &t);
                        (le, re)
                    }
                    (Ty::NoneLit, Ty::Opt(_)) => {
                        let t = re.ty.clone();
                        let le = self.coerce(le, &t);
                        (le, re)
                    }
                    (Ty::Int, Ty::Dec) => (to_dec(le), re),
                    (Ty::Dec, Ty::Int) => (le, to_dec(re)),
                    (a, b) if a != b && self.assignable(b, a) && !matches!(a, Ty::Key(_)) => {
                        let t = a.clone();
                        let re = self.coerce(re, &t);
                        (le, re)
                    }
                    (a, b) if a != b && self.assignable(a, b) && !matches!(b, Ty::Key(_)) => {
                        let t = b.clone();
                        let le = self.coerce(le, &t);
                        (le, re)
                    }
                    _ => (le, re),
                };
                mk(ExprKind::Cmp(*op, Box::new(le), Box::new(re)), Ty::Bool, Iv::UNKNOWN)
            }
            K::In(x, list) => {
                let le = self.expr(ctx, list, None);
                let elem = match &le.ty {
                    Ty::List(t) => Some((**t).clone()),
                    Ty::Error => None,
                    other => {
                        let tn = self.ty_name(other);
                        self.err(
                            "E0201",
                            list.span,
                            format!("`in` needs a list on its right, found {tn}"),
                            "not a list",
                            Some("to test which table a key comes from, use `is`: `weapon is pistol`".into()),
                        );
                        None
                    }
                };
                let xe = self.expr(ctx, x, elem.as_ref());
                if let Some(el) = &elem {
                    let ok = self.assignable(&xe.ty, el)
                        || self.assignable(&strip_opt(&xe.ty), el)
                        || matches!((&xe.ty, el), (Ty::Key(_), Ty::Key(_)));
                    if !ok {
                        let (a, b) = (self.ty_name(&xe.ty), self.ty_name(el));
                        self.err("E0201", x.span, format!("cannot look for {a} in a list of {b}"), "wrong type", None);
                    }
                }
                mk(ExprKind::In(Box::new(xe), Box::new(le)), Ty::Bool, Iv::UNKNOWN)
            }
            K::Is(x, name) => {
                let xe = self.expr(ctx, x, None);
                let (t, _) = self.type_atom(&ast::TypeAtom {
                    name: name.clone(),
                    bounds: None,
                });
                let set = match t {
                    Ty::Key(ts) => ts,
                    Ty::Error => return Self::err_expr(span),
                    other => {
                        let tn = self.ty_name(&other);
                        self.err(
                            "E0201",
                            name.span,
                            format!("`is` tests membership of keyed tables, and `{tn}` is not one"),
                            "not a table or union of tables",
                            None,
                        );
                        return Self::err_expr(span);
                    }
                };
                if !matches!(strip_opt(&xe.ty), Ty::Key(_) | Ty::Error) {
                    let tn = self.ty_name(&xe.ty);
                    self.err(
                        "E0201",
                        x.span,
                        format!("`is` needs a table key on its left, found {tn}"),
                        "not a key",
                        None,
                    );
                }
                mk(ExprKind::Is(Box::new(xe), set), Ty::Bool, Iv::UNKNOWN)
            }
            K::If(arms, otherwise) => {
                let mut out = Vec::new();
                let mut ty: Option<Ty> = hint.cloned().filter(|h| !matches!(h, Ty::Bool));
                let mut iv: Option<Iv> = None;
                let mut vals = Vec::new();
                for (c, v) in arms {
                    let ce = self.expr(ctx, c, Some(&Ty::Bool));
                    let ce = self.coerce(ce, &Ty::Bool);
                    let ve = self.expr(ctx, v, ty.as_ref().or(hint));
                    ty = Some(match ty {
                        None => ve.ty.clone(),
                        Some(t) => join_ty(&t, &ve.ty),
                    });
                    iv = Some(iv.map_or(ve.iv, |i| i.join(ve.iv)));
                    out.push(ce);
                    vals.push(ve);
                }
                let oe = self.expr(ctx, otherwise, ty.as_ref().or(hint));
                let t = match ty {
                    None => oe.ty.clone(),
                    Some(t) => join_ty(&t, &oe.ty),
                };
                let iv = iv.map_or(oe.iv, |i| i.join(oe.iv));
                let oe = self.coerce(oe, &t);
                let arms: Vec<(Expr, Expr)> = out.into_iter().zip(vals).map(|(c, v)| (c, self.coerce(v, &t))).collect();
                mk(ExprKind::If(arms, Box::new(oe)), t, iv)
            }
        }
    }

    fn name(&mut self, ctx: &mut Ctx, n: &str, span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        // Where an enum is expected and it has a variant of this name, a binding of another type
        // (a local, input or output called `hit`) does not hide the variant `hit`.
        let variant_here = match hint.map(strip_opt) {
            Some(Ty::Enum(e)) => self.enums[e].variants.iter().position(|(v, _)| v == n).map(|i| (e, i)),
            _ => None,
        };
        let fits = |t: &Ty| variant_here.is_none_or(|(e, _)| strip_opt(t) == Ty::Enum(e));
        if let Some(l) = ctx.lookup(n).cloned() {
            if fits(&l.ty) {
                return mk(ExprKind::Local(l.rust), l.ty, l.iv);
            }
        }
        if ctx.rid != usize::MAX {
            let r = &self.resolvers[ctx.rid];
            if let Some(p) = r.inputs.iter().find(|p| p.name == n && !p.is_option && fits(&p.ty)) {
                let iv = match (p.bounds, &p.ty) {
                    (Some((lo, hi)), _) => Iv::range(lo, hi),
                    _ => Iv::UNKNOWN,
                };
                return mk(ExprKind::Input(p.name.clone()), p.ty.clone(), iv);
            }
            if let Some(p) = r.outputs.iter().find(|p| p.name == n && fits(&p.ty)) {
                return mk(ExprKind::Output(p.name.clone()), p.ty.clone(), Iv::UNKNOWN);
            }
        }
        if let Some((c, ty, iv)) = self.consts.get(n).cloned() {
            return mk(ExprKind::Const(c), ty, iv);
        }
        // An enum variant, resolved by the type the context expects.
        let want = hint.map(strip_opt);
        if let Some(Ty::Enum(e)) = &want {
            if let Some(i) = self.enums[*e].variants.iter().position(|(v, _)| v == n) {
                return mk(ExprKind::Const(Const::Enum(*e, i)), Ty::Enum(*e), Iv::UNKNOWN);
            }
        }
        if n == "none" {
            return mk(ExprKind::Const(Const::None), Ty::NoneLit, Iv::UNKNOWN);
        }
        if let Some(Ty::Enum(e)) = &want {
            let en = self.enums[*e].name.clone();
            let help = did_you_mean(
                n,
                self.enums[*e].variants.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>(),
                "variant",
            );
            self.err(
                "E0101",
                span,
                format!("`{n}` is not a variant of `{en}`"),
                "unknown variant",
                Some(help),
            );
            return Self::err_expr(span);
        }
        let owners: Vec<usize> = (0..self.enums.len())
            .filter(|&e| self.enums[e].variants.iter().any(|(v, _)| v == n))
            .collect();
        if owners.len() == 1 {
            let e = owners[0];
            let i = self.enums[e].variants.iter().position(|(v, _)| v == n).unwrap_or(0);
            return mk(ExprKind::Const(Const::Enum(e, i)), Ty::Enum(e), Iv::UNKNOWN);
        }
        let mut cands: Vec<String> = ctx.scopes.iter().flat_map(|s| s.keys().cloned()).collect();
        if ctx.rid != usize::MAX {
            cands.extend(
                self.resolvers[ctx.rid]
                    .inputs
                    .iter()
                    .filter(|p| !p.is_option)
                    .map(|p| p.name.clone()),
            );
            cands.extend(self.resolvers[ctx.rid].outputs.iter().map(|p| p.name.clone()));
        }
        cands.extend(self.consts.keys().cloned());
        if owners.len() > 1 {
            let names: Vec<String> = owners.iter().map(|&e| format!("`{}`", self.enums[e].name)).collect();
            self.err(
                "E0201",
                span,
                format!(
                    "`{n}` is a variant of several enums ({}) and nothing here says which",
                    names.join(", ")
                ),
                "ambiguous",
                Some("compare it with a value of the enum you mean".into()),
            );
        } else {
            let help = if self.option_idx.contains_key(n) {
                format!("`{n}` is an optional rule: write `option {n}`")
            } else {
                did_you_mean(n, cands.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "name")
            };
            self.err("E0101", span, format!("unknown name `{n}`"), "not defined here", Some(help));
        }
        Self::err_expr(span)
    }

    fn field(&mut self, b: Expr, field: &ast::Ident, span: Span) -> Expr {
        let (inner, optional) = match &b.ty {
            Ty::Opt(t) => ((**t).clone(), true),
            t => (t.clone(), false),
        };
        let wrap = |t: Ty| {
            if optional && !matches!(t, Ty::Opt(_)) {
                Ty::Opt(Box::new(t))
            } else {
                t
            }
        };
        match inner {
            Ty::Key(ts) => {
                let key_col = ts.first().map(|&t| self.tables[t].key_column.clone()).unwrap_or_default();
                if field.name == key_col || field.name == "name" {
                    return Expr {
                        kind: ExprKind::KeyName {
                            key: Box::new(b),
                            optional,
                        },
                        ty: wrap(Ty::Text),
                        iv: Iv::UNKNOWN,
                        span,
                    };
                }
                let mut col_ty: Option<Ty> = None;
                let mut iv: Option<Iv> = None;
                for &t in &ts {
                    let Some(ci) = self.tables[t].columns.iter().position(|(n, _)| *n == field.name) else {
                        let in_none = ts.iter().all(|&x| !self.tables[x].columns.iter().any(|(n, _)| *n == field.name));
                        let table = if in_none && ts.len() > 1 {
                            self.ty_name(&Ty::Key(ts.clone()))
                        } else {
                            self.tables[t].name.clone()
                        };
                        let help = did_you_mean(
                            &field.name,
                            self.tables[t].columns.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
                            "column",
                        );
                        self.err(
                            "E0101",
                            field.span,
                            format!("`{table}` has no column `{}`", field.name),
                            "unknown column",
                            Some(help),
                        );
                        return Self::err_expr(span);
                    };
                    let cty = self.tables[t].columns[ci].1.clone();
                    if let Some(prev) = &col_ty {
                        if *prev != cty {
                            let table = self.tables[t].name.clone();
                            let (a, c) = (self.ty_name(prev), self.ty_name(&cty));
                            self.err(
                                "E0201",
                                field.span,
                                format!("column `{}` is {a} in one table and {c} in `{table}`", field.name),
                                "differs across the union",
                                None,
                            );
                            return Self::err_expr(span);
                        }
                    }
                    col_ty = Some(cty);
                    for row in &self.tables[t].rows {
                        if let Some(Const::Int(v)) = row.cells.get(ci) {
                            iv = Some(iv.map_or(Iv::exact(*v), |i| i.join(Iv::exact(*v))));
                        }
                    }
                }
                let cty = col_ty.unwrap_or(Ty::Error);
                let iv = if cty == Ty::Int { iv.unwrap_or(Iv::UNKNOWN) } else { Iv::UNKNOWN };
                Expr {
                    kind: ExprKind::KeyCol {
                        key: Box::new(b),
                        tables: ts,
                        column: field.name.clone(),
                        optional,
                    },
                    ty: wrap(cty),
                    iv,
                    span,
                }
            }
            Ty::Outcome(r) if !optional => match self.resolvers[r].outputs.iter().find(|o| o.name == field.name) {
                Some(o) => {
                    let ty = o.ty.clone();
                    Expr {
                        kind: ExprKind::Field(Box::new(b), field.name.clone()),
                        ty,
                        iv: Iv::UNKNOWN,
                        span,
                    }
                }
                None => {
                    let rn = self.resolvers[r].name.clone();
                    let help = did_you_mean(
                        &field.name,
                        self.resolvers[r].outputs.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
                        "output",
                    );
                    self.err(
                        "E0101",
                        field.span,
                        format!("resolver `{rn}` has no output `{}`", field.name),
                        "unknown output",
                        Some(help),
                    );
                    Self::err_expr(span)
                }
            },
            Ty::Row(t) if !optional => match self.tables[t].columns.iter().position(|(n, _)| *n == field.name) {
                Some(ci) => {
                    let ty = self.tables[t].columns[ci].1.clone();
                    let mut iv: Option<Iv> = None;
                    for row in &self.tables[t].rows {
                        if let Some(Const::Int(v)) = row.cells.get(ci) {
                            iv = Some(iv.map_or(Iv::exact(*v), |i| i.join(Iv::exact(*v))));
                        }
                    }
                    Expr {
                        kind: ExprKind::Field(Box::new(b), field.name.clone()),
                        ty,
                        iv: iv.unwrap_or(Iv::UNKNOWN),
                        span,
                    }
                }
                None => {
                    let tn = self.tables[t].name.clone();
                    let help = did_you_mean(
                        &field.name,
                        self.tables[t].columns.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
                        "column",
                    );
                    self.err(
                        "E0101",
                        field.span,
                        format!("table `{tn}` has no column `{}`", field.name),
                        "unknown column",
                        Some(help),
                    );
                    Self::err_expr(span)
                }
            },
            Ty::Rec(r) => match self.records[r].fields.iter().find(|(n, _, _)| *n == field.name) {
                Some((_, fty, bounds)) => {
                    let ty = wrap(fty.clone());
                    let iv = match bounds {
                        Some((lo, hi)) => Iv::range(*lo, *hi),
                        None => Iv::UNKNOWN,
                    };
                    Expr {
                        kind: ExprKind::Field(Box::new(b), field.name.clone()),
                        ty,
                        iv,
                        span,
                    }
                }
                None => {
                    let rn = self.records[r].name.clone();
                    let help = did_you_mean(
                        &field.name,
                        self.records[r].fields.iter().map(|(n, _, _)| n.as_str()).collect::<Vec<_>>(),
                        "field",
                    );
                    self.err(
                        "E0101",
                        field.span,
                        format!("record `{rn}` has no field `{}`", field.name),
                        "unknown field",
                        Some(help),
                    );
                    Self::err_expr(span)
                }
            },
            Ty::Error => Self::err_expr(span),
            other => {
                let tn = self.ty_name(&b.ty);
                let _ = other;
                self.err(
                    "E0201",
                    field.span,
                    format!("{tn} has no fields"),
                    format!("`.{}` on {tn}", field.name),
                    None,
                );
                Self::err_expr(span)
            }
        }
    }

    fn call(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let argc = |c: &mut Self, want: usize| -> bool {
            if args.len() != want {
                c.err(
                    "E0202",
                    span,
                    format!(
                        "`{}` takes {want} argument{}, found {}",
                        f.name,
                        if want == 1 { "" } else { "s" },
                        args.len()
                    ),
                    "wrong number of arguments",
                    None,
                );
                false
            } else {
                true
            }
        };
        match f.name.as_str() {
            "floor" | "ceil" | "round" => {
                if !argc(self, 1) {
                    return Self::err_expr(span);
                }
                let x = self.expr(ctx, &args[0], None);
                if !matches!(x.ty, Ty::Int | Ty::Dec | Ty::Error) {
                    let tn = self.ty_name(&x.ty);
                    self.err(
                        "E0201",
                        args[0].span,
                        format!("`{}` rounds a number, found {tn}", f.name),
                        "not a number",
                        None,
                    );
                }
                let func = match f.name.as_str() {
                    "floor" => Func::Floor,
                    "ceil" => Func::Ceil,
                    _ => Func::Round,
                };
                let iv = x.iv;
                mk(ExprKind::Func(func, vec![x]), Ty::Int, iv)
            }
            "abs" => {
                if !argc(self, 1) {
                    return Self::err_expr(span);
                }
                let x = self.expr(ctx, &args[0], None);
                let iv = Iv {
                    lo: if x.iv.lo <= 0 && x.iv.hi >= 0 {
                        0
                    } else {
                        x.iv.lo.abs().min(x.iv.hi.abs())
                    },
                    hi: x.iv.lo.abs().max(x.iv.hi.abs()),
                    known: x.iv.known,
                };
                let ty = x.ty.clone();
                mk(ExprKind::Func(Func::Abs, vec![x]), ty, iv)
            }
            "sqrt" => {
                if !argc(self, 1) {
                    return Self::err_expr(span);
                }
                let x = self.expr(ctx, &args[0], Some(&Ty::Int));
                let x = self.coerce(x, &Ty::Int);
                let hi = if x.iv.known { isqrt_i128(x.iv.hi.max(0)) } else { i64::MAX as i128 };
                mk(ExprKind::Func(Func::Sqrt, vec![x]), Ty::Int, Iv { lo: 0, hi, known: true })
            }
            "len" => {
                if !argc(self, 1) {
                    return Self::err_expr(span);
                }
                let x = self.expr(ctx, &args[0], None);
                if !matches!(x.ty, Ty::List(_) | Ty::EmptyList | Ty::Error) {
                    let tn = self.ty_name(&x.ty);
                    self.err(
                        "E0201",
                        args[0].span,
                        format!("`len` counts a list, found {tn}"),
                        "not a list",
                        None,
                    );
                }
                mk(ExprKind::Func(Func::Len, vec![x]), Ty::Int, Iv::range(0, u32::MAX as i64))
            }
            "min" | "max" | "clamp" => {
                let want = if f.name == "clamp" { Some(3) } else { None };
                if let Some(w) = want {
                    if !argc(self, w) {
                        return Self::err_expr(span);
                    }
                } else if args.len() < 2 {
                    self.err(
                        "E0202",
                        span,
                        format!("`{}` needs at least two numbers", f.name),
                        "too few arguments",
                        Some(format!("for a list, write `{}(x in list: x.value)`", f.name)),
                    );
                    return Self::err_expr(span);
                }
                let xs: Vec<Expr> = args.iter().map(|a| self.expr(ctx, a, None)).collect();
                let mut ty = Ty::Int;
                for x in &xs {
                    ty = self.numeric_join(&ty, &x.ty, x.span);
                }
                let ivs: Vec<Iv> = xs.iter().map(|x| x.iv).collect();
                let known = ivs.iter().all(|i| i.known);
                let iv = match f.name.as_str() {
                    "min" => Iv {
                        lo: ivs.iter().map(|i| i.lo).min().unwrap_or(0),
                        hi: ivs.iter().map(|i| i.hi).min().unwrap_or(0),
                        known,
                    },
                    "max" => Iv {
                        lo: ivs.iter().map(|i| i.lo).max().unwrap_or(0),
                        hi: ivs.iter().map(|i| i.hi).max().unwrap_or(0),
                        known,
                    },
                    _ => {
                        let (x, lo, hi) = (ivs[0], ivs[1], ivs[2]);
                        Iv {
                            lo: x.lo.max(lo.lo).min(hi.hi),
                            hi: x.hi.min(hi.hi).max(lo.lo),
                            known: lo.known && hi.known,
                        }
                    }
                };
                let xs = xs.into_iter().map(|x| self.coerce(x, &ty)).collect();
                let func = match f.name.as_str() {
                    "min" => Func::Min,
                    "max" => Func::Max,
                    _ => Func::Clamp,
                };
                mk(ExprKind::Func(func, xs), ty, iv)
            }
            name => {
                let Some(&tid) = self.table_idx.get(name) else {
                    let mut cands: Vec<String> = ["floor", "ceil", "round", "abs", "min", "max", "clamp", "len", "sqrt"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    cands.extend(self.tables.iter().map(|t| t.name.clone()));
                    let help = did_you_mean(name, cands.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "function or table");
                    let extra = if self.resolver_idx.contains_key(name) {
                        format!("; `{name}` is a resolver: call it with `call x = {name}(input: value, ...)`")
                    } else {
                        String::new()
                    };
                    self.err(
                        "E0101",
                        f.span,
                        format!("unknown function or table `{name}`"),
                        "not defined",
                        Some(format!("{help}{extra}")),
                    );
                    return Self::err_expr(span);
                };
                self.tables[tid].used = true;
                let _ = hint;
                match self.tables[tid].kind.clone() {
                    TableKind::Keyed => {
                        if !argc(self, 1) {
                            return Self::err_expr(span);
                        }
                        let kt = Ty::Key(vec![tid]);
                        let x = self.expr(ctx, &args[0], Some(&kt));
                        let x = self.coerce(x, &kt);
                        let xspan = x.span;
                        Expr { span: xspan, ..x }
                    }
                    TableKind::Range { lo, hi } => {
                        if !argc(self, 1) {
                            return Self::err_expr(span);
                        }
                        let x = self.expr(ctx, &args[0], Some(&Ty::Int));
                        let x = self.coerce(x, &Ty::Int);
                        let covers_all = lo == i64::MIN && hi == i64::MAX;
                        if x.ty == Ty::Int && !covers_all {
                            if !x.iv.known {
                                self.err(
                                    "E0304",
                                    args[0].span,
                                    format!("cannot tell that this index stays within table `{name}` ({})", range_label(lo, hi)),
                                    "unbounded index",
                                    Some(format!("clamp it: `{name}(clamp(x, {lo}, {hi}))`")),
                                );
                            } else if x.iv.lo < lo as i128 || x.iv.hi > hi as i128 {
                                self.err(
                                    "E0304",
                                    args[0].span,
                                    format!(
                                        "this index can be {}..{}, but table `{name}` covers {}",
                                        x.iv.lo,
                                        x.iv.hi,
                                        range_label(lo, hi)
                                    ),
                                    "may fall outside the table",
                                    Some("clamp the index or widen the table's rows".into()),
                                );
                            }
                        }
                        let (ty, iv) = self.lookup_result(tid);
                        mk(ExprKind::Lookup { table: tid, args: vec![x] }, ty, iv)
                    }
                    TableKind::Matrix { row_enum, col_enum } => {
                        if !argc(self, 2) {
                            return Self::err_expr(span);
                        }
                        let a = self.expr(ctx, &args[0], Some(&Ty::Enum(row_enum)));
                        let a = self.coerce(a, &Ty::Enum(row_enum));
                        let b = self.expr(ctx, &args[1], Some(&Ty::Enum(col_enum)));
                        let b = self.coerce(b, &Ty::Enum(col_enum));
                        let (ty, iv) = self.lookup_result(tid);
                        mk(
                            ExprKind::Lookup {
                                table: tid,
                                args: vec![a, b],
                            },
                            ty,
                            iv,
                        )
                    }
                }
            }
        }
    }

    fn lookup_result(&self, tid: usize) -> (Ty, Iv) {
        let t = &self.tables[tid];
        match &t.result {
            Some(ty) => {
                let mut iv: Option<Iv> = None;
                // Every cell: a matrix row holds one value per column.
                for v in t.rows.iter().flat_map(|r| r.cells.iter()) {
                    if let Const::Int(v) = v {
                        iv = Some(iv.map_or(Iv::exact(*v), |i| i.join(Iv::exact(*v))));
                    }
                }
                (
                    ty.clone(),
                    if matches!(ty, Ty::Int) {
                        iv.unwrap_or(Iv::UNKNOWN)
                    } else {
                        Iv::UNKNOWN
                    },
                )
            }
            None => (Ty::Row(tid), Iv::UNKNOWN),
        }
    }

    fn bin(&mut self, ctx: &mut Ctx, op: BinOp, l: &ast::Expr, r: &ast::Expr, span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        match op {
            BinOp::And | BinOp::Or => {
                let a = self.expr(ctx, l, Some(&Ty::Bool));
                let a = self.coerce(a, &Ty::Bool);
                let b = self.expr(ctx, r, Some(&Ty::Bool));
                let b = self.coerce(b, &Ty::Bool);
                mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), Ty::Bool, Iv::UNKNOWN)
            }
            BinOp::Coalesce => {
                let a = self.expr(ctx, l, hint.map(|h| Ty::Opt(Box::new(h.clone()))).as_ref());
                let inner = match &a.ty {
                    Ty::Opt(t) => (**t).clone(),
                    Ty::Error => Ty::Error,
                    other => {
                        let tn = self.ty_name(other);
                        self.err(
                            "E0201",
                            l.span,
                            format!("`??` gives a fallback for an optional value, but this is {tn}"),
                            "never none",
                            Some("remove the `?? ...`".into()),
                        );
                        other.clone()
                    }
                };
                let b = self.expr(ctx, r, Some(&inner));
                // `a ?? b` with `b` optional too is still optional: the first of them that is set.
                if let Ty::Opt(_) = b.ty {
                    let t = a.ty.clone();
                    let b = self.coerce(b, &t);
                    return mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), t, Iv::UNKNOWN);
                }
                let ty = if inner == Ty::Int && b.ty == Ty::Dec {
                    Ty::Dec
                } else {
                    inner.clone()
                };
                let b = self.coerce(b, &ty);
                let iv = a.iv.join(b.iv);
                let a = if ty == Ty::Dec && inner == Ty::Int {
                    self.coerce(a, &Ty::Opt(Box::new(Ty::Int)))
                } else {
                    a
                };
                mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), ty, iv)
            }
            _ => {
                let a = self.expr(ctx, l, None);
                let b = self.expr(ctx, r, if matches!(a.ty, Ty::List(_)) { Some(&a.ty) } else { None });
                // Lists join with `+`: `noted + [hit]`.
                if op == BinOp::Add && matches!((&a.ty, &b.ty), (Ty::List(_) | Ty::EmptyList, Ty::List(_) | Ty::EmptyList)) {
                    let t = if matches!(a.ty, Ty::List(_)) { a.ty.clone() } else { b.ty.clone() };
                    let a = self.coerce(a, &t);
                    let b = self.coerce(b, &t);
                    return mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), t, Iv::UNKNOWN);
                }
                for x in [&a, &b] {
                    if matches!(x.ty, Ty::Opt(_)) {
                        let tn = self.ty_name(&x.ty);
                        self.err(
                            "E0201",
                            x.span,
                            format!("this value is {tn}, which may be none"),
                            "may be none",
                            Some("give a fallback: `(x ?? 0)`".into()),
                        );
                        return Self::err_expr(span);
                    }
                }
                let mut ty = self.numeric_join(&a.ty, &b.ty, span);
                if op == BinOp::Div && ty == Ty::Int {
                    ty = Ty::Dec;
                }
                if op == BinOp::Rem && ty != Ty::Int && ty != Ty::Error {
                    self.err("E0201", span, "`%` takes whole numbers", "not whole numbers", None);
                }
                if matches!(op, BinOp::Div | BinOp::Rem) {
                    if let ExprKind::Const(Const::Int(0)) = b.kind {
                        self.err("E0402", b.span, "division by zero", "zero", None);
                    }
                }
                let iv = match op {
                    BinOp::Add => add_iv(a.iv, b.iv),
                    BinOp::Sub => add_iv(
                        a.iv,
                        Iv {
                            lo: -b.iv.hi,
                            hi: -b.iv.lo,
                            known: b.iv.known,
                        },
                    ),
                    BinOp::Mul => mul_iv(a.iv, b.iv),
                    BinOp::Div => div_iv(a.iv, b.iv),
                    _ => Iv {
                        lo: -(b.iv.lo.abs().max(b.iv.hi.abs())),
                        hi: b.iv.lo.abs().max(b.iv.hi.abs()),
                        known: b.iv.known,
                    },
                };
                self.check_iv(iv, span);
                let (a, b) = if ty == Ty::Dec { (to_dec(a), to_dec(b)) } else { (a, b) };
                mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), ty, iv)
            }
        }
    }
}

fn agg_name(a: Agg) -> &'static str {
    match a {
        Agg::Sum => "sum",
        Agg::Count => "count",
        Agg::Any => "any",
        Agg::All => "all",
        Agg::Max => "max",
        Agg::Min => "min",
        Agg::Map => "map",
        Agg::Filter => "filter",
        Agg::First => "first",
        Agg::Sort => "sort",
        Agg::SortDesc => "sort_desc",
    }
}

fn strip_opt(t: &Ty) -> Ty {
    match t {
        Ty::Opt(i) => (**i).clone(),
        t => t.clone(),
    }
}

fn join_ty(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Int, Ty::Dec) | (Ty::Dec, Ty::Int) => Ty::Dec,
        (Ty::Error, x) | (x, Ty::Error) => x.clone(),
        (Ty::NoneLit, x) | (x, Ty::NoneLit) if !matches!(x, Ty::NoneLit) => {
            if matches!(x, Ty::Opt(_)) {
                x.clone()
            } else {
                Ty::Opt(Box::new(x.clone()))
            }
        }
        (Ty::Key(x), Ty::Key(y)) => {
            let mut s: BTreeSet<usize> = x.iter().copied().collect();
            s.extend(y.iter().copied());
            Ty::Key(s.into_iter().collect())
        }
        (a, _) => a.clone(),
    }
}

fn to_dec(e: Expr) -> Expr {
    if e.ty != Ty::Int {
        return e;
    }
    let span = e.span;
    let iv = e.iv;
    Expr {
        kind: ExprKind::ToDec(Box::new(e)),
        ty: Ty::Dec,
        iv,
        span,
    }
}

fn elem_iv(list: &Expr) -> Iv {
    if let ExprKind::Const(Const::List(items)) = &list.kind {
        let mut iv: Option<Iv> = None;
        for i in items {
            if let Const::Int(v) = i {
                iv = Some(iv.map_or(Iv::exact(*v), |x| x.join(Iv::exact(*v))));
            }
        }
        return iv.unwrap_or(Iv::UNKNOWN);
    }
    Iv::UNKNOWN
}

fn add_iv(a: Iv, b: Iv) -> Iv {
    Iv {
        lo: a.lo.saturating_add(b.lo),
        hi: a.hi.saturating_add(b.hi),
        known: a.known && b.known,
    }
}

fn mul_iv(a: Iv, b: Iv) -> Iv {
    let c = [
        a.lo.saturating_mul(b.lo),
        a.lo.saturating_mul(b.hi),
        a.hi.saturating_mul(b.lo),
        a.hi.saturating_mul(b.hi),
    ];
    Iv {
        lo: c.iter().copied().min().unwrap_or(0),
        hi: c.iter().copied().max().unwrap_or(0),
        known: a.known && b.known,
    }
}

fn div_iv(a: Iv, b: Iv) -> Iv {
    // The quotient is exact (a decimal); this interval bounds its floor and ceiling.
    if b.lo <= 0 && b.hi >= 0 {
        let m = a.lo.abs().max(a.hi.abs());
        return Iv {
            lo: -m,
            hi: m,
            known: a.known && b.known,
        };
    }
    let qs = [(a.lo, b.lo), (a.lo, b.hi), (a.hi, b.lo), (a.hi, b.hi)];
    let lo = qs.iter().map(|(x, y)| div_floor_i128(*x, *y)).min().unwrap_or(0);
    let hi = qs.iter().map(|(x, y)| div_ceil_i128(*x, *y)).max().unwrap_or(0);
    Iv {
        lo,
        hi,
        known: a.known && b.known,
    }
}

fn div_floor_i128(a: i128, b: i128) -> i128 {
    if b == 0 {
        return 0;
    }
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil_i128(a: i128, b: i128) -> i128 {
    if b == 0 {
        return 0;
    }
    let q = a / b;
    if (a % b != 0) && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    }
}

fn isqrt_i128(v: i128) -> i128 {
    let mut x = 0i128;
    let mut step = 1i128 << 62;
    while step > 0 {
        if (x + step).saturating_mul(x + step) <= v {
            x += step;
        }
        step >>= 1;
    }
    x
}

pub fn range_label(lo: i64, hi: i64) -> String {
    match (lo, hi) {
        (i64::MIN, i64::MAX) => "any value".into(),
        (i64::MIN, h) => format!("..{h}"),
        (l, i64::MAX) => format!("{l}.."),
        (l, h) if l == h => format!("{l}"),
        (l, h) => format!("{l}..{h}"),
    }
}

/// The runtime's view of dice with a fixed count, used for ranges and gap probabilities.
pub fn runtime_spec(d: &Dice, count: i64) -> Option<rulebook_runtime::DiceSpec> {
    use rulebook_runtime::Read as R;
    let read = match &d.read {
        Read::Sum => R::Sum,
        Read::KeepHighest(k) => R::KeepHighest(u8::try_from(*k).ok()?),
        Read::KeepLowest(k) => R::KeepLowest(u8::try_from(*k).ok()?),
        Read::Flux => R::Flux,
        Read::BadFlux => R::BadFlux,
        Read::Percentile => R::Percentile,
        Read::SumFloor { per_die, floor } => match per_die.kind {
            ExprKind::Const(Const::Int(v)) => R::SumFloor {
                per_die: i8::try_from(v).ok()?,
                floor: i8::try_from(*floor).ok()?,
            },
            _ => return None,
        },
    };
    Some(rulebook_runtime::DiceSpec {
        count: u16::try_from(count).ok()?,
        sides: u16::try_from(d.sides).ok()?,
        zero_based: d.zero_based,
        read,
        reroll: d.reroll,
    })
}

fn dice_iv(d: &Dice) -> Iv {
    let c = d.count.iv;
    let (fmin, fmax) = if d.zero_based {
        (0i128, d.sides as i128 - 1)
    } else {
        (1i128, d.sides as i128)
    };
    let known = c.known;
    match &d.read {
        Read::Sum => Iv {
            lo: c.lo.max(0) * fmin,
            hi: c.hi.max(0) * fmax,
            known,
        },
        Read::KeepHighest(k) | Read::KeepLowest(k) => Iv {
            lo: *k as i128 * fmin,
            hi: *k as i128 * fmax,
            known: true,
        },
        Read::Flux => Iv {
            lo: fmin - fmax,
            hi: fmax - fmin,
            known: true,
        },
        Read::BadFlux => Iv {
            lo: fmin - fmax,
            hi: 0,
            known: true,
        },
        Read::Percentile => Iv {
            lo: 1,
            hi: 100,
            known: true,
        },
        Read::SumFloor { per_die, floor } => {
            let p = per_die.iv;
            let lo_face = (fmin + p.lo).max(*floor as i128);
            let hi_face = (fmax + p.hi).max(*floor as i128);
            Iv {
                lo: (c.lo.max(0) * lo_face).min(c.hi.max(0) * lo_face),
                hi: (c.lo.max(0) * hi_face).max(c.hi.max(0) * hi_face),
                known: known && p.known,
            }
        }
    }
}

// ---------------------------------------------------------------- AST scans
fn scan_stmts(stmts: &[ast::Stmt], opts: &mut Vec<String>, calls: &mut Vec<(String, Span)>) {
    use ast::StmtKind as K;
    for s in stmts {
        match &s.kind {
            K::Let { value, mods, .. } => {
                scan_expr(value, opts);
                for m in mods {
                    let list: Vec<&ast::Modifier> = match m {
                        ast::ModItem::One(o) => vec![o],
                        ast::ModItem::Highest { mods, .. } => mods.iter().collect(),
                    };
                    for o in list {
                        scan_expr(&o.value, opts);
                        if let Some(w) = &o.when {
                            scan_expr(w, opts);
                        }
                    }
                }
            }
            K::Var { value, .. } | K::Assign { value, .. } | K::Set { value, .. } => scan_expr(value, opts),
            K::Roll { dice, .. } => {
                if let ast::DiceCount::Expr(e) = &dice.count {
                    scan_expr(e, opts);
                }
                for m in &dice.mods {
                    if let ast::DiceMod::Each { value, .. } = m {
                        scan_expr(value, opts);
                    }
                }
            }
            K::Check { left, right, .. } => {
                scan_expr(left, opts);
                scan_expr(right, opts);
            }
            K::If { arms, otherwise } => {
                for (c, b) in arms {
                    scan_expr(c, opts);
                    scan_stmts(b, opts, calls);
                }
                if let Some(o) = otherwise {
                    scan_stmts(o, opts, calls);
                }
            }
            K::Match { scrutinee, arms } => {
                scan_expr(scrutinee, opts);
                for (_, b) in arms {
                    scan_stmts(b, opts, calls);
                }
            }
            K::Call { resolver, args, .. } => {
                calls.push((resolver.name.clone(), resolver.span));
                for (_, e) in args {
                    scan_expr(e, opts);
                }
            }
            K::Require { cond, .. } => scan_expr(cond, opts),
            K::Repeat { body, .. } => scan_stmts(body, opts, calls),
            K::For { list, body, .. } => {
                scan_expr(list, opts);
                scan_stmts(body, opts, calls);
            }
            K::Note { .. } | K::Return | K::Break => {}
        }
    }
}

fn scan_expr(e: &ast::Expr, opts: &mut Vec<String>) {
    use ast::ExprKind as K;
    match &e.kind {
        K::Option(id) => opts.push(id.name.clone()),
        K::List(xs) | K::Call(_, xs) => xs.iter().for_each(|x| scan_expr(x, opts)),
        K::Field(b, _) | K::Neg(b) | K::Not(b) | K::Is(b, _) => scan_expr(b, opts),
        K::Construct(_, inits) => inits.iter().for_each(|(_, x)| scan_expr(x, opts)),
        K::With(b, inits) => {
            scan_expr(b, opts);
            inits.iter().for_each(|(_, x)| scan_expr(x, opts));
        }
        K::Agg { list, body, .. } => {
            scan_expr(list, opts);
            scan_expr(body, opts);
        }
        K::Bin(_, a, b) | K::Cmp(_, a, b) | K::In(a, b) => {
            scan_expr(a, opts);
            scan_expr(b, opts);
        }
        K::If(arms, o) => {
            for (c, v) in arms {
                scan_expr(c, opts);
                scan_expr(v, opts);
            }
            scan_expr(o, opts);
        }
        _ => {}
    }
}
