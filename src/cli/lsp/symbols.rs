//! Declarations: what each item of a rules file declares (with an enum's variants, a record's
//! fields, a table's columns and keys), the outline of a file, and the hover text of each.

use super::text::range;
use lsp_types::{DocumentSymbol, SymbolKind};
use rulebook_compiler::ast::{Cite, Ident, Item, RowHead, Span, TableDecl, TypeExpr};
use std::path::{Path, PathBuf};

/// One declaration of the rules: its kind, name, where its name is written, and what hover shows.
pub struct Decl {
    pub kind: &'static str,
    pub name: String,
    /// The enum of a variant, the record of a field, the table of a column or key; else empty.
    pub owner: String,
    pub path: PathBuf,
    pub text_of_file: usize,
    pub span: Span,
    pub title: String,
    pub cite: String,
    /// What hover lists under it: a table's columns, a record's fields, a resolver's inputs and
    /// outputs, each with its type as written.
    pub parts: Vec<String>,
}

/// The declarations of one parsed file, in order.
pub fn decls_of_file(items: &[Item], text: &str, path: &Path, file: usize) -> Vec<Decl> {
    let mut out = Vec::new();
    for item in items {
        let mut ds = decls_of(item, path, file);
        if let Some(first) = ds.first_mut() {
            first.parts = parts_of(item, text);
        }
        out.extend(ds);
        if let Item::Table(t) = item {
            out.extend(keys_of(t, text, path, file));
        }
    }
    out
}

/// The declarations one item makes: itself, and an enum's variants, a record's fields and a
/// table's columns.
fn decls_of(item: &Item, path: &Path, file: usize) -> Vec<Decl> {
    let one = |kind: &'static str, name: &Ident, owner: &str, title: &str, cite: &str| Decl {
        kind,
        name: name.name.clone(),
        owner: owner.to_string(),
        path: path.to_path_buf(),
        text_of_file: file,
        span: name.span,
        title: title.to_string(),
        cite: cite.to_string(),
        parts: Vec::new(),
    };
    let cite_of = |c: &Option<Cite>| c.as_ref().map(|c| c.text.clone()).unwrap_or_default();
    match item {
        Item::System { name, title, .. } => vec![one("system", name, "", title, "")],
        Item::Option { name, title, cite } => vec![one("option", name, "", title, &cite.text)],
        Item::Enum(e) => {
            let mut v = vec![one("enum", &e.name, "", e.title.as_deref().unwrap_or(""), &cite_of(&e.cite))];
            for (var, doc) in &e.variants {
                v.push(one("variant", var, &e.name.name, doc.as_deref().unwrap_or(""), ""));
            }
            v
        }
        Item::Type { name, doc, .. } => vec![one("type", name, "", doc.as_deref().unwrap_or(""), "")],
        Item::Const { name, doc, cite, .. } => vec![one("const", name, "", doc.as_deref().unwrap_or(""), &cite.text)],
        Item::Table(t) => {
            let mut v = vec![one("table", &t.name, "", t.title.as_deref().unwrap_or(""), &t.cite.text)];
            for (c, _) in &t.columns {
                v.push(one("column", c, &t.name.name, "", ""));
            }
            v
        }
        Item::Resolver(r) => vec![one(
            if r.policy { "policy" } else { "resolver" },
            &r.name,
            "",
            r.title.as_deref().unwrap_or(""),
            &r.cite.text,
        )],
        Item::Record { name, title, cite, fields } => {
            let mut v = vec![one("record", name, "", title.as_deref().unwrap_or(""), &cite_of(cite))];
            for (f, _) in fields {
                v.push(one("field", f, &name.name, "", ""));
            }
            v
        }
    }
}

/// The rows of a keyed table, each as a `key` declaration: its key, its row as written.
fn keys_of(t: &TableDecl, text: &str, path: &Path, file: usize) -> Vec<Decl> {
    t.rows
        .iter()
        .filter_map(|r| match &r.head {
            RowHead::Key(k) => Some(Decl {
                kind: "key",
                name: k.clone(),
                owner: t.name.name.clone(),
                path: path.to_path_buf(),
                text_of_file: file,
                span: r.head_span,
                title: format!("a row of table `{}`", t.name.name),
                cite: t.cite.text.clone(),
                parts: vec![text.get(r.span.start..r.span.end).unwrap_or("").trim().to_string()],
            }),
            _ => None,
        })
        .collect()
}

/// A type as written.
pub fn type_text(text: &str, ty: &TypeExpr) -> String {
    text.get(ty.span.start..ty.span.end).unwrap_or("").trim().to_string()
}

/// A table's columns, a record's fields, a resolver's inputs and outputs: `name: type` as written.
fn parts_of(item: &Item, text: &str) -> Vec<String> {
    let shown = |name: &Ident, ty: &TypeExpr| format!("{}: {}", name.name, type_text(text, ty));
    match item {
        Item::Table(t) => t.columns.iter().map(|(n, ty)| shown(n, ty)).collect(),
        Item::Record { fields, .. } => fields.iter().map(|(n, ty)| shown(n, ty)).collect(),
        Item::Resolver(r) => {
            let ins = r.inputs.iter().map(|p| format!("in {}", shown(&p.name, &p.ty)));
            ins.chain(r.outputs.iter().map(|p| format!("out {}", shown(&p.name, &p.ty))))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The outline of one file: its declarations in order, an enum's variants, a record's fields
/// and a table's columns inside it.
pub fn outline(decls: &[Decl], texts: &[String], path: &Path) -> Vec<DocumentSymbol> {
    let mut out: Vec<DocumentSymbol> = Vec::new();
    for d in decls.iter().filter(|d| d.path == path && d.kind != "key") {
        let Some(text) = texts.get(d.text_of_file) else { continue };
        let r = range(text, d.span);
        #[expect(deprecated, reason = "`deprecated` is a required field of lsp-types' struct")]
        let sym = DocumentSymbol {
            name: d.name.clone(),
            detail: (!d.title.is_empty()).then(|| d.title.clone()),
            kind: match d.kind {
                "resolver" | "policy" => SymbolKind::FUNCTION,
                "table" | "record" => SymbolKind::STRUCT,
                "enum" => SymbolKind::ENUM,
                "variant" => SymbolKind::ENUM_MEMBER,
                "field" | "column" => SymbolKind::FIELD,
                "const" => SymbolKind::CONSTANT,
                "option" => SymbolKind::BOOLEAN,
                "system" => SymbolKind::NAMESPACE,
                _ => SymbolKind::TYPE_PARAMETER,
            },
            tags: None,
            deprecated: None,
            range: r,
            selection_range: r,
            children: None,
        };
        match (d.kind, out.last_mut()) {
            ("variant" | "field" | "column", Some(parent)) => parent.children.get_or_insert_with(Vec::new).push(sym),
            _ => out.push(sym),
        }
    }
    out
}

/// The declaration a name stands for when nothing better is known: a resolver, table, enum,
/// record, type, constant or option of that file's system, else a variant, field or column.
pub fn find_by_name<'d>(decls: &'d [Decl], path: &Path, word: &str) -> Option<&'d Decl> {
    let system = path.parent();
    let same_system = |d: &&Decl| d.path.parent() == system;
    decls
        .iter()
        .filter(same_system)
        .find(|d| d.name == word && !matches!(d.kind, "variant" | "field" | "column" | "key"))
        .or_else(|| decls.iter().filter(same_system).find(|d| d.name == word && d.kind != "key"))
}

/// The row of the key written in quotes (keys match whatever their case).
pub fn find_key<'d>(decls: &'d [Decl], path: &Path, quoted: &str) -> Option<&'d Decl> {
    decls
        .iter()
        .filter(|d| d.path.parent() == path.parent())
        .find(|d| d.kind == "key" && d.name.eq_ignore_ascii_case(quoted))
}

/// Hover text of a declaration: its kind and name, its title and its citation.
pub fn hover_text(d: &Decl) -> String {
    let mut s = format!("**{}** `{}`", d.kind, d.name);
    if matches!(d.kind, "variant" | "field" | "column") {
        s.push_str(&format!(" of `{}`", d.owner));
    }
    if !d.title.is_empty() {
        s.push_str(&format!(": {}", d.title));
    }
    if !d.cite.is_empty() {
        s.push_str(&format!(" [{}]", d.cite));
    }
    if !d.parts.is_empty() {
        s.push_str("\n\n```rules\n");
        s.push_str(&d.parts.join("\n"));
        s.push_str("\n```");
    }
    s
}
