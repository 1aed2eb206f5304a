//! Unit-test helpers for the phase modules: rules text in memory through `parse` and `check`, with
//! the diagnostics in the order `check` reported them (before the driver sorts them).

use super::{check, SourceFile};
use crate::diag::Diagnostic;
use crate::ir::Program;

/// Parse and check `text` as the only file of a system folder named `t`.
pub(super) fn run(text: &str) -> (Option<Program>, Vec<Diagnostic>) {
    let sources = [SourceFile {
        path: "t/test.rules".into(),
        text: text.into(),
        system: "t".into(),
    }];
    match crate::parse::parse_file(0, text) {
        Ok(file) => check(&sources, &[(0, file)]),
        Err(d) => panic!("the test rules do not parse: {d:?}\n{text}"),
    }
}

/// The diagnostics of `src`, written after a `system t` line.
pub(super) fn diagnostics(src: &str) -> Vec<Diagnostic> {
    run(&format!("system t \"Test\"\n{src}")).1
}

/// The checked program of `src` (after a `system t` line), which must check without errors.
pub(super) fn program(src: &str) -> Program {
    match run(&format!("system t \"Test\"\n{src}")) {
        (Some(p), _) => p,
        (None, d) => panic!("expected no errors, found {d:#?}"),
    }
}

/// Check `src` (after a `system t` line) and assert the codes of its diagnostics, in order.
#[track_caller]
pub(super) fn check_codes(src: &str, expected: &[&str]) {
    let diags = diagnostics(src);
    let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, expected, "{diags:#?}");
}

/// The one diagnostic of `src` with code `code`: its message and help.
#[track_caller]
pub(super) fn only(src: &str, code: &str) -> (String, String) {
    let diags = diagnostics(src);
    match diags.as_slice() {
        [d] if d.code == code => (d.message.clone(), d.help.clone().unwrap_or_default()),
        _ => panic!("expected exactly one {code}, found {diags:#?}"),
    }
}

/// A resolver reading `t(d)` for a roll `d` of `dice`, so the table counts as used.
pub(super) fn with_reader(table: &str, dice: &str) -> String {
    format!("{table}\nresolver r \"R\" [1] {{\n  out x: int\n  roll d = {dice}\n  set x = t(d)\n}}\n")
}
