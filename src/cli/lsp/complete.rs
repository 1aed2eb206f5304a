//! Completion that knows where it is. The context comes from a scan of the line being typed
//! (the text usually does not parse while it is typed); the names and types come from the last
//! analysis in which the file parsed, at the same line:
//! - in quotes after a table's name and `(` (or after `==` against a key): that table's keys;
//! - after `x.`: the fields of `x`'s record, the columns of its table row, the outputs of its
//!   call, the variants of an enum named so, the inputs after `in.` and the outputs after `out.`;
//! - after `option `: the options;
//! - after `==` or `!=` against a value of an enum, and between the arms of a `match` on one:
//!   its variants;
//! - elsewhere in a resolver: the names in scope (inputs, outputs, locals declared above the
//!   cursor), then the system's tables, constants, enums, records, types and resolvers, then the
//!   language's words; outside a resolver, the system's names and the words.

use super::refs::strip;
use super::symbols::{type_text, Decl};
use super::text::{byte_of, offset_of};
use super::world::Analysis;
use lsp_types::{CompletionItem, CompletionItemKind as K, CompletionTextEdit, Position, Range, TextEdit};
use rulebook_compiler::ast::{self, Item, StmtKind};
use rulebook_compiler::ir::{self, split_place, Ty};
use std::path::Path;

/// The words of the language an editor completes besides the rules' own names.
const KEYWORDS: [&str; 27] = [
    "let", "var", "roll", "check", "set", "if", "else", "match", "call", "require", "note", "return", "break", "repeat", "up", "to", "for",
    "in", "update", "where", "with", "and", "or", "not", "none", "yes", "no",
];

/// Where the cursor is, in the analysis the names come from.
struct Here<'a> {
    a: &'a Analysis,
    path: &'a Path,
    sys: Option<&'a ir::System>,
    resolver: Option<&'a ast::ResolverDecl>,
    checked: Option<&'a ir::ResolverDef>,
    /// The cursor's byte offset in the analysed text, and its line (from 1).
    offset: usize,
    line: usize,
}

/// What a name or a chain of fields is, as far as it can be known.
enum Shape {
    Ty(Ty),
    /// A type named in the declarations (when the checker did not get there): its kind and name.
    Named(&'static str, String),
    /// The name of an enum itself (`unit_type.`).
    Enum(String),
    Inputs,
    Outputs,
}

/// Completion items at `pos` of the file at `path`, whose text is `now`; `a` is the last analysis
/// in which the file parsed, if any.
pub fn completions(a: Option<&Analysis>, now: &str, path: &Path, pos: Position) -> Vec<CompletionItem> {
    let line_text = now.split('\n').nth(pos.line as usize).unwrap_or("");
    let prefix = &line_text[..byte_of(line_text, pos.character)];
    let Some(a) = a else {
        return if prefix.matches('"').count() % 2 == 1 {
            Vec::new()
        } else {
            words()
        };
    };
    let here = Here::new(a, path, pos);
    if prefix.matches('"').count() % 2 == 1 {
        return here.keys_in_quotes(prefix, pos);
    }
    let stem = prefix.trim_end_matches(is_word);
    if let Some(before) = stem.strip_suffix('.') {
        return here
            .chain_shape(trailing_chain(before))
            .map(|s| here.members(&s))
            .unwrap_or_default();
    }
    let trimmed = stem.trim_end();
    if trimmed.strip_suffix("option").is_some_and(|b| !b.ends_with(is_word)) && trimmed.len() < stem.len() {
        return here.decls_of_kind("option", K::VALUE);
    }
    if let Some(left) = trimmed.strip_suffix("==").or_else(|| trimmed.strip_suffix("!=")) {
        return here.variants_of(here.chain_shape(trailing_chain(left.trim_end())));
    }
    let offset_now = offset_of(now, pos).unwrap_or(now.len());
    if let Some(scrutinee) = match_scrutinee(now.get(..offset_now).unwrap_or(now)) {
        return here.variants_of(here.chain_shape(&scrutinee));
    }
    here.in_scope()
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The chain of names and dots that ends `s` (`a.b` of `x + a.b`).
fn trailing_chain(s: &str) -> &str {
    let start = s.rfind(|c: char| !(is_word(c) || c == '.')).map_or(0, |i| i + 1);
    &s[start..]
}

/// The scrutinee of the `match` whose arms the cursor is between: the innermost brace left open
/// before the cursor is a `match x {`.
fn match_scrutinee(before: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in before.char_indices().rev() {
        match c {
            '}' => depth += 1,
            '{' if depth == 0 => {
                open = Some(i);
                break;
            }
            '{' => depth -= 1,
            _ => {}
        }
    }
    let head = before[..open?].trim_end();
    let chain = trailing_chain(head);
    let rest = head[..head.len() - chain.len()].trim_end();
    (rest.ends_with("match") && !rest[..rest.len() - 5].ends_with(is_word) && !chain.is_empty()).then(|| chain.to_string())
}

/// The language's words as completion items.
fn words() -> Vec<CompletionItem> {
    KEYWORDS
        .iter()
        .map(|k| CompletionItem {
            label: (*k).to_string(),
            kind: Some(K::KEYWORD),
            ..Default::default()
        })
        .collect()
}

fn item(label: &str, kind: K, detail: String) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: Some(detail),
        ..Default::default()
    }
}

/// The name a checked local's Rust variable stands for (`v_hits_3` is `hits`).
fn local_name(var: &str) -> &str {
    let v = var.strip_prefix("v_").unwrap_or(var);
    v.rsplit_once('_').map_or(v, |(n, _)| n)
}

/// The checked locals of a resolver body: name, line (from 1) and type.
fn checked_locals(body: &[ir::Stmt], out: &mut Vec<(String, usize, Ty)>) {
    for s in body {
        let line = |at: &str| split_place(at).map_or(0, |(_, l, _)| l);
        let found = match s {
            ir::Stmt::Let { name, ty, at, .. } | ir::Stmt::Var { name, ty, at, .. } => Some((name.clone(), line(at), ty.clone())),
            ir::Stmt::Roll { var, at, .. } => Some((local_name(var).to_string(), line(at), Ty::Int)),
            ir::Stmt::Check { var, at, .. } => Some((local_name(var).to_string(), line(at), Ty::Bool)),
            ir::Stmt::Call { var, resolver, at, .. } => Some((local_name(var).to_string(), line(at), Ty::Outcome(*resolver))),
            ir::Stmt::For { var, list, at, .. } => Some((local_name(var).to_string(), line(at), strip(&list.ty).clone())),
            _ => None,
        };
        out.extend(found);
        for b in s.blocks() {
            checked_locals(b, out);
        }
    }
}

/// The locals visible at `offset`: declared by statements that end before it, in the blocks
/// around it, and the loop variables of the loops around it.
fn scope_at(body: &[ast::Stmt], offset: usize, out: &mut Vec<String>) {
    for s in body {
        if s.span.start >= offset {
            break;
        }
        if s.span.end <= offset {
            match &s.kind {
                StmtKind::Let { name, .. }
                | StmtKind::Var { name, .. }
                | StmtKind::Roll { name, .. }
                | StmtKind::Check { name, .. }
                | StmtKind::Call { name, .. } => out.push(name.name.clone()),
                _ => {}
            }
            continue;
        }
        match &s.kind {
            StmtKind::If { arms, otherwise } => {
                arms.iter().for_each(|(_, b)| scope_at(b, offset, out));
                scope_at(otherwise.as_deref().unwrap_or_default(), offset, out);
            }
            StmtKind::Match { arms, .. } => arms.iter().for_each(|(_, b)| scope_at(b, offset, out)),
            StmtKind::Repeat { body, .. } => scope_at(body, offset, out),
            StmtKind::For { var, body, .. } => {
                out.push(var.name.clone());
                scope_at(body, offset, out);
            }
            _ => {}
        }
    }
}

impl<'a> Here<'a> {
    fn new(a: &'a Analysis, path: &'a Path, pos: Position) -> Here<'a> {
        let file = a.file_of(path);
        let text = file.and_then(|f| a.texts.get(f)).map_or("", String::as_str);
        // The same line of the analysed text (the text of now may have more lines or fewer).
        let last_line = text.matches('\n').count();
        let at = Position {
            line: pos.line.min(u32::try_from(last_line).unwrap_or(u32::MAX)),
            character: pos.character,
        };
        let offset = offset_of(text, at).unwrap_or(text.len());
        let items: &[Item] = file.and_then(|f| a.files.get(f)).and_then(Option::as_ref).map_or(&[], |f| &f.items);
        let resolver = items.iter().find_map(|it| match it {
            Item::Resolver(r) if r.span.start <= offset && offset <= r.span.end => Some(r),
            _ => None,
        });
        let sys = file.and_then(|f| a.systems.get(a.system_of(f)));
        let checked = resolver.and_then(|r| sys?.resolvers.iter().find(|c| c.name == r.name.name));
        Here {
            a,
            path,
            sys,
            resolver,
            checked,
            offset,
            line: at.line as usize + 1,
        }
    }

    /// The declarations of this file's system.
    fn decls(&self) -> impl Iterator<Item = &'a Decl> + '_ {
        let folder = self.path.parent().map(Path::to_path_buf);
        self.a
            .decls
            .iter()
            .filter(move |d| d.path.parent().map(Path::to_path_buf) == folder)
    }

    fn decls_of_kind(&self, kind: &str, k: K) -> Vec<CompletionItem> {
        self.decls()
            .filter(|d| d.kind == kind)
            .map(|d| {
                item(
                    &d.name,
                    k,
                    if d.title.is_empty() {
                        kind.to_string()
                    } else {
                        format!("{kind}: {}", d.title)
                    },
                )
            })
            .collect()
    }

    fn ty_text(&self, t: &Ty) -> String {
        self.sys.map_or_else(String::new, |s| s.ty_text(t))
    }
}

impl Here<'_> {
    /// What the name `n` is at the cursor.
    fn name_shape(&self, n: &str) -> Option<Shape> {
        match n {
            "in" => return Some(Shape::Inputs),
            "out" => return Some(Shape::Outputs),
            _ => {}
        }
        let mut locals = Vec::new();
        if let Some(r) = self.resolver {
            scope_at(&r.body, self.offset, &mut locals);
        }
        if locals.iter().any(|l| l == n) {
            let mut checked = Vec::new();
            checked_locals(self.checked.map_or(&[], |c| &c.body), &mut checked);
            let mut found: Vec<&(String, usize, Ty)> = checked.iter().filter(|(m, _, _)| m == n).collect();
            found.sort_by_key(|(_, l, _)| (*l > self.line, std::cmp::Reverse(*l)));
            return found.first().map(|(_, _, t)| Shape::Ty(t.clone()));
        }
        if let Some(r) = self.resolver {
            let (ins, outs) = (r.inputs.iter().map(|p| (p, true)), r.outputs.iter().map(|p| (p, false)));
            if let Some((p, input)) = ins.chain(outs).find(|(p, _)| p.name.name == n) {
                return self.param_shape(&p.name.name, input).or_else(|| self.written_shape(&p.ty));
            }
        }
        self.decls()
            .any(|d| d.kind == "enum" && d.name == n)
            .then(|| Shape::Enum(n.to_string()))
    }

    /// The checked type of an input or output of the resolver at the cursor.
    fn param_shape(&self, n: &str, input: bool) -> Option<Shape> {
        let c = self.checked?;
        let params = if input { &c.inputs } else { &c.outputs };
        params.iter().find(|p| p.name == n).map(|p| Shape::Ty(p.ty.clone()))
    }

    /// A type as written, when the checker did not get there: the enum, record or table it names.
    fn written_shape(&self, ty: &ast::TypeExpr) -> Option<Shape> {
        let n = &ty.atoms.first()?.name.name;
        let d = self
            .decls()
            .find(|d| d.name == *n && matches!(d.kind, "enum" | "record" | "table"))?;
        (ty.list_depth == 0).then(|| Shape::Named(d.kind, n.clone()))
    }

    /// What `a.b.c` is.
    fn chain_shape(&self, chain: &str) -> Option<Shape> {
        let mut parts = chain.split('.');
        let head = parts.next().filter(|h| !h.is_empty())?;
        let mut shape = self.name_shape(head)?;
        for f in parts {
            shape = self.field_shape(&shape, f)?;
        }
        Some(shape)
    }

    /// What field `f` of a value of this shape is.
    fn field_shape(&self, shape: &Shape, f: &str) -> Option<Shape> {
        let sys = self.sys?;
        let found = |fields: &mut dyn Iterator<Item = (&String, &Ty)>| -> Option<Shape> {
            for (n, t) in fields {
                if n == f {
                    return Some(Shape::Ty(t.clone()));
                }
            }
            None
        };
        match shape {
            Shape::Ty(t) => match strip(t) {
                Ty::Rec(r) => found(&mut sys.records.get(*r)?.fields.iter().map(|(n, t, _)| (n, t))),
                Ty::Row(t) => found(&mut sys.tables.get(*t)?.columns.iter().map(|(n, t)| (n, t))),
                Ty::Key(ts) => found(&mut sys.tables.get(*ts.first()?)?.columns.iter().map(|(n, t)| (n, t))),
                Ty::Outcome(r) => found(&mut sys.resolvers.get(*r)?.outputs.iter().map(|p| (&p.name, &p.ty))),
                _ => None,
            },
            Shape::Inputs => self.param_shape(f, true),
            Shape::Outputs => self.param_shape(f, false),
            Shape::Named(..) | Shape::Enum(_) => None,
        }
    }

    /// The members of a value of this shape, after its `.`.
    fn members(&self, shape: &Shape) -> Vec<CompletionItem> {
        let owned = |kind: &str, owner: &str, k: K| -> Vec<CompletionItem> {
            self.decls()
                .filter(|d| d.kind == kind && d.owner == owner)
                .map(|d| {
                    item(
                        &d.name,
                        k,
                        if d.title.is_empty() {
                            format!("{kind} of `{owner}`")
                        } else {
                            d.title.clone()
                        },
                    )
                })
                .collect()
        };
        let typed = |fields: &mut dyn Iterator<Item = (&String, &Ty)>| -> Vec<CompletionItem> {
            fields.map(|(n, t)| item(n, K::FIELD, self.ty_text(t))).collect()
        };
        let Some(sys) = self.sys else { return Vec::new() };
        match shape {
            Shape::Ty(t) => match strip(t) {
                Ty::Rec(r) => sys
                    .records
                    .get(*r)
                    .map_or_else(Vec::new, |r| typed(&mut r.fields.iter().map(|(n, t, _)| (n, t)))),
                Ty::Row(t) => sys
                    .tables
                    .get(*t)
                    .map_or_else(Vec::new, |t| typed(&mut t.columns.iter().map(|(n, t)| (n, t)))),
                Ty::Key(ts) => self.key_members(sys, ts),
                Ty::Outcome(r) => sys
                    .resolvers
                    .get(*r)
                    .map_or_else(Vec::new, |r| typed(&mut r.outputs.iter().map(|p| (&p.name, &p.ty)))),
                _ => Vec::new(),
            },
            Shape::Named("record", r) => owned("field", r, K::FIELD),
            Shape::Named("table", t) => owned("column", t, K::FIELD),
            Shape::Named(..) => Vec::new(),
            Shape::Enum(e) => owned("variant", e, K::ENUM_MEMBER),
            Shape::Inputs | Shape::Outputs => self.params(matches!(shape, Shape::Inputs)),
        }
    }

    /// The columns of a key of these tables (each once), its key column first.
    fn key_members(&self, sys: &ir::System, tables: &[usize]) -> Vec<CompletionItem> {
        let mut out: Vec<CompletionItem> = Vec::new();
        for t in tables.iter().filter_map(|t| sys.tables.get(*t)) {
            let key = (!t.key_column.is_empty()).then(|| item(&t.key_column, K::FIELD, format!("key of `{}`", t.name)));
            for i in key
                .into_iter()
                .chain(t.columns.iter().map(|(n, ty)| item(n, K::FIELD, self.ty_text(ty))))
            {
                if !out.iter().any(|o| o.label == i.label) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// The inputs (or outputs) of the resolver at the cursor, with their types as written.
    fn params(&self, inputs: bool) -> Vec<CompletionItem> {
        let Some(r) = self.resolver else { return Vec::new() };
        let text = self
            .a
            .file_of(self.path)
            .and_then(|f| self.a.texts.get(f))
            .map_or("", String::as_str);
        let (params, what) = if inputs { (&r.inputs, "input") } else { (&r.outputs, "output") };
        params
            .iter()
            .map(|p| item(&p.name.name, K::VARIABLE, format!("{what}: {}", type_text(text, &p.ty))))
            .collect()
    }

    /// The variants of the enum a shape is a value of; the names in scope when it is not one.
    fn variants_of(&self, shape: Option<Shape>) -> Vec<CompletionItem> {
        let e = match &shape {
            Some(Shape::Ty(t)) => match strip(t) {
                Ty::Enum(e) => self.sys.and_then(|s| s.enums.get(*e)).map(|e| e.name.clone()),
                _ => None,
            },
            Some(Shape::Named("enum", e)) => Some(e.clone()),
            _ => None,
        };
        match e {
            Some(e) => self.members(&Shape::Enum(e)),
            None => self.in_scope(),
        }
    }

    /// In quotes: the keys of the table looked up (`table("`), or of the key compared (`x == "`).
    fn keys_in_quotes(&self, prefix: &str, pos: Position) -> Vec<CompletionItem> {
        let Some(q) = prefix.rfind('"') else { return Vec::new() };
        let before = prefix[..q].trim_end();
        let tables: Vec<String> = if let Some(call) = before.strip_suffix('(') {
            let name = trailing_chain(call.trim_end());
            self.decls()
                .filter(|d| d.kind == "table" && d.name == name)
                .map(|d| d.name.clone())
                .collect()
        } else if let Some(left) = before.strip_suffix("==").or_else(|| before.strip_suffix("!=")) {
            match (self.chain_shape(trailing_chain(left.trim_end())), self.sys) {
                (Some(Shape::Ty(Ty::Key(ts))), Some(sys)) => ts.iter().filter_map(|t| sys.tables.get(*t)).map(|t| t.name.clone()).collect(),
                _ => Vec::new(),
            }
        } else {
            Vec::new()
        };
        let start = Position {
            line: pos.line,
            character: u32::try_from(prefix[..=q].encode_utf16().count()).unwrap_or(u32::MAX),
        };
        self.decls()
            .filter(|d| d.kind == "key" && tables.contains(&d.owner))
            .map(|d| CompletionItem {
                text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                    range: Range { start, end: pos },
                    new_text: d.name.clone(),
                })),
                ..item(&d.name, K::VALUE, format!("a row of table `{}`", d.owner))
            })
            .collect()
    }

    /// The names in scope at the cursor, then the system's, then the language's words.
    fn in_scope(&self) -> Vec<CompletionItem> {
        let mut out: Vec<CompletionItem> = Vec::new();
        if let Some(r) = self.resolver {
            let mut locals = Vec::new();
            scope_at(&r.body, self.offset, &mut locals);
            let mut checked = Vec::new();
            checked_locals(self.checked.map_or(&[], |c| &c.body), &mut checked);
            for l in locals.iter().rev() {
                let ty = checked
                    .iter()
                    .filter(|(n, line, _)| n == l && *line <= self.line)
                    .max_by_key(|(_, line, _)| *line);
                out.push(item(
                    l,
                    K::VARIABLE,
                    ty.map_or_else(|| "local".to_string(), |(_, _, t)| self.ty_text(t)),
                ));
            }
            out.extend(self.params(true));
            out.extend(self.params(false));
        }
        for d in self.decls() {
            let kind = match d.kind {
                "table" | "record" | "type" => K::STRUCT,
                "const" => K::CONSTANT,
                "enum" => K::ENUM,
                "resolver" | "policy" => K::FUNCTION,
                _ => continue,
            };
            let detail = if d.title.is_empty() {
                d.kind.to_string()
            } else {
                format!("{}: {}", d.kind, d.title)
            };
            out.push(item(&d.name, kind, detail));
        }
        out.extend(words());
        let mut seen = std::collections::BTreeSet::new();
        out.retain(|i| seen.insert(i.label.clone()));
        out
    }
}
