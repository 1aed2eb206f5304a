//! The only module that touches the file system: finds rules files, runs the pipeline and writes
//! generated code (only when it changed).

use crate::check::{self, SourceFile};
use crate::diag::Diagnostic;
use crate::ir::Program;
use crate::{codegen, parse};
use std::path::{Path, PathBuf};

/// Everything one run of the pipeline produced.
pub struct Compiled {
    pub sources: Vec<SourceFile>,
    /// Sorted by file, then position; errors and warnings together.
    pub diagnostics: Vec<Diagnostic>,
    pub program: Option<Program>,
    /// Every file and folder read, for `cargo::rerun-if-changed`.
    pub read: Vec<PathBuf>,
}

impl Compiled {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }
    pub fn render(&self) -> String {
        crate::render::render(&self.diagnostics, &self.sources)
    }
}

/// Parse and check sources already in memory (no IO): the core of `check` and of tests.
pub fn compile_sources(sources: Vec<SourceFile>) -> Compiled {
    let mut diagnostics = Vec::new();
    let mut files = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        match parse::parse_file(i, &s.text) {
            Ok(f) => files.push((i, f)),
            Err(d) => diagnostics.extend(d),
        }
    }
    let (program, more) = check::check(&sources, &files);
    diagnostics.extend(more);
    sort(&mut diagnostics, &sources);
    // One problem, one report: the same diagnostic can arise from both sides of `x + x`.
    diagnostics.dedup();
    let program = if diagnostics.iter().any(|d| d.is_error()) { None } else { program };
    Compiled {
        sources,
        diagnostics,
        program,
        read: Vec::new(),
    }
}

fn sort(diags: &mut [Diagnostic], sources: &[SourceFile]) {
    diags.sort_by(|a, b| {
        let pa = sources.get(a.span.file).map(|s| s.path.as_str()).unwrap_or("");
        let pb = sources.get(b.span.file).map(|s| s.path.as_str()).unwrap_or("");
        (pa, a.span.start, a.severity, a.code, &a.message).cmp(&(pb, b.span.start, b.severity, b.code, &b.message))
    });
}

/// Read every `<root>/<system>/*.rules` file (sorted), naming them `<root-name>/<system>/<file>`.
pub fn load_dir(root: &Path) -> (Vec<SourceFile>, Vec<PathBuf>, Vec<String>) {
    let mut sources = Vec::new();
    let mut read = vec![root.to_path_buf()];
    let mut problems = Vec::new();
    let shown_root = root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| root.display().to_string());
    let mut systems: Vec<PathBuf> = match std::fs::read_dir(root) {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect(),
        Err(e) => {
            problems.push(format!("cannot read rules folder {}: {e}", root.display()));
            return (sources, read, problems);
        }
    };
    systems.sort();
    for dir in systems {
        read.push(dir.clone());
        let system = dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "rules"))
                .collect(),
            Err(e) => {
                problems.push(format!("cannot read {}: {e}", dir.display()));
                continue;
            }
        };
        files.sort();
        for f in files {
            read.push(f.clone());
            let name = f.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            match std::fs::metadata(&f) {
                Ok(m) if m.len() as usize > parse::MAX_FILE_BYTES => {
                    problems.push(format!(
                        "{shown_root}/{system}/{name}: {} bytes, more than the limit of {}",
                        m.len(),
                        parse::MAX_FILE_BYTES
                    ));
                    continue;
                }
                _ => {}
            }
            match std::fs::read_to_string(&f) {
                Ok(text) => sources.push(SourceFile {
                    path: format!("{shown_root}/{system}/{name}"),
                    text,
                    system: system.clone(),
                }),
                Err(e) => problems.push(format!("cannot read {}: {e}", f.display())),
            }
        }
    }
    if sources.is_empty() && problems.is_empty() {
        problems.push(format!("no `.rules` files under {}/<system>/", root.display()));
    }
    (sources, read, problems)
}

/// `check` over a rules folder: everything but code generation.
pub fn check_dir(root: &Path) -> Result<Compiled, Vec<String>> {
    let (sources, read, problems) = load_dir(root);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut c = compile_sources(sources);
    c.read = read;
    Ok(c)
}

/// The build script's entry: compile `root` into `out` (written only when it changed). On failure
/// returns the rendered diagnostics. Either way returns the paths read, for `rerun-if-changed`.
pub fn build(root: &Path, out: &Path) -> (Vec<PathBuf>, Result<usize, String>) {
    let c = match check_dir(root) {
        Ok(c) => c,
        Err(problems) => return (vec![root.to_path_buf()], Err(problems.join("\n"))),
    };
    let read = c.read.clone();
    let Some(program) = &c.program else {
        return (read, Err(c.render()));
    };
    let header = "// @generated by rulebook-compiler from rules-src/. Do not edit: change the rules text instead.\n";
    let code = match codegen::generate(program, header) {
        Ok(code) => code + &sources_static(&c.sources),
        Err(e) => return (read, Err(e)),
    };
    let unchanged = std::fs::read_to_string(out).map(|old| old == code).unwrap_or(false);
    if !unchanged {
        if let Err(e) = std::fs::write(out, &code) {
            return (read, Err(format!("cannot write {}: {e}", out.display())));
        }
    }
    (read, Ok(c.warnings()))
}

/// The rules text itself, compiled into the binary beside the code generated from it, so an
/// installed `rulebook` can show, export and compare its own rules without a checkout.
fn sources_static(sources: &[SourceFile]) -> String {
    let mut out = String::from("\n/// The rules text these resolvers were generated from: (path under the rules folder, text).\npub static RULES_SOURCES: &[(&str, &str)] = &[\n");
    for s in sources {
        let path = s.path.split_once('/').map(|(_, rest)| rest).unwrap_or(&s.path);
        out.push_str(&format!("    ({path:?}, {:?}),\n", s.text));
    }
    out.push_str("];\n");
    out
}

/// Rules text given as (path under the rules folder, text) pairs, as sources named
/// `<root>/<system>/<file>` the way `load_dir` names them.
pub fn sources_from_pairs(root: &str, pairs: &[(&str, &str)]) -> Vec<SourceFile> {
    pairs
        .iter()
        .map(|(path, text)| SourceFile {
            path: format!("{root}/{path}"),
            text: text.to_string(),
            system: path.split('/').next().unwrap_or("").to_string(),
        })
        .collect()
}
