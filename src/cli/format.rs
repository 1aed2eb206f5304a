//! `rulebook fmt`: lays rules files out in the one layout (`rulebook_compiler::fmt`), in place,
//! or with `--check` says which files differ and how, changing nothing.

use super::CliError;
use rulebook_compiler::check::SourceFile;
use rulebook_compiler::driver::read_capped;
use rulebook_compiler::parse::MAX_FILE_BYTES;
use rulebook_compiler::{fmt, render};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Most files one run looks at, and deepest folder it walks into, so that a wrong path (`/`)
/// ends with a message instead of a walk of the whole disk.
const MAX_FILES: usize = 10_000;
const MAX_DEPTH: usize = 8;

#[derive(clap::Args, Debug)]
pub struct FmtArgs {
    /// Files, or folders to search for `*.rules` files (default: rules-src)
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Change nothing: list the files that are not laid out, with a diff of each, and exit 1 if
    /// there are any
    #[arg(long)]
    pub check: bool,
    /// Read rules text from standard input and write it laid out to standard output
    #[arg(long, conflicts_with_all = ["paths", "check"])]
    pub stdin: bool,
    /// Report as JSON: every file looked at, whether it changed (or would), and any errors
    #[arg(long, conflicts_with = "stdin")]
    pub json: bool,
}

/// What became of one file.
enum Outcome {
    Same,
    Changed {
        diff: String,
    },
    /// It does not parse: the parser's diagnostics, rendered.
    Broken {
        diagnostics: String,
    },
}

pub fn run(args: &FmtArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    if args.stdin {
        return from_stdin(out, err);
    }
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from("rules-src")]
    } else {
        args.paths.clone()
    };
    let mut files = Vec::new();
    for root in &roots {
        find(root, 0, &mut files)?;
    }
    files.sort();
    files.dedup();
    let mut outcomes = Vec::new();
    for path in &files {
        outcomes.push(one(path, args.check)?);
    }
    report(args, &files, &outcomes, out, err)
}

/// `--stdin`: the laid-out text to `out`, or the diagnostics to `err` and exit 1.
fn from_stdin(out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::usage(format!("cannot read standard input: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| CliError::usage("standard input is not UTF-8 text"))?;
    match fmt::format(0, &text) {
        Ok(laid) => Ok(out.write_all(laid.as_bytes())?),
        Err(d) => {
            write!(err, "{}", render::render(&d, &[source("<stdin>", text)]))?;
            Err(CliError {
                message: String::new(),
                code: 1,
            })
        }
    }
}

fn source(path: &str, text: String) -> SourceFile {
    SourceFile {
        path: path.to_string(),
        text,
        system: String::new(),
    }
}

/// Every `*.rules` file at or under `path`.
fn find(path: &Path, depth: usize, files: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let meta = std::fs::metadata(path).map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
    if !meta.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    if depth > MAX_DEPTH {
        return Err(CliError::usage(format!(
            "{}: folders nested more than {MAX_DEPTH} deep",
            path.display()
        )));
    }
    let entries = std::fs::read_dir(path).map_err(|e| CliError::usage(format!("cannot read the folder {}: {e}", path.display())))?;
    for entry in entries {
        let entry = entry.map_err(|e| CliError::usage(format!("cannot read the folder {}: {e}", path.display())))?;
        let p = entry.path();
        if p.is_dir() {
            find(&p, depth + 1, files)?;
        } else if p.extension().is_some_and(|e| e == "rules") {
            files.push(p);
        }
        if files.len() > MAX_FILES {
            return Err(CliError::usage(format!(
                "more than {MAX_FILES} rules files under {}",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Formats one file: in place unless `check`.
fn one(path: &Path, check: bool) -> Result<Outcome, CliError> {
    let cannot = |e: &dyn std::fmt::Display| CliError::usage(format!("cannot read {}: {e}", path.display()));
    let bytes = read_capped(path, MAX_FILE_BYTES as u64)
        .map_err(|e| cannot(&e))?
        .map_err(|_| cannot(&format_args!("it is larger than {MAX_FILE_BYTES} bytes")))?;
    let text = String::from_utf8(bytes).map_err(|_| cannot(&"it is not UTF-8 text"))?;
    let shown = path.display().to_string();
    let laid = match fmt::format(0, &text) {
        Ok(laid) => laid,
        Err(d) => {
            return Ok(Outcome::Broken {
                diagnostics: render::render(&d, &[source(&shown, text)]),
            })
        }
    };
    if laid == text {
        return Ok(Outcome::Same);
    }
    let diff = fmt::diff(&shown, &text, &laid);
    if !check {
        write_whole(path, laid.as_bytes())?;
    }
    Ok(Outcome::Changed { diff })
}

/// Writes `bytes` over the file at `path` whole or not at all: to a new file beside it, with its
/// permissions, then renamed over it.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |e: std::io::Error| CliError {
        message: format!("cannot write {}: {e}", path.display()),
        code: 1,
    };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".rulebook-fmt-{}.tmp", std::process::id()));
    let written = (|| {
        let perms = std::fs::metadata(path)?.permissions();
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::set_permissions(&tmp, perms)?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    Ok(())
}

fn report(args: &FmtArgs, files: &[PathBuf], outcomes: &[Outcome], out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let changed = outcomes.iter().filter(|o| matches!(o, Outcome::Changed { .. })).count();
    let broken = outcomes.iter().filter(|o| matches!(o, Outcome::Broken { .. })).count();
    if args.json {
        let docs: Vec<serde_json::Value> = files
            .iter()
            .zip(outcomes)
            .map(|(f, o)| {
                let (state, detail) = match o {
                    Outcome::Same => ("formatted", serde_json::Value::Null),
                    Outcome::Changed { diff } => (if args.check { "unformatted" } else { "changed" }, diff.clone().into()),
                    Outcome::Broken { diagnostics } => ("error", diagnostics.clone().into()),
                };
                serde_json::json!({"file": f.display().to_string(), "state": state, "detail": detail})
            })
            .collect();
        let doc = serde_json::json!({"check": args.check, "files": docs, "changed": changed, "errors": broken});
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| CliError {
                message: e.to_string(),
                code: 1
            })?
        )?;
    } else {
        for (f, o) in files.iter().zip(outcomes) {
            match o {
                Outcome::Same => {}
                Outcome::Changed { diff } if args.check => write!(out, "{diff}")?,
                Outcome::Changed { .. } => writeln!(out, "formatted {}", f.display())?,
                Outcome::Broken { diagnostics } => write!(err, "{diagnostics}")?,
            }
        }
        let verb = if args.check { "would change" } else { "changed" };
        writeln!(
            err,
            "{} rules file{}: {changed} {verb}, {broken} with errors",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        )?;
    }
    if broken > 0 || (args.check && changed > 0) {
        return Err(CliError {
            message: String::new(),
            code: 1,
        });
    }
    Ok(())
}
