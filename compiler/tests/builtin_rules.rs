//! The built-in rules under `rules-src/` check clean and generate code that parses.

use rulebook_compiler::driver;
use std::path::Path;

#[test]
fn builtin_rules_check_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules-src");
    let c = driver::check_dir(&root).unwrap_or_else(|p| panic!("{p:?}"));
    let rendered = c.render();
    assert_eq!(c.errors(), 0, "{rendered}");
    assert_eq!(c.warnings(), 0, "{rendered}");
    let program = c.program.as_ref().expect("program");
    let code = rulebook_compiler::codegen::generate(program, "").unwrap_or_else(|e| panic!("{e}"));
    assert!(code.contains("pub mod starleader"));
}

/// Issue 13: a broken rules file during `cargo build` showed its diagnostic under dozens of
/// `cargo::rerun-if-changed` lines (cargo prints the script's stdout first). A failed build
/// prints the diagnostics alone; cargo runs a failed build script again anyway.
#[test]
fn a_broken_build_shows_the_diagnostics_first_and_alone() {
    let dir = std::env::temp_dir().join(format!("rulebook-build-script-{}", std::process::id()));
    let sys = dir.join("rules-src/tiny");
    std::fs::create_dir_all(&sys).unwrap();
    let out = dir.join("rules.rs");
    std::fs::write(
        sys.join("a.rules"),
        "system tiny \"Tiny\"\ntable t \"T\" [1] {\n  columns a: int\n  \"open | 1\n}\n",
    )
    .unwrap();
    let broken = driver::build_script(&dir.join("rules-src"), &out);
    std::fs::write(
        sys.join("a.rules"),
        "system tiny \"Tiny\"\nresolver r \"R\" [1] {\n  out x: int\n  set x = 1\n}\n",
    )
    .unwrap();
    let fixed = driver::build_script(&dir.join("rules-src"), &out);
    std::fs::remove_dir_all(&dir).ok();
    assert!(!broken.ok);
    assert_eq!(broken.stdout, "", "nothing may come before the diagnostics");
    let first = broken.stderr.lines().next().unwrap_or("");
    assert!(
        first.starts_with("the rules in ") && first.ends_with("have errors; fix them and build again:"),
        "{first}"
    );
    let diag = broken.stderr.lines().nth(2).unwrap_or("");
    assert!(
        diag.starts_with("error[E0001]: unterminated string at rules-src/tiny/a.rules:4:3"),
        "{}",
        broken.stderr
    );
    assert!(fixed.ok && fixed.stderr.is_empty(), "{}", fixed.stderr);
    assert!(
        fixed.stdout.lines().all(|l| l.starts_with("cargo::rerun-if-changed=")),
        "{}",
        fixed.stdout
    );
    assert!(fixed.stdout.contains("a.rules"), "{}", fixed.stdout);
}
