//! The architecture invariants of ARCHITECTURE.md, enforced: a failure here names the rule broken.

use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every `.rs` file under `dir`, sub-folders included (the checker's phase modules live in
/// `compiler/src/check/`), as (path from the project root, text), in path order.
fn rust_files(dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = format!("{dir}/{}", p.file_name().unwrap().to_string_lossy());
        if p.is_dir() && !["tests", "examples", "common"].iter().any(|skip| name.ends_with(skip)) {
            out.extend(rust_files(&name));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((name.clone(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    out
}

#[test]
fn runtime_never_depends_on_the_compiler() {
    let manifest = read("runtime/Cargo.toml");
    assert!(
        !manifest.contains("rulebook-compiler"),
        "runtime/Cargo.toml must not depend on rulebook-compiler"
    );
    for (name, text) in rust_files("runtime/src") {
        assert!(!text.contains("rulebook_compiler"), "{name} uses the compiler");
    }
}

#[test]
fn the_compiler_does_io_only_in_its_driver() {
    for (name, text) in rust_files("compiler/src") {
        if name.ends_with("driver.rs") {
            continue;
        }
        for io in ["std::fs", "std::io::Write", "File::", "println!", "eprintln!"] {
            assert!(
                !text.contains(io),
                "{name} uses `{io}`: only compiler/src/driver.rs may touch the file system or print"
            );
        }
    }
}

#[test]
fn randomness_is_always_seeded_and_order_never_comes_from_a_hash() {
    for dir in [
        "runtime/src",
        "compiler/src",
        "interp/src",
        "src/cli",
        "api/src",
        "wasm/src",
        "python/src",
    ] {
        for (name, text) in rust_files(dir) {
            for banned in ["thread_rng", "rand::random", "from_entropy", "StdRng", "OsRng"] {
                assert!(!text.contains(banned), "{name} uses unseeded or unstable randomness (`{banned}`)");
            }
            assert!(
                !text.contains("HashMap") && !text.contains("HashSet"),
                "{name}: use BTreeMap/BTreeSet so output order is deterministic"
            );
        }
    }
}

/// The code of a Rust file without its comments and string literals (help texts and doc examples
/// may name weapons; code may not).
fn code_only(text: &str) -> String {
    // Unit tests (after `#[cfg(test)]`) may use book examples as test data.
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if !in_str && c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                out.push(c);
            }
            prev = c;
        }
        out.push('\n');
    }
    out
}

#[test]
fn no_game_knowledge_outside_rules_src() {
    // A few names that only the rulebooks use: if they appear in Rust, game data leaked out of rules-src.
    for dir in [
        "runtime/src",
        "compiler/src",
        "interp/src",
        "src",
        "src/cli",
        "api/src",
        "wasm/src",
        "python/src",
    ] {
        for (name, text) in rust_files(dir) {
            if name.ends_with("fixture.rs") || name.ends_with("tests.rs") {
                continue;
            }
            let code = code_only(&text);
            for word in [
                "Ghazi",
                "Alloid",
                "Syter",
                "Powzen",
                "Vacpak",
                "Bullet",
                "BTSD",
                "Ortillery",
                "Leadership",
            ] {
                assert!(
                    !code.contains(word),
                    "{name} mentions `{word}`: game knowledge belongs in rules-src/"
                );
            }
        }
    }
}

#[test]
fn every_source_file_says_what_it_is_for() {
    for dir in [
        "runtime/src",
        "compiler/src",
        "interp/src",
        "src",
        "src/cli",
        "tests",
        "benches",
        "api/src",
        "wasm/src",
        "wasm/bindgen/src",
        "python/src",
    ] {
        for (name, text) in rust_files(dir) {
            assert!(
                text.trim_start().starts_with("//!"),
                "{name} must start with a `//!` line saying what it is for"
            );
        }
    }
}

#[test]
fn generated_code_cannot_panic_or_use_unsafe() {
    // The resolver code build.rs generated from rules-src/ for this very build.
    let generated = std::fs::read_to_string(Path::new(env!("OUT_DIR")).join("rules.rs")).expect("generated rules.rs");
    // The rules text embedded at the end (`RULES_SOURCES`) is data, not code.
    let generated = generated.split("pub static RULES_SOURCES").next().unwrap_or("");
    assert!(generated.contains("pub mod starleader"), "not the generated rules file");
    for word in [
        ".unwrap()",
        ".expect(",
        "panic!",
        "unreachable!",
        "todo!",
        "unimplemented!",
        "unsafe ",
    ] {
        assert!(
            !generated.contains(word),
            "generated code contains `{word}`: it must return typed errors instead"
        );
    }
}

#[test]
fn every_crate_forbids_unsafe_code() {
    for root in [
        "src/lib.rs",
        "src/main.rs",
        "compiler/src/lib.rs",
        "runtime/src/lib.rs",
        "interp/src/lib.rs",
        "api/src/lib.rs",
        "wasm/src/lib.rs",
        "python/src/lib.rs",
        "wasm/bindgen/src/main.rs",
    ] {
        assert!(
            read(root).contains("#![forbid(unsafe_code)]"),
            "{root} must carry #![forbid(unsafe_code)]"
        );
    }
}

#[test]
fn runtime_modules_import_each_other_without_cycles() {
    // Module `a` depends on `b` when its code names `crate::b`. The graph must be acyclic, so each
    // module can be read (and changed) knowing only the ones below it.
    // A module is a file of `runtime/src/`, or a folder with all its files (`odds/`).
    let files = rust_files("runtime/src");
    let module = |name: &str| {
        let inside = name.trim_start_matches("runtime/src/");
        inside.split('/').next().unwrap_or("").trim_end_matches(".rs").to_string()
    };
    let mut modules: Vec<String> = files.iter().map(|(n, _)| module(n)).filter(|m| m != "lib").collect();
    modules.dedup();
    let deps = |m: &str| -> Vec<String> {
        let text: String = files.iter().filter(|(n, _)| module(n) == m).map(|(_, t)| t.as_str()).collect();
        modules
            .iter()
            .filter(|o| *o != m && text.contains(&format!("crate::{o}")))
            .cloned()
            .collect()
    };
    // Depth-first search for a back edge, naming the cycle it finds.
    fn visit(m: &str, deps: &dyn Fn(&str) -> Vec<String>, path: &mut Vec<String>, done: &mut Vec<String>) {
        if done.iter().any(|d| d == m) {
            return;
        }
        if let Some(i) = path.iter().position(|p| p == m) {
            panic!("runtime modules import each other in a circle: {} -> {m}", path[i..].join(" -> "));
        }
        path.push(m.to_string());
        for d in deps(m) {
            visit(&d, deps, path, done);
        }
        path.pop();
        done.push(m.to_string());
    }
    let mut done = Vec::new();
    for m in &modules {
        visit(m, &deps, &mut Vec::new(), &mut done);
    }
    assert!(modules.len() >= 8, "found only {modules:?}");
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    // Split by what the code converts, as `compiler/src/check/` is. The files still waiting for
    // their split (issue 39) are listed with the most lines they may have: a list that only shrinks.
    let waiting: [(&str, usize); 0] = [];
    for dir in [
        "src",
        "compiler/src",
        "runtime/src",
        "interp/src",
        "api/src",
        "wasm/src",
        "python/src",
    ] {
        for (name, text) in rust_files(dir) {
            let lines = text.lines().count();
            let limit = waiting.iter().find(|(w, _)| *w == name).map_or(1000, |(_, l)| *l);
            assert!(
                lines <= limit,
                "{name} has {lines} lines, over {limit}: split it by what its parts convert"
            );
        }
    }
}

#[test]
fn every_book_has_a_cargo_feature_on_by_default() {
    // `build.rs` compiles a folder of rules-src/ when the feature of its name is on: a book
    // without one would silently be left out of every build.
    let manifest = read("Cargo.toml");
    let wasm = read("wasm/Cargo.toml");
    let api = read("api/Cargo.toml");
    let python = read("python/Cargo.toml");
    let default = manifest.lines().find(|l| l.starts_with("default = ")).unwrap_or("");
    let wasm_default = wasm.lines().find(|l| l.starts_with("default = ")).unwrap_or("");
    let mut books = 0;
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("rules-src")).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let book = path.file_name().unwrap().to_string_lossy().to_string();
        books += 1;
        assert!(manifest.contains(&format!("\n{book} = []\n")), "Cargo.toml has no feature `{book}`");
        assert!(
            default.contains(&format!("\"{book}\"")),
            "Cargo.toml's default features leave out `{book}`"
        );
        // The bindings' logic (rulebook-api) compiles the book; the packages forward to it.
        assert!(
            api.contains(&format!("\n{book} = [\"compiled\", \"rulebook/{book}\"]\n")),
            "api/Cargo.toml has no feature `{book}`"
        );
        for (name, manifest) in [("wasm", &wasm), ("python", &python)] {
            assert!(
                manifest.contains(&format!("\n{book} = [\"compiled\", \"rulebook-api/{book}\"]\n")),
                "{name}/Cargo.toml has no feature `{book}` forwarding to rulebook-api"
            );
        }
        assert!(
            wasm_default.contains(&format!("\"{book}\"")),
            "wasm/Cargo.toml's default features leave out `{book}`"
        );
    }
    // rulebook-api has no default features: each package chooses its books.
    assert!(
        !api.lines().any(|l| l.starts_with("default = ")),
        "api/Cargo.toml must have no default features"
    );
    assert_eq!(books, 5);
}
