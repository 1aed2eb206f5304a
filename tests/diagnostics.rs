//! The diagnostics corpus: every `snapshots/corpus/err/*.rules` must produce at least one
//! diagnostic, rendered as the user sees it; every `snapshots/corpus/ok/*.rules` must check clean,
//! and its generated Rust is snapshotted. Add a case by dropping in a file.

use rulebook_compiler::check::SourceFile;
use rulebook_compiler::{codegen, driver};

fn compile(path: &std::path::Path) -> driver::Compiled {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let folder = path.parent().and_then(|p| p.file_name()).unwrap().to_string_lossy().to_string();
    driver::compile_sources(vec![SourceFile {
        path: format!("corpus/{folder}/{name}"),
        text,
        system: "corpus".into(),
    }])
}

#[test]
fn err_corpus_renders_diagnostics() {
    insta::glob!("../snapshots/corpus/err", "*.rules", |path| {
        let c = compile(path);
        assert!(!c.diagnostics.is_empty(), "{} produced no diagnostic", path.display());
        let rendered = c.render();
        // Every diagnostic names file:line:col and has a code.
        for d in &c.diagnostics {
            assert!(rendered.contains(&format!("[{}]", d.code)));
            assert!(rendered.contains(&rulebook_compiler::render::location(d, &c.sources)));
        }
        insta::with_settings!({ snapshot_path => "../snapshots/diagnostics", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(format!("{}\n----\n{}", c.sources[0].text, rendered));
        });
    });
}

/// A folder under `snapshots/corpus/err-folders/` is one system of several files, checked together
/// (for diagnostics that depend on more than one file, such as a file that fails to parse).
#[test]
fn err_folders_render_diagnostics() {
    insta::glob!("../snapshots/corpus/err-folders", "*", |dir| {
        if !dir.is_dir() || dir.ends_with("err-folders") {
            return;
        }
        let case = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rules"))
            .collect();
        paths.sort();
        let sources: Vec<SourceFile> = paths
            .iter()
            .map(|p| SourceFile {
                path: format!("corpus/{case}/{}", p.file_name().unwrap().to_string_lossy()),
                text: std::fs::read_to_string(p).unwrap(),
                system: "corpus".into(),
            })
            .collect();
        let texts: Vec<String> = sources.iter().map(|s| format!("// {}\n{}", s.path, s.text)).collect();
        let c = driver::compile_sources(sources);
        assert!(!c.diagnostics.is_empty(), "{case} produced no diagnostic");
        let rendered = c.render();
        for d in &c.diagnostics {
            assert!(rendered.contains(&format!("[{}]", d.code)));
            assert!(rendered.contains(&rulebook_compiler::render::location(d, &c.sources)));
        }
        insta::with_settings!({ snapshot_path => "../snapshots/diagnostics", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(format!("{}\n----\n{}", texts.join("\n"), rendered));
        });
    });
}

#[test]
fn ok_corpus_checks_clean_and_generates() {
    insta::glob!("../snapshots/corpus/ok", "*.rules", |path| {
        let c = compile(path);
        assert!(c.diagnostics.is_empty(), "{}", c.render());
        let code = codegen::generate(c.program.as_ref().unwrap(), "").unwrap();
        insta::with_settings!({ snapshot_path => "../snapshots/generated", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(code);
        });
    });
}

#[test]
fn every_code_is_documented_once() {
    let codes: Vec<&str> = rulebook_compiler::diag::CODES.iter().map(|(c, _)| *c).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), codes.len(), "duplicate diagnostic code");
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/dsl.md")).unwrap_or_default();
    for c in codes {
        assert!(doc.contains(c), "docs/dsl.md does not document {c}");
    }
}

/// The books' own rules check clean: no errors and no warnings (each read of an input that shares
/// its name with an output set above says `in.NAME` or `out.NAME`, W0005).
#[test]
fn the_books_check_without_a_warning() {
    let c = driver::check_dir(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rules-src"))).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(c.diagnostics.is_empty(), "{}", c.render());
}
