//! What the language server knows: the rules folder, the open documents' text (newer than the
//! disk's), the checker's diagnostics of them, and an `Analysis` of the folder as it is now: each
//! file's syntax tree, each system's checked program (as far as the checker got), the
//! declarations and every use of each name. The analysis is made when a request needs it and
//! kept until a document changes; the last analysis in which a file parsed is kept too, for
//! completion while the file is half typed.

use super::refs::{self, Occurrence};
use super::symbols::{self, Decl};
use super::text::{range, uri_of};
use lsp_types::{DiagnosticSeverity, Location, NumberOrString};
use rulebook_compiler::ast::File;
use rulebook_compiler::check::{self, SourceFile};
use rulebook_compiler::diag::Severity;
use rulebook_compiler::{driver, ir, parse};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The rules folder (`<root>/<system>/*.rules`) and the open documents, by path.
pub struct World {
    pub root: PathBuf,
    pub open: BTreeMap<PathBuf, String>,
    /// The analysis of the folder as it is, until something changes.
    now: Option<Rc<Analysis>>,
    /// For each file, the last analysis in which it parsed.
    good: BTreeMap<PathBuf, Rc<Analysis>>,
}

/// The folder analysed: its files, their syntax, each system's checked program, the
/// declarations and the uses of their names.
pub struct Analysis {
    pub paths: Vec<PathBuf>,
    pub sources: Vec<SourceFile>,
    pub texts: Vec<String>,
    /// Each file's syntax tree, `None` when it does not parse.
    pub files: Vec<Option<File>>,
    /// Each system's program by folder, with errors lowered as far as the checker got.
    pub systems: BTreeMap<String, ir::System>,
    pub decls: Vec<Decl>,
    /// Every name written that stands for a declaration, the declaration's own name included.
    pub occurrences: Vec<Occurrence>,
}

impl World {
    pub fn new(root: PathBuf) -> World {
        World {
            root,
            open: BTreeMap::new(),
            now: None,
            good: BTreeMap::new(),
        }
    }

    /// A document changed (or was saved or closed): what was analysed is stale.
    pub fn forget(&mut self) {
        self.now = None;
    }

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

    /// The analysis of the folder as it is now.
    pub fn analysis(&mut self) -> Rc<Analysis> {
        if let Some(a) = &self.now {
            return Rc::clone(a);
        }
        let (sources, paths) = self.sources();
        let a = Rc::new(Analysis::new(sources, paths));
        for (p, f) in a.paths.iter().zip(&a.files) {
            if f.is_some() {
                self.good.insert(p.clone(), Rc::clone(&a));
            }
        }
        self.now = Some(Rc::clone(&a));
        a
    }

    /// Before a document changes: when no analysis of it parsed yet, analyse it as it is, so that
    /// completion in the half-typed text to come has names to offer.
    pub fn before_change(&mut self, path: &Path) {
        if !self.good.contains_key(path) {
            self.analysis();
        }
    }

    /// The last analysis in which the file at `path` parsed (maybe the one of now).
    pub fn last_parsed(&mut self, path: &Path) -> Option<Rc<Analysis>> {
        self.analysis();
        self.good.get(path).cloned()
    }

    /// The checker's diagnostics for every file of the folder (an empty list for a clean file).
    pub fn diagnostics(&self) -> Vec<(PathBuf, Vec<lsp_types::Diagnostic>)> {
        let (sources, paths) = self.sources();
        let texts: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
        diagnostics_of(sources, &paths, &texts)
    }
}

/// The checker's diagnostics of these sources as LSP data, file by file.
pub fn diagnostics_of(sources: Vec<SourceFile>, paths: &[PathBuf], texts: &[String]) -> Vec<(PathBuf, Vec<lsp_types::Diagnostic>)> {
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

impl Analysis {
    fn new(sources: Vec<SourceFile>, paths: Vec<PathBuf>) -> Analysis {
        let texts: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
        let files: Vec<Option<File>> = sources
            .iter()
            .enumerate()
            .map(|(i, s)| parse::parse_file(i, &s.text).ok())
            .collect();
        let parsed: Vec<(usize, File)> = files.iter().enumerate().filter_map(|(i, f)| Some((i, f.clone()?))).collect();
        let (systems, _) = check::check_systems(&sources, &parsed);
        let systems: BTreeMap<String, ir::System> = systems.into_iter().collect();
        let mut decls = Vec::new();
        for (i, f) in files.iter().enumerate() {
            if let (Some(f), Some(p), Some(t)) = (f, paths.get(i), texts.get(i)) {
                decls.extend(symbols::decls_of_file(&f.items, t, p, i));
            }
        }
        let mut a = Analysis {
            paths,
            sources,
            texts,
            files,
            systems,
            decls,
            occurrences: Vec::new(),
        };
        a.occurrences = refs::index(&a);
        a
    }

    /// The index of the file at `path`.
    pub fn file_of(&self, path: &Path) -> Option<usize> {
        self.paths.iter().position(|p| p == path)
    }

    /// The system folder of file `i`.
    pub fn system_of(&self, i: usize) -> &str {
        self.sources.get(i).map_or("", |s| s.system.as_str())
    }

    /// Where a span of file `i` is, as an LSP location.
    pub fn location(&self, file: usize, span: rulebook_compiler::ast::Span) -> Option<Location> {
        Some(Location {
            uri: uri_of(self.paths.get(file)?)?,
            range: range(self.texts.get(file)?, span),
        })
    }
}
