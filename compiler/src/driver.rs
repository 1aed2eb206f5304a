//! The only module that touches the file system: finds rules files, runs the pipeline and writes
//! generated code (only when it changed).

use crate::ast::Span;
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
    /// Errors and warnings left out of `diagnostics` past `MAX_DIAGNOSTICS_PER_FILE` (each such
    /// file ends with an N0001 note saying how many).
    pub hidden: (usize, usize),
}

/// Most diagnostics reported for one file; the rest are counted in a closing note.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;

impl Compiled {
    /// Every error, shown or not.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count() + self.hidden.0
    }
    /// Every warning, shown or not.
    pub fn warnings(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_warning()).count() + self.hidden.1
    }
    pub fn render(&self) -> String {
        crate::render::render_counted(&self.diagnostics, &self.sources, self.errors(), self.warnings())
    }
    /// `rulebook check --json`: whether the rules are clean, the counts, and every diagnostic
    /// with its code, severity, message, `file:line:col`, label and help.
    pub fn to_json(&self) -> serde_json::Value {
        let errors = self.errors();
        let diags: Vec<serde_json::Value> = self
            .diagnostics
            .iter()
            .map(|d| {
                // Where, both as `file:line:col` and field by field (1-based; columns in
                // characters; the end is the column after the span's last character), for editors
                // and CI annotations.
                let at = crate::render::position(d, &self.sources);
                serde_json::json!({
                    "code": d.code,
                    "severity": if d.is_error() { "error" } else if d.is_warning() { "warning" } else { "note" },
                    "message": d.message,
                    "location": crate::render::location(d, &self.sources),
                    "file": at.as_ref().map(|p| p.file.clone()),
                    "line": at.as_ref().map(|p| p.line),
                    "column": at.as_ref().map(|p| p.column),
                    "end_line": at.as_ref().map(|p| p.end_line),
                    "end_column": at.as_ref().map(|p| p.end_column),
                    "label": d.label,
                    "help": d.help,
                })
            })
            .collect();
        serde_json::json!({
            "ok": errors == 0,
            "files": self.sources.len(),
            "errors": errors,
            "warnings": self.warnings(),
            "diagnostics": diags,
        })
    }
}

/// Parse and check sources already in memory (no IO): the core of `check` and of tests.
pub fn compile_sources(sources: Vec<SourceFile>) -> Compiled {
    compile_with(sources, Vec::new())
}

/// `compile_sources`, with diagnostics found while reading (a file that is not UTF-8): their files
/// are not parsed, and count as files that failed to parse.
fn compile_with(sources: Vec<SourceFile>, mut diagnostics: Vec<Diagnostic>) -> Compiled {
    let unreadable: Vec<usize> = diagnostics.iter().map(|d| d.span.file).collect();
    let mut files = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        if unreadable.contains(&i) {
            continue;
        }
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
    let (diagnostics, hidden) = cap_per_file(diagnostics);
    Compiled {
        sources,
        diagnostics,
        program,
        read: Vec::new(),
        hidden,
    }
}

/// Keeps the first `MAX_DIAGNOSTICS_PER_FILE` diagnostics of each file (they come sorted by
/// file) and closes each file that had more with an N0001 note at the first one left out.
/// Returns the diagnostics kept and the (errors, warnings) left out.
fn cap_per_file(diags: Vec<Diagnostic>) -> (Vec<Diagnostic>, (usize, usize)) {
    let mut kept = Vec::with_capacity(diags.len().min(4 * MAX_DIAGNOSTICS_PER_FILE));
    let mut hidden = (0, 0);
    // (file, shown so far, errors left out, warnings left out, span of the first left out)
    let mut cur: Option<(usize, usize, usize, usize, Option<Span>)> = None;
    let close = |cur: Option<(usize, usize, usize, usize, Option<Span>)>, kept: &mut Vec<Diagnostic>| {
        if let Some((_, _, e, w, Some(span))) = cur {
            kept.push(
                Diagnostic::note(
                    "N0001",
                    span,
                    format!(
                        "… and {} more in this file ({e} error{}, {w} warning{}), not shown",
                        e + w,
                        if e == 1 { "" } else { "s" },
                        if w == 1 { "" } else { "s" }
                    ),
                )
                .label("the first not shown")
                .help(format!(
                    "only the first {MAX_DIAGNOSTICS_PER_FILE} diagnostics of a file are shown; fix these and check again"
                )),
            );
        }
    };
    for d in diags {
        if cur.as_ref().is_none_or(|c| c.0 != d.span.file) {
            close(cur.take(), &mut kept);
            cur = Some((d.span.file, 0, 0, 0, None));
        }
        let Some(c) = cur.as_mut() else { continue };
        if c.1 < MAX_DIAGNOSTICS_PER_FILE {
            c.1 += 1;
            kept.push(d);
            continue;
        }
        c.4.get_or_insert(d.span);
        if d.is_error() {
            c.2 += 1;
            hidden.0 += 1;
        } else if d.is_warning() {
            c.3 += 1;
            hidden.1 += 1;
        }
    }
    close(cur, &mut kept);
    (kept, hidden)
}

fn sort(diags: &mut [Diagnostic], sources: &[SourceFile]) {
    diags.sort_by(|a, b| {
        let pa = sources.get(a.span.file).map(|s| s.path.as_str()).unwrap_or("");
        let pb = sources.get(b.span.file).map(|s| s.path.as_str()).unwrap_or("");
        (pa, a.span.start, a.severity, a.code, &a.message).cmp(&(pb, b.span.start, b.severity, b.code, &b.message))
    });
}

/// Read every `<root>/<system>/*.rules` file (sorted), naming them `<root-name>/<system>/<file>`.
/// A file that is not UTF-8 comes with its bad bytes replaced (`check_dir` reports where).
pub fn load_dir(root: &Path) -> (Vec<SourceFile>, Vec<PathBuf>, Vec<String>) {
    let (sources, read, problems, _) = load(root);
    (sources, read, problems)
}

/// E0003 for a file that is not UTF-8, at its first bad byte.
fn not_utf8(file: usize, bytes: &[u8], e: &std::str::Utf8Error) -> Diagnostic {
    let at = e.valid_up_to();
    let len = e.error_len().unwrap_or(bytes.len() - at).max(1);
    let shown: Vec<String> = bytes[at..(at + len).min(bytes.len())]
        .iter()
        .map(|b| format!("0x{b:02X}"))
        .collect();
    Diagnostic::error(
        "E0003",
        Span {
            file,
            start: at,
            end: at + crate::diag::REPLACEMENT_LEN,
        },
        format!("the file is not valid UTF-8: byte {} is not part of a character", shown.join(" ")),
    )
    .label("not UTF-8")
    .help("save the file as UTF-8 (the byte is shown as �; a Latin-1 `é` is one such byte)")
}

/// A file longer than the limit `read_capped` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oversized;

/// Reads the file at `path`, but never more than `limit` bytes and one: a longer file (or an
/// endless one, such as `/dev/zero` or a pipe, which no size on disk describes) is `Oversized`,
/// found by reading, not by its metadata.
pub fn read_capped(path: &Path, limit: u64) -> std::io::Result<Result<Vec<u8>, Oversized>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(if bytes.len() as u64 > limit { Err(Oversized) } else { Ok(bytes) })
}

/// A rules folder as diagnostics name it, so that the paths they give open from where the
/// command runs: relative to the working folder when the folder is under it (`rules/house`),
/// absolute otherwise (`/home/me/house`, or `../house` made absolute).
fn shown(root: &Path) -> String {
    let full = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let here = std::env::current_dir().and_then(std::fs::canonicalize);
    match here.as_deref().ok().and_then(|h| full.strip_prefix(h).ok()) {
        Some(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Some(rel) => rel.display().to_string(),
        None => full.display().to_string(),
    }
}

/// `root` holds `.rules` files of its own: given where the folder of systems belongs, it is one
/// system's folder (`load` found no system folder with rules in it).
fn is_system_folder(root: &Path) -> bool {
    std::fs::read_dir(root)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .any(|e| e.path().extension().is_some_and(|x| x == "rules"))
        })
        .unwrap_or(false)
}

fn load(root: &Path) -> (Vec<SourceFile>, Vec<PathBuf>, Vec<String>, Vec<Diagnostic>) {
    let mut bad_text = Vec::new();
    let mut sources = Vec::new();
    let mut read = vec![root.to_path_buf()];
    let mut problems = Vec::new();
    let shown_root = shown(root);
    let mut systems: Vec<PathBuf> = match std::fs::read_dir(root) {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect(),
        Err(e) => {
            problems.push(format!("cannot read rules folder {}: {e}", root.display()));
            return (sources, read, problems, bad_text);
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
            match read_capped(&f, parse::MAX_FILE_BYTES as u64) {
                Ok(Err(Oversized)) => problems.push(format!(
                    "{shown_root}/{system}/{name}: more than the limit of {} bytes",
                    parse::MAX_FILE_BYTES
                )),
                Ok(Ok(bytes)) => {
                    let path = format!("{shown_root}/{system}/{name}");
                    let text = match String::from_utf8(bytes) {
                        Ok(text) => text,
                        Err(e) => {
                            bad_text.push(not_utf8(sources.len(), e.as_bytes(), &e.utf8_error()));
                            String::from_utf8_lossy(e.as_bytes()).into_owned()
                        }
                    };
                    sources.push(SourceFile {
                        path,
                        text,
                        system: system.clone(),
                    })
                }
                Err(e) => problems.push(format!("cannot read {}: {e}", f.display())),
            }
        }
    }
    if sources.is_empty() && problems.is_empty() {
        if is_system_folder(root) {
            let parent = root.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let name = root.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            problems.push(format!(
                "{} is one system's folder (its `.rules` files are in it, not in a folder per system): pass the folder that holds it, {}, and the system is `{name}`",
                root.display(),
                parent.display()
            ));
        } else {
            problems.push(format!("no `.rules` files under {}/<system>/", root.display()));
        }
    }
    (sources, read, problems, bad_text)
}

/// `check` over a rules folder: everything but code generation.
pub fn check_dir(root: &Path) -> Result<Compiled, Vec<String>> {
    let (sources, read, problems, bad_text) = load(root);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut c = compile_with(sources, bad_text);
    c.read = read;
    Ok(c)
}

/// The build script's entry: compile `root` into `out` (written only when it changed). On failure
/// returns the rendered diagnostics. Either way returns the paths read, for `rerun-if-changed`.
pub fn build(root: &Path, out: &Path) -> (Vec<PathBuf>, Result<usize, String>) {
    build_for(root, out, &|_| true)
}

/// `build` of the systems `keep` names (by folder), as if the others were not there: they are
/// neither checked nor generated, and `LEFT_OUT` in the generated code names them.
pub fn build_for(root: &Path, out: &Path, keep: &dyn Fn(&str) -> bool) -> (Vec<PathBuf>, Result<usize, String>) {
    let (mut sources, read, problems, bad_text) = load(root);
    if !problems.is_empty() {
        return (vec![root.to_path_buf()], Err(problems.join("\n")));
    }
    let mut left_out: Vec<String> = sources.iter().filter(|s| !keep(&s.system)).map(|s| s.system.clone()).collect();
    left_out.dedup();
    // Diagnostics found while reading name their files by index: keep those of the files kept.
    let kept: Vec<bool> = sources.iter().map(|s| keep(&s.system)).collect();
    let renumbered: Vec<Option<usize>> = kept
        .iter()
        .scan(0, |next, k| {
            let i = k.then_some(*next);
            *next += usize::from(*k);
            Some(i)
        })
        .collect();
    let bad_text = bad_text
        .into_iter()
        .filter_map(|mut d| {
            d.span.file = renumbered.get(d.span.file).copied().flatten()?;
            Some(d)
        })
        .collect();
    let mut i = 0;
    sources.retain(|_| {
        i += 1;
        kept[i - 1]
    });
    let mut c = compile_with(sources, bad_text);
    c.read = read;
    let read = c.read.clone();
    let Some(program) = &c.program else {
        return (read, Err(c.render()));
    };
    let header = "// @generated by rulebook-compiler from rules-src/. Do not edit: change the rules text instead.\n";
    let code = match codegen::generate(program, header) {
        Ok(code) => code + &sources_static(&c.sources) + &left_out_static(&left_out),
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

/// What the build script prints: on success, `cargo::rerun-if-changed` lines for every file and
/// folder read (stdout) and nothing else; on failure, the diagnostics alone (stderr) and no
/// rerun lines, so that cargo's failure report shows the diagnostics first instead of under
/// dozens of `rerun-if-changed` lines (cargo runs a failed build script again anyway).
pub struct BuildScript {
    pub stdout: String,
    pub stderr: String,
    pub ok: bool,
}

/// `build`, as the build script shows it (`build.rs` prints this and exits 1 unless `ok`).
pub fn build_script(root: &Path, out: &Path) -> BuildScript {
    build_script_for(root, out, &|_| true)
}

/// `build_for`, as the build script shows it: the systems `keep` names, the others left out.
pub fn build_script_for(root: &Path, out: &Path, keep: &dyn Fn(&str) -> bool) -> BuildScript {
    let (read, result) = build_for(root, out, keep);
    match result {
        Ok(_) => {
            let mut stdout = String::from("cargo::rerun-if-changed=build.rs\n");
            for path in read {
                stdout.push_str(&format!("cargo::rerun-if-changed={}\n", path.display()));
            }
            BuildScript {
                stdout,
                stderr: String::new(),
                ok: true,
            }
        }
        Err(rendered) => BuildScript {
            stdout: String::new(),
            stderr: format!(
                "the rules in {} have errors; fix them and build again:\n\n{rendered}",
                root.display()
            ),
            ok: false,
        },
    }
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

/// The systems of the rules folder that this build leaves out (their Cargo features are off).
fn left_out_static(left_out: &[String]) -> String {
    let names: Vec<String> = left_out.iter().map(|n| format!("{n:?}")).collect();
    format!(
        "\n/// The systems of the rules folder left out of this build (their Cargo features are off).\npub static LEFT_OUT: &[&str] = &[{}];\n",
        names.join(", ")
    )
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
