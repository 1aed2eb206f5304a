//! Fuzz target: parse and check arbitrary rules text (one or more files, `//== SYSTEM/FILE.rules`
//! lines between them) through the driver's in-memory entry. Never a panic; every diagnostic
//! points into its file; a program exactly when there is no error; the rendering names each error.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use rulebook_compiler::driver;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let c = driver::compile_sources(rulebook_fuzz::sources(&text));
    for d in &c.diagnostics {
        let file = c.sources.get(d.span.file).unwrap_or_else(|| panic!("{} points to no file", d.code));
        assert!(
            d.span.start <= d.span.end && d.span.end <= file.text.len(),
            "{} at {}..{} outside {} ({} bytes)",
            d.code,
            d.span.start,
            d.span.end,
            file.path,
            file.text.len()
        );
        assert!(file.text.is_char_boundary(d.span.start) && file.text.is_char_boundary(d.span.end));
    }
    assert_eq!(c.errors() == 0, c.program.is_some(), "a program exactly when there is no error");
    let rendered = c.render();
    if c.errors() > 0 {
        assert!(rendered.contains("error["), "errors are rendered");
    }
});
