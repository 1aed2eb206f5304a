//! What the language server knows: the rules folder, the open documents' text (newer than the
//! disk's), and what the checker says of them, as LSP data: diagnostics per file, the outline of
//! a file, and the declaration a name stands for (definition and hover).

use lsp_types::{DiagnosticSeverity, DocumentSymbol, Location, NumberOrString, Position, Range, SymbolKind, Uri};
use rulebook_compiler::ast::{Ident, Item, Span};
use rulebook_compiler::check::SourceFile;
use rulebook_compiler::diag::Severity;
use rulebook_compiler::{driver, parse};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The rules folder (`<root>/<system>/*.rules`) and the open documents, by path.
pub struct World {
    pub root: PathBuf,
    pub open: BTreeMap<PathBuf, String>,
}

/// One declaration of the rules: its kind, name, where its name is written, and what hover shows.
pub struct Decl {
    pub kind: &'static str,
    pub name: String,
    pub path: PathBuf,
    pub text_of_file: usize,
    pub span: Span,
    pub title: String,
    pub cite: String,
    /// What hover lists under it: a table's columns, a record's fields, a resolver's inputs and
    /// outputs, each with its type as written.
    pub parts: Vec<String>,
}

impl World {
    /// The folder's files, each with its path on disk and its text (an open document's if open).
    pub fn sources(&self) -> (Vec<SourceFile>, Vec<PathBuf>) {
        let (mut sources, _, _) = driver::load_dir(&self.root);
        let paths: Vec<PathBuf> = sources.iter().map(|s| self.disk_path(s)).collect();
        for (s, p) in sources.iter_mut().zip(&paths) {
            if let Some(text) = self.open.get(p) {
                s.text.clone_from(text);
            }
        }
        (sources, paths)
    }

    /// `<root>/<system>/<file name>` of a source the driver read.
    fn disk_path(&self, s: &SourceFile) -> PathBuf {
        let name = Path::new(&s.path).file_name().map(PathBuf::from).unwrap_or_default();
        self.root.join(&s.system).join(name)
    }

    /// The checker's diagnostics for every file of the folder (an empty list for a clean file).
    pub fn diagnostics(&self) -> Vec<(PathBuf, Vec<lsp_types::Diagnostic>)> {
        let (sources, paths) = self.sources();
        let texts: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
        let compiled = driver::compile_sources(sources);
        let mut out: Vec<(PathBuf, Vec<lsp_types::Diagnostic>)> = paths.iter().map(|p| (p.clone(), Vec::new())).collect();
        for d in &compiled.diagnostics {
            let (Some((_, list)), Some(text)) = (out.get_mut(d.span.file), texts.get(d.span.file)) else {
                continue;
            };
            let mut message = d.message.clone();
            if let Some(h) = &d.help {
                message.push_str(&format!("\nhelp: {h}"));
            }
            list.push(lsp_types::Diagnostic {
                range: range(text, d.span),
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Note => DiagnosticSeverity::INFORMATION,
                }),
                code: Some(NumberOrString::String(d.code.to_string())),
                source: Some("rulebook".to_string()),
                message,
                ..Default::default()
            });
        }
        out
    }

    /// Every declaration of the folder, file by file (a file that does not parse gives none).
    pub fn decls(&self) -> (Vec<Decl>, Vec<String>) {
        let (sources, paths) = self.sources();
        let mut out = Vec::new();
        let mut texts = Vec::new();
        for (i, (s, p)) in sources.iter().zip(&paths).enumerate() {
            texts.push(s.text.clone());
            if let Ok(file) = parse::parse_file(i, &s.text) {
                for item in &file.items {
                    let mut ds = decls_of(item, p, i);
                    if let Some(first) = ds.first_mut() {
                        first.parts = parts_of(item, &s.text);
                    }
                    out.extend(ds);
                    if let Item::Table(t) = item {
                        out.extend(keys_of(t, &s.text, p, i));
                    }
                }
            }
        }
        (out, texts)
    }
}

/// The declarations one item makes: itself, and an enum's variants and a record's fields.
fn decls_of(item: &Item, path: &Path, file: usize) -> Vec<Decl> {
    let one = |kind: &'static str, name: &Ident, title: &str, cite: &str| Decl {
        kind,
        name: name.name.clone(),
        path: path.to_path_buf(),
        text_of_file: file,
        span: name.span,
        title: title.to_string(),
        cite: cite.to_string(),
        parts: Vec::new(),
    };
    let cite_of = |c: &Option<rulebook_compiler::ast::Cite>| c.as_ref().map(|c| c.text.clone()).unwrap_or_default();
    match item {
        Item::System { name, title, .. } => vec![one("system", name, title, "")],
        Item::Option { name, title, cite } => vec![one("option", name, title, &cite.text)],
        Item::Enum(e) => {
            let mut v = vec![one("enum", &e.name, e.title.as_deref().unwrap_or(""), &cite_of(&e.cite))];
            for (var, doc) in &e.variants {
                v.push(one("variant", var, doc.as_deref().unwrap_or(""), ""));
            }
            v
        }
        Item::Type { name, doc, .. } => vec![one("type", name, doc.as_deref().unwrap_or(""), "")],
        Item::Const { name, doc, cite, .. } => vec![one("const", name, doc.as_deref().unwrap_or(""), &cite.text)],
        Item::Table(t) => vec![one("table", &t.name, t.title.as_deref().unwrap_or(""), &t.cite.text)],
        Item::Resolver(r) => vec![one(
            if r.policy { "policy" } else { "resolver" },
            &r.name,
            r.title.as_deref().unwrap_or(""),
            &r.cite.text,
        )],
        Item::Record { name, title, cite, fields } => {
            let mut v = vec![one("record", name, title.as_deref().unwrap_or(""), &cite_of(cite))];
            for (f, _) in fields {
                v.push(one("field", f, "", ""));
            }
            v
        }
    }
}

/// The rows of a keyed table, each as a `key` declaration: its key, its row as written.
fn keys_of(t: &rulebook_compiler::ast::TableDecl, text: &str, path: &Path, file: usize) -> Vec<Decl> {
    t.rows
        .iter()
        .filter_map(|r| match &r.head {
            rulebook_compiler::ast::RowHead::Key(k) => Some(Decl {
                kind: "key",
                name: k.clone(),
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

/// A table's columns, a record's fields, a resolver's inputs and outputs: `name: type` as written.
fn parts_of(item: &Item, text: &str) -> Vec<String> {
    let shown = |name: &Ident, ty: &rulebook_compiler::ast::TypeExpr| {
        let ty = text.get(ty.span.start..ty.span.end).unwrap_or("").trim();
        format!("{}: {ty}", name.name)
    };
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

/// The outline of one file: its declarations in order, an enum's variants and a record's fields
/// inside it.
pub fn symbols(decls: &[Decl], texts: &[String], path: &Path) -> Vec<DocumentSymbol> {
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
                "table" => SymbolKind::STRUCT,
                "enum" => SymbolKind::ENUM,
                "variant" => SymbolKind::ENUM_MEMBER,
                "record" => SymbolKind::STRUCT,
                "field" => SymbolKind::FIELD,
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
            ("variant" | "field", Some(parent)) => parent.children.get_or_insert_with(Vec::new).push(sym),
            _ => out.push(sym),
        }
    }
    out
}

/// The declaration the name at `pos` of the file at `path` stands for: a resolver, table, enum,
/// record, type, constant or option of that file's system, or a variant or field of one.
pub fn find<'d>(decls: &'d [Decl], path: &Path, text: &str, pos: Position) -> Option<&'d Decl> {
    let system = path.parent();
    let same_system = |d: &&Decl| d.path.parent() == system;
    // In a quoted text: a table's key, its row (keys match whatever their case).
    if let Some(quoted) = string_at(text, pos) {
        return decls
            .iter()
            .filter(same_system)
            .find(|d| d.kind == "key" && d.name.eq_ignore_ascii_case(&quoted));
    }
    let word = word_at(text, pos)?;
    decls
        .iter()
        .filter(same_system)
        .find(|d| d.name == word && !matches!(d.kind, "variant" | "field" | "key"))
        .or_else(|| decls.iter().filter(same_system).find(|d| d.name == word && d.kind != "key"))
}

/// The words of the language an editor completes besides the rules' own names.
const KEYWORDS: [&str; 27] = [
    "let", "var", "roll", "check", "set", "if", "else", "match", "call", "require", "note", "return", "break", "repeat", "up", "to", "for",
    "in", "update", "where", "with", "and", "or", "not", "none", "yes", "no",
];

/// Completion items for a file: the declarations of its system (each once, with its kind and
/// title), then the language's words.
pub fn completions(decls: &[Decl], path: &Path) -> Vec<lsp_types::CompletionItem> {
    use lsp_types::{CompletionItem, CompletionItemKind as K};
    let mut out: Vec<CompletionItem> = Vec::new();
    for d in decls
        .iter()
        .filter(|d| d.path.parent() == path.parent() && !matches!(d.kind, "system" | "key"))
    {
        if out.iter().any(|c| c.label == d.name) {
            continue;
        }
        out.push(CompletionItem {
            label: d.name.clone(),
            kind: Some(match d.kind {
                "resolver" | "policy" => K::FUNCTION,
                "table" | "record" | "type" => K::STRUCT,
                "enum" => K::ENUM,
                "variant" => K::ENUM_MEMBER,
                "field" => K::FIELD,
                "const" => K::CONSTANT,
                _ => K::VALUE,
            }),
            detail: Some(if d.title.is_empty() {
                d.kind.to_string()
            } else {
                format!("{}: {}", d.kind, d.title)
            }),
            ..Default::default()
        });
    }
    out.extend(KEYWORDS.iter().map(|k| CompletionItem {
        label: (*k).to_string(),
        kind: Some(K::KEYWORD),
        ..Default::default()
    }));
    out
}

/// Hover text of a declaration: its kind and name, its title and its citation.
pub fn hover_text(d: &Decl) -> String {
    let mut s = format!("**{}** `{}`", d.kind, d.name);
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

/// Where a declaration's name is written.
pub fn location(d: &Decl, texts: &[String]) -> Option<Location> {
    let text = texts.get(d.text_of_file)?;
    Some(Location {
        uri: uri_of(&d.path)?,
        range: range(text, d.span),
    })
}

/// The text of the quoted string around `pos`, if it is in one (quotes counted from the line's
/// start; a rules string does not span lines).
fn string_at(text: &str, pos: Position) -> Option<String> {
    let line = text.split('\n').nth(pos.line as usize)?;
    let at = byte_of(line, pos.character);
    let quotes: Vec<usize> = line.match_indices('"').map(|(i, _)| i).collect();
    quotes
        .chunks(2)
        .find(|q| q.len() == 2 && q[0] < at && at <= q[1])
        .map(|q| line[q[0] + 1..q[1]].to_string())
}

/// The name (letters, digits, `_`) around `pos`.
fn word_at(text: &str, pos: Position) -> Option<String> {
    let line = text.split('\n').nth(pos.line as usize)?;
    let at = byte_of(line, pos.character);
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let start = line[..at].rfind(|c: char| !is_word(c)).map_or(0, |i| i + 1);
    let end = line[at..].find(|c: char| !is_word(c)).map_or(line.len(), |i| at + i);
    (start < end).then(|| line[start..end].to_string())
}

/// The byte of a line at UTF-16 column `col` (LSP's default position encoding).
fn byte_of(line: &str, col: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= col {
            return i;
        }
        units += c.len_utf16() as u32;
    }
    line.len()
}

/// A span of `text` as an LSP range (lines from 0, columns in UTF-16 code units).
pub fn range(text: &str, span: Span) -> Range {
    Range {
        start: position(text, span.start),
        end: position(text, span.end.max(span.start)),
    }
}

fn position(text: &str, offset: usize) -> Position {
    let offset = offset.min(text.len());
    let mut at = offset;
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        character: u32::try_from(character).unwrap_or(u32::MAX),
    }
}

/// `file://` URI of a path, and back (percent-encoding the few characters paths need).
pub fn uri_of(path: &Path) -> Option<Uri> {
    let mut s = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' => s.push_str("%20"),
            '%' => s.push_str("%25"),
            '#' => s.push_str("%23"),
            '?' => s.push_str("%3F"),
            c => s.push(c),
        }
    }
    Uri::from_str(&s).ok()
}

pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str().strip_prefix("file://")?;
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(String::from_utf8_lossy(&out).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_utf16_columns() {
        let text = "ab\n\u{e9}x y";
        assert_eq!(position(text, 5), Position { line: 1, character: 1 });
        assert_eq!(word_at(text, Position { line: 1, character: 1 }).as_deref(), Some("\u{e9}x"));
        assert_eq!(word_at(text, Position { line: 1, character: 3 }).as_deref(), Some("y"));
    }

    #[test]
    fn paths_go_to_uris_and_back() {
        let p = PathBuf::from("/home/me/my rules/a#1.rules");
        let u = uri_of(&p).unwrap();
        assert_eq!(path_of(&u), Some(p));
    }
}
