//! The size of the generated code, per system, against a committed ceiling (issue 39): growth is
//! seen in the commit that causes it. Raise a ceiling only in a commit of its own that says why.
//!
//! `cargo test -p rulebook-compiler --test generated_size -- --nocapture` prints the table.

use rulebook_compiler::driver;
use std::path::Path;

/// The most generated lines allowed for the five books together.
const TOTAL_CEILING: usize = 158_650;

/// Per system: the most generated lines allowed.
const CEILINGS: [(&str, usize); 5] = [
    ("combat3000", 25_000),
    ("mercenary", 23_800),
    ("starleader", 21_100),
    ("striker", 57_500),
    ("t5", 31_400),
];

/// Per system (in the order generated): its name, generated lines and bytes, and the lines of
/// its rules text.
fn measure() -> Vec<(String, usize, usize, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules-src");
    let c = driver::check_dir(&root).unwrap_or_else(|p| panic!("{p:?}"));
    let program = c.program.as_ref().unwrap_or_else(|| panic!("{}", c.render()));
    let code = rulebook_compiler::codegen::generate(program, "").unwrap_or_else(|e| panic!("{e}"));
    // To look at what is measured: `GENERATED_OUT=/tmp/rules.rs cargo test ... --test generated_size`.
    if let Some(path) = std::env::var_os("GENERATED_OUT") {
        std::fs::write(&path, &code).unwrap_or_else(|e| panic!("{}: {e}", path.to_string_lossy()));
    }
    let mut sizes: Vec<(String, usize, usize, usize)> = Vec::new();
    for line in code.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("pub mod ").and_then(|l| l.strip_suffix(" {\n")) {
            let text: usize = c.sources.iter().filter(|s| s.system == name).map(|s| s.text.lines().count()).sum();
            sizes.push((name.to_string(), 0, 0, text));
        }
        if let Some(last) = sizes.last_mut() {
            last.1 += 1;
            last.2 += line.len();
        }
    }
    sizes
}

#[test]
fn generated_code_stays_under_its_ceiling() {
    let sizes = measure();
    println!(
        "{:<12} {:>9} {:>11} {:>11} {:>9}",
        "system", "lines", "bytes", "rules lines", "per line"
    );
    for (name, lines, bytes, text) in &sizes {
        println!(
            "{name:<12} {lines:>9} {bytes:>11} {text:>11} {:>9.1}",
            *lines as f64 / (*text).max(1) as f64
        );
    }
    let total: usize = sizes.iter().map(|s| s.1).sum();
    let bytes: usize = sizes.iter().map(|s| s.2).sum();
    println!("{:<12} {total:>9} {bytes:>11}", "total");
    let mut names: Vec<&str> = sizes.iter().map(|s| s.0.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        CEILINGS.map(|c| c.0),
        "a system without a ceiling, or a ceiling without its system"
    );
    for (name, lines, _, _) in &sizes {
        let ceiling = CEILINGS.iter().find(|c| c.0 == name).map_or(0, |c| c.1);
        assert!(*lines <= ceiling, "{name}: {lines} generated lines, above its ceiling of {ceiling}");
    }
    assert!(
        total <= TOTAL_CEILING,
        "{total} generated lines, above the ceiling of {TOTAL_CEILING}"
    );
}
