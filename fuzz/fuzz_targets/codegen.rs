//! Fuzz target: any text that checks generates Rust: `codegen::generate` returns the formatted
//! code (it parses its own output, so Ok means syntactically valid Rust) and never panics, and
//! the interpreter's registry builds from the same program. Which of these compile is the slow
//! test `tests/generated_rules.rs` (`--ignored`).
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use rulebook_compiler::{codegen, driver};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let c = driver::compile_sources(rulebook_fuzz::sources(&text));
    let Some(program) = c.program.as_ref() else { return };
    if let Err(e) = codegen::generate(program, "") {
        panic!("text that checks failed code generation: {e}");
    }
});
