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
    // The folder is outside the working folder here, so it is named whole (a build script names
    // `rules-src/...`, relative to the package it builds).
    assert!(
        diag.starts_with("error[E0001]: unterminated string at /") && diag.ends_with("/rules-src/tiny/a.rules:4:3"),
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

/// `ir::classed_rolls`: a roll read only as the whole key of one range table lets exact odds
/// branch over the table's rows (`Dice::roll_classed`); a roll read any other way, through two
/// tables, or through a keyed table, keeps its values.
#[test]
fn rolls_read_only_through_one_range_table_are_classed() {
    let text = r#"system tiny "Tiny"
enum effect "E" [1] { down, gone }
table two "Two rows" [1] by 1d6 -> effect {
  1..3 => down
  4..6 => gone
}
table other "Other rows" [1] by 1d6 -> effect {
  1..5 => down
  6 => gone
}
resolver r "R" [1] {
  out a: effect = down
  out b: effect = down
  out c: effect = down
  out d: int = 0
  out e: effect = down
  roll only = 1d6 "only through two" [1]
  set a = two(only)
  if a == gone {
    set e = two(only)
  }
  roll also = 1d6 "through two and read" [1]
  set b = two(also)
  set d = also
  roll both = 1d6 "through two tables" [1]
  set c = two(both)
  set e = other(both)
  roll shifted = 1d6 "a key worked out from it" [1]
  set c = two(shifted - 1 + 1)
}
"#;
    let c = driver::compile_sources(driver::sources_from_pairs("rules", &[("tiny/a.rules", text)]));
    assert_eq!(c.errors(), 0, "{}", c.render());
    let program = c.program.as_ref().expect("program");
    let sys = &program.systems[0];
    let classed = rulebook_compiler::ir::classed_rolls(sys, &sys.resolvers[0].body);
    let names: Vec<(&str, &str)> = classed.iter().map(|(v, t)| (v.as_str(), sys.tables[*t].name.as_str())).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].0.contains("only") && names[0].1 == "two", "{names:?}");
}
