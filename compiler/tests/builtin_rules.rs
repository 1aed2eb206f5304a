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
