//! The formatter (`rulebook fmt`) on every rules file there is: the five books and the corpus.
//! Laying a file out never changes what it means (the checked program, or the diagnostics, are
//! the same before and after, positions aside), laying it out twice changes nothing more, the
//! lossless tree gives back every byte, and `rules-src/` is kept laid out.

use rulebook_compiler::check::SourceFile;
use rulebook_compiler::{driver, fmt, syntax};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `*.rules` file under `dir`, sorted.
fn rules_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rules") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A program's or diagnostics' debug text with every source position blanked: spans' offsets,
/// line numbers and the `:line:col` of places.
fn positions_aside(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let marker = ["start: ", "end: ", "line: ", ".rules:"]
            .iter()
            .filter_map(|m| rest.find(m).map(|at| (at, *m)))
            .min();
        let Some((at, m)) = marker else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..at + m.len()]);
        rest = &rest[at + m.len()..];
        let skip = rest.find(|c: char| !(c.is_ascii_digit() || c == ':')).unwrap_or(rest.len());
        out.push('_');
        rest = &rest[skip..];
    }
    out
}

/// What the checker makes of `sources`: the program, or else the diagnostics, positions aside.
fn meaning(sources: Vec<SourceFile>) -> String {
    let c = driver::compile_sources(sources);
    match &c.program {
        Some(p) => positions_aside(&format!("{p:?}")),
        None => positions_aside(&format!(
            "{:?}",
            c.diagnostics
                .iter()
                .map(|d| (d.code, &d.message, &d.label, &d.help))
                .collect::<Vec<_>>()
        )),
    }
}

fn formatted(sources: &[SourceFile]) -> Vec<SourceFile> {
    sources
        .iter()
        .map(|s| SourceFile {
            text: fmt::format(0, &s.text).unwrap_or_else(|_| s.text.clone()),
            ..s.clone()
        })
        .collect()
}

/// `text` with the same tokens and line breaks but another indentation on every line and every
/// space between tokens doubled, leaving strings, comments and brackets `[...]` (citations) alone.
fn mangle(text: &str) -> String {
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        out.push_str(&" ".repeat(n % 5));
        let (mut quoted, mut bracket) = (false, 0usize);
        let mut chars = line.trim_start().chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' => quoted = !quoted,
                '\\' if quoted => {
                    out.push(c);
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                    continue;
                }
                '[' if !quoted => bracket += 1,
                ']' if !quoted => bracket = bracket.saturating_sub(1),
                '/' if !quoted && chars.peek() == Some(&'/') => {
                    out.push(c);
                    out.extend(chars.by_ref());
                    break;
                }
                ' ' if !quoted && bracket == 0 => out.push(' '),
                _ => {}
            }
            out.push(c);
        }
        out.push('\n');
    }
    out
}

#[test]
fn a_mangled_layout_comes_back_as_it_was() {
    for path in rules_files(&root().join("rules-src")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let laid = fmt::format(0, &text).unwrap();
        let again = fmt::format(0, &mangle(&text)).unwrap();
        assert!(
            laid == again,
            "{}: a mangled copy laid out differently:\n{}",
            path.display(),
            fmt::diff("laid out", &laid, &again)
        );
    }
}

#[test]
fn the_books_mean_the_same_laid_out() {
    let (sources, _, problems) = driver::load_dir(&root().join("rules-src"));
    assert!(problems.is_empty(), "{problems:?}");
    assert!(sources.len() > 50, "{} files", sources.len());
    let before = meaning(sources.clone());
    assert!(before.contains("ResolverDef"), "the books do not check");
    let after = meaning(formatted(&sources));
    assert!(before == after, "the checked program changed when laid out");
}

#[test]
fn each_corpus_file_means_the_same_laid_out() {
    let corpus = root().join("snapshots/corpus");
    let files = rules_files(&corpus);
    assert!(files.len() > 80, "{} corpus files", files.len());
    let mut laid_out = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let source = vec![SourceFile {
            path: "corpus/c.rules".into(),
            text,
            system: "corpus".into(),
        }];
        // Laid out from a mangled copy, so that every file has something to change.
        let mangled = vec![SourceFile {
            text: mangle(&source[0].text),
            ..source[0].clone()
        }];
        let after = formatted(&mangled);
        if after[0].text != mangled[0].text {
            laid_out += 1;
        }
        assert_eq!(meaning(source), meaning(after), "{} means something else laid out", path.display());
    }
    assert!(laid_out > 70, "only {laid_out} corpus files changed: the test compares too little");
}

#[test]
fn laying_out_twice_changes_nothing_more_and_the_tree_keeps_every_byte() {
    let mut files = rules_files(&root().join("rules-src"));
    files.extend(rules_files(&root().join("snapshots/corpus")));
    let mut parsed = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(tree) = syntax::parse(0, &text) else { continue };
        parsed += 1;
        assert_eq!(tree.text().to_string(), text, "{}: the tree lost text", path.display());
        let once = fmt::format(0, &text).unwrap();
        let twice = fmt::format(0, &once).unwrap();
        assert!(
            once == twice,
            "{}: formatting again changed it:\n{}",
            path.display(),
            fmt::diff("once", &once, &twice)
        );
    }
    assert!(parsed > 120, "{parsed} files parsed");
}

#[test]
fn rules_src_is_laid_out() {
    for path in rules_files(&root().join("rules-src")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let laid = fmt::format(0, &text).unwrap();
        assert!(
            laid == text,
            "{} is not laid out; run `rulebook fmt rules-src`:\n{}",
            path.display(),
            fmt::diff(&path.display().to_string(), &text, &laid)
        );
    }
}
