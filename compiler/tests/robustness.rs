//! Issue 14: no crash and no runaway on any rules text. Hostile inputs are built here (thousands of
//! terms, rows or resolvers), not committed; each must end in diagnostics, in linear work.

use rulebook_compiler::check::SourceFile;
use rulebook_compiler::driver::{self, Compiled};
use rulebook_compiler::parse::MAX_EXPR_DEPTH;

fn compile(text: &str) -> Compiled {
    driver::compile_sources(vec![SourceFile {
        path: "t/test.rules".into(),
        text: text.into(),
        system: "t".into(),
    }])
}

fn codes(c: &Compiled) -> Vec<&'static str> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

/// A resolver whose only `let` is `expr` (with `a`, an `int 0..1`, and `b`, a `bool`, in scope).
fn with_let(expr: &str) -> String {
    format!("system t \"T\"\nresolver r \"R\" [1] {{\n  in a: int 0..1\n  in b: bool\n  out x: int\n  let v = {expr}\n  set x = 0\n}}\n")
}

/// Runs `f` on a thread with a 2 MiB stack, the size `cargo test` gives each test, whatever
/// RUST_MIN_STACK says.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match std::thread::Builder::new().stack_size(2 << 20).spawn(f) {
        Ok(h) => h.join().unwrap_or_else(|_| panic!("the thread panicked")),
        Err(e) => panic!("cannot spawn: {e}"),
    }
}

#[test]
fn long_flat_expressions_are_a_diagnostic_not_a_stack_overflow() {
    for (expr, ops) in [
        (vec!["a"; 2000].join(" + "), 1999),
        (format!("{}a", "-".repeat(4000)), 4000),
        (format!("{}b", "not ".repeat(100_000)), 100_000),
        (vec!["a"; 3000].join(" * "), 2999),
        (vec!["b"; 3000].join(" and "), 2999),
    ] {
        let text = with_let(&expr);
        let c = on_small_stack(move || {
            let c = compile(&text);
            (codes(&c), c.render())
        });
        assert_eq!(c.0, ["E0002"], "{}", c.1);
        assert!(
            c.1.contains(&format!("expression nests too deeply: {ops} operators in a row")),
            "{}",
            c.1
        );
        assert!(c.1.contains("split it with `let`"), "{}", c.1);
    }
}

#[test]
fn a_long_chain_of_calls_is_no_recursion() {
    // Each resolver calls the next: the cycle search, the options walk and the depth of the
    // calls follow 5,000 calls without recursion. Past 32 the chain is refused (E0503), once.
    let chain = |n: usize| {
        let mut text = String::from("system t \"T\"\noption o \"O\" [1]\n");
        for i in 0..n {
            let body = if i + 1 < n {
                format!("call c = r{}()\n  set x = c.x", i + 1)
            } else {
                "set x = if option o then 1 else 0".to_string()
            };
            text.push_str(&format!("resolver r{i} \"R\" [1] {{\n  out x: int\n  {body}\n}}\n"));
        }
        on_small_stack(move || {
            let c = compile(&text);
            let p = c
                .program
                .as_ref()
                .map(|p| p.systems[0].resolvers[0].inputs.iter().any(|i| i.name == "o"));
            (codes(&c), c.render(), p)
        })
    };
    let (codes_long, errors, has_option) = chain(5000);
    assert_eq!(codes_long, ["E0503"], "{errors}");
    assert_eq!(has_option, None);
    // At the limit the option reaches the top of the chain.
    let (codes_32, errors, has_option) = chain(32);
    assert!(codes_32.is_empty(), "{errors}");
    assert_eq!(has_option, Some(true), "{errors}");
}

/// The deepest expression accepted goes through check and code generation on a small stack.
#[test]
fn the_deepest_expression_accepted_checks_and_generates() {
    let at_limit = |op: &str, x: &str| format!("{}{}", (0..MAX_EXPR_DEPTH).map(|_| format!("{x} {op} ")).collect::<String>(), x);
    let nested = {
        // Operators inside brackets inside operators: the depth adds up across brackets.
        let inner = vec!["a"; MAX_EXPR_DEPTH / 4].join(" + ");
        let mut e = inner.clone();
        for _ in 0..3 {
            e = format!("{inner} + ({e})");
        }
        e
    };
    for expr in [
        at_limit("+", "a"),
        at_limit("*", "a"),
        at_limit("-", "a"),
        format!("{}a", "- ".repeat(MAX_EXPR_DEPTH)),
        format!("if {}b then 1 else 0", "not ".repeat(MAX_EXPR_DEPTH - 1)),
        nested,
        // 46 blocks (the bracket limit leaves room for no more) around a chain filling the rest.
        format!(
            "{}if {}b then 1 else 0{}",
            "if b {\n".repeat(46),
            "not ".repeat(MAX_EXPR_DEPTH - 48),
            "}\n".repeat(46)
        ),
        format!(
            "{}{}{}",
            "if b {\n".repeat(46),
            vec!["a"; MAX_EXPR_DEPTH - 46].join(" + "),
            "}\n".repeat(46)
        ),
    ] {
        let body = match expr.split_once("if b {\n").filter(|(pre, _)| pre.is_empty()) {
            // Blocks: the `let` goes inside the innermost.
            Some(_) => {
                let (open, rest) = expr.split_at(expr.rfind("{\n").unwrap_or(0) + 2);
                let (chain, close) = rest.split_at(rest.find('}').unwrap_or(rest.len()));
                format!("{open}let v = {chain}\n  set x = v\n{close}")
            }
            None => format!("let v = {expr}\n  set x = v\n"),
        };
        let text = format!("system t \"T\"\nresolver r \"R\" [1] {{\n  in a: int 0..1\n  in b: bool\n  out x: decimal = 0\n  {body}}}\n");
        let (rendered, code) = on_small_stack(move || {
            let c = compile(&text);
            let code = c
                .program
                .as_ref()
                .map(|p| rulebook_compiler::codegen::generate(p, "").map(|s| s.len()));
            (c.render(), code)
        });
        assert!(matches!(code, Some(Ok(_))), "{rendered}\n{code:?}");
    }
    // One level more is refused.
    let c = compile(&with_let(&vec!["a"; MAX_EXPR_DEPTH + 2].join(" + ")));
    assert_eq!(codes(&c), ["E0002"]);
}

#[test]
fn deep_list_types_are_refused() {
    let c = compile(&format!(
        "system t \"T\"\nresolver r \"R\" [1] {{\n  in a: {}int = []\n  out x: int = 0\n}}\n",
        "list ".repeat(50_000)
    ));
    assert_eq!(codes(&c), ["E0002"], "{}", c.render());
}

#[test]
fn duplicate_rows_are_reported_once_each_and_capped() {
    // 3,000 rows over 6 values: every row after the first six overlaps an earlier one.
    let rows: String = (0..3000).map(|i| format!("  {} => {i}\n", i % 6 + 1)).collect();
    let text = format!(
        "system t \"T\"\ntable t \"T\" [1] by 1d6 -> int {{\n{rows}}}\nresolver r \"R\" [1] {{\n  in a: int 1..6\n  out x: int\n  set x = t(a)\n}}\n"
    );
    let c = compile(&text);
    assert_eq!(c.errors(), 2994);
    assert_eq!(c.diagnostics.len(), driver::MAX_DIAGNOSTICS_PER_FILE + 1);
    let last = &c.diagnostics[driver::MAX_DIAGNOSTICS_PER_FILE];
    assert_eq!(last.code, "N0001");
    assert_eq!(last.message, "… and 2894 more in this file (2894 errors, 0 warnings), not shown");
    let rendered = c.render();
    assert!(
        rendered.ends_with("2994 errors, 0 warnings\n"),
        "{}",
        &rendered[rendered.len() - 300..]
    );
    // Each duplicate names the first row with its value, on line 3..8.
    let d = &c.diagnostics[0];
    assert_eq!(d.message, "rows `1` and `1` overlap on 1");
    assert_eq!(
        d.help.as_deref(),
        Some("the earlier row is on line 3; each value must map to exactly one row")
    );

    // Keyed tables: one report per repeated key, against the first.
    let rows: String = (0..3000).map(|i| format!("  \"k{}\" | {i}\n", i % 6)).collect();
    let c = compile(&format!(
        "system t \"T\"\ntable t \"T\" [1] {{\n  key name\n  columns v: int\n{rows}}}\n"
    ));
    assert_eq!(c.errors(), 2994);
    assert_eq!(c.diagnostics.len(), driver::MAX_DIAGNOSTICS_PER_FILE + 1);
}

#[test]
fn overlapping_rows_out_of_order_are_each_reported() {
    let c = compile(
        "system t \"T\"\ntable t \"T\" [1] by 1d6 -> int {\n  4..6 => 1\n  1..4 => 2\n  2..2 => 3\n}\nresolver r \"R\" [1] {\n  in a: int 1..6\n  out x: int\n  set x = t(a)\n}\n",
    );
    let msgs: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs, ["rows `4..6` and `1..4` overlap on 4", "rows `1..4` and `2` overlap on 2"]);
    // Every value three times, and a row over all: each later row is reported once.
    let c = compile(
        "system t \"T\"\ntable t \"T\" [1] by 1d3 -> int {\n  1 => 1\n  2 => 2\n  3 => 3\n  1..3 => 4\n  1 => 5\n  2 => 6\n  3 => 7\n}\nresolver r \"R\" [1] {\n  in a: int 1..3\n  out x: int\n  set x = t(a)\n}\n",
    );
    let msgs: Vec<String> = c
        .diagnostics
        .iter()
        .map(|d| format!("{} ({})", d.message, d.help.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        msgs,
        [
            "rows `3` and `1..3` overlap on 3 (the earlier row is on line 5; each value must map to exactly one row)",
            // Against the earlier row reaching furthest, which here is `1..3`.
            "rows `1..3` and `1` overlap on 1 (the earlier row is on line 6; each value must map to exactly one row)",
            "rows `1..3` and `2` overlap on 2 (the earlier row is on line 6; each value must map to exactly one row)",
            // Of two reaching as far, the first.
            "rows `3` and `3` overlap on 3 (the earlier row is on line 5; each value must map to exactly one row)",
        ]
    );
}

#[test]
fn a_file_that_is_not_utf8_says_where() {
    let dir = std::env::temp_dir().join(format!("rulebook-utf8-{}", std::process::id()));
    let sys = dir.join("t");
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::write(
        sys.join("a.rules"),
        b"system t \"T\"\nresolver r \"R\" [1] {\n  in a: int 0..1 \"caf\xe9\"\n  out x: int = 0\n}\n",
    )
    .unwrap();
    let c = driver::check_dir(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(codes(&c), ["E0003"], "{}", c.render());
    let rendered = c.render();
    assert!(rendered.contains("/t/a.rules:3:22\n"), "{rendered}");
    assert!(rendered.contains("byte 0xE9"), "{rendered}");
}

#[test]
fn division_by_a_literal_zero_is_named_whatever_the_type() {
    // `/` gives a decimal, so `x` (an int) would also be a type mismatch: only the division by
    // zero is reported.
    for set in [
        "set x = a / 0",
        "let v = a / 0\n  set x = v",
        "set x = round(a / 0)",
        "set x = a % 0",
        "set x = a / 0.0",
        "set x = a / (2 - 2)",
        "set x = d / 0.0",
    ] {
        let c = compile(&format!(
            "system t \"T\"\nresolver r \"R\" [1] {{\n  in a: int 0..3\n  in d: decimal\n  out x: int\n  {set}\n}}\n"
        ));
        assert_eq!(codes(&c), ["E0402"], "{set}: {}", c.render());
    }
}

#[test]
fn the_smallest_integer_is_a_literal() {
    let c = compile(
        "system t \"T\"\nconst lowest = -9223372036854775808 \"x\" [1]\nresolver r \"R\" [1] {\n  out x: int\n  set x = -9223372036854775808\n}\n",
    );
    assert_eq!(codes(&c), Vec::<&str>::new(), "{}", c.render());
    // Its negation does not fit: overflow, not a crash.
    let c = compile("system t \"T\"\nresolver r \"R\" [1] {\n  out x: int\n  set x = - -9223372036854775808\n}\n");
    assert!(codes(&c).contains(&"E0401"), "{}", c.render());
    let c = compile("system t \"T\"\nresolver r \"R\" [1] {\n  out x: int\n  set x = -9223372036854775809\n}\n");
    assert_eq!(codes(&c), ["E0401"], "{}", c.render());
}

#[test]
fn a_diagnostic_on_a_huge_line_shows_a_window_of_it() {
    let filler = "let q = 1 ".repeat(90_000);
    let text = format!("system t \"T\"\nresolver r \"R\" [1] {{ {filler} set zz = 1 }}\n");
    let c = compile(&text);
    let rendered = c.render();
    assert!(
        rendered.len() < 3000,
        "{} bytes:\n{}",
        rendered.len(),
        &rendered[..3000.min(rendered.len())]
    );
    assert!(rendered.contains('…'), "{rendered}");
    assert!(rendered.contains("zz"), "{rendered}");
    // The column miette shows is the true one.
    let d = &c.diagnostics[0];
    let loc = rulebook_compiler::render::location(d, &c.sources);
    assert!(rendered.contains(&format!("[{loc}]")), "{rendered}");
}

/// Found by the rules generator (`tests/rulegen/`): brackets nested well inside `MAX_NESTING`
/// (table lookups, calls, `if` in parentheses) overflowed a 2 MiB stack while lowering, because
/// every bracket level passed through a dozen one-child grammar rules, each a recursive call with
/// a large frame. The deepest nesting of each kind accepted now checks and generates code there.
#[test]
fn the_deepest_brackets_accepted_check_and_generate_on_a_small_stack() {
    use rulebook_compiler::parse::MAX_NESTING;
    // The resolver's braces are one level; the rest is the expression's.
    let n = MAX_NESTING - 1;
    let wrap = |open: &str, close: &str, x: &str| format!("{}{x}{}", open.repeat(n), close.repeat(n));
    for expr in [
        wrap("(", ")", "a"),
        wrap("max(", ", 1)", "a"),
        wrap("(if b then ", " else 0)", "a"),
        wrap("clamp(", ", 0, 5)", "a"),
        wrap("(-", ")", "a"),
        // Each argument read once: nested `max(`/`sqrt(` took time exponential in the depth.
        wrap("sqrt(", ")", "a"),
        wrap("min(", ", 1, 2)", "a"),
    ] {
        let text = with_let(&expr);
        let (rendered, code) = on_small_stack(move || {
            let c = compile(&text);
            let code = c
                .program
                .as_ref()
                .map(|p| rulebook_compiler::codegen::generate(p, "").map(|s| s.len()));
            (c.render(), code)
        });
        assert!(matches!(code, Some(Ok(_))), "{expr}\n{rendered}\n{code:?}");
    }
}

/// Found by the slow generated-rules compile test: a statement after `break` or `return` in the
/// same block passed `check`, and the generated Rust failed rustc with warnings denied
/// (`unreachable statement`). It is E0203 now, once per block, at the first such statement.
#[test]
fn a_statement_after_break_or_return_is_a_diagnostic() {
    for (jump, body) in [
        ("break", "repeat up to 3 {\n    break\n    let y = 1\n    set x = y\n  }"),
        ("return", "if a > 0 {\n    return\n    set x = 2\n  }"),
        ("return", "return\n  set x = 1"),
        (
            "break",
            "repeat up to 2 {\n    break\n    match a {\n      0 => { set x = 1 }\n    }\n  }",
        ),
    ] {
        let text = format!("system t \"T\"\nresolver r \"R\" [1] {{\n  in a: int 0..1\n  out x: int = 0\n  {body}\n}}\n");
        let c = compile(&text);
        assert_eq!(codes(&c), ["E0203"], "{text}\n{}", c.render());
        let d = &c.diagnostics[0];
        assert!(d.message.contains(&format!("after `{jump}`")), "{}", d.message);
        assert!(
            text[d.span.start..].starts_with("let y")
                || text[d.span.start..].starts_with("set x")
                || text[d.span.start..].starts_with("match")
        );
    }
    // `break` and `return` last in their blocks are fine.
    let c = compile("system t \"T\"\nresolver r \"R\" [1] {\n  in b: bool\n  out x: int = 0\n  repeat up to 2 {\n    if b {\n      break\n    }\n    set x = 1\n  }\n  return\n}\n");
    assert_eq!(codes(&c), Vec::<&str>::new(), "{}", c.render());
}

/// Found by the `check` fuzz target: a syntax error at a long run of multi-byte characters
/// (`resolver r` followed by U+FFFD, as invalid UTF-8 reads) was shown as its first 40 bytes,
/// which ended inside a character. Every span must start and end on character boundaries, or
/// slicing the source for the caret would panic.
#[test]
fn syntax_errors_before_multibyte_characters_end_on_a_character_boundary() {
    let long = "\u{FFFD}".repeat(20);
    for tail in [
        format!("{long} \"R\" [1] {{\n}}\n"),
        "é".repeat(30),
        format!("r{} \"R\" [1] {{}}", "😀".repeat(15)),
        "\u{FFFD}".into(),
    ] {
        let text = format!("system t \"T\"\nresolver r {tail}");
        let c = compile(&text);
        assert!(!c.diagnostics.is_empty());
        for d in &c.diagnostics {
            assert!(
                text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end) && d.span.end <= text.len(),
                "{} at {}..{} in {text:?}",
                d.code,
                d.span.start,
                d.span.end
            );
        }
        let _ = c.render();
    }
}

/// Found by the fuzzer (codegen target): a carriage return and NUL bytes inside a system's title
/// checked, then broke the generated doc comment. A control character anywhere in rules text is a
/// diagnostic at its position; tab, newline and a CRLF line end are whitespace.
#[test]
fn control_characters_in_rules_text_are_a_diagnostic() {
    for (text, at) in [
        (
            "system t \"C\0\0\u{2}\rpus\"\nresolver r \"R\" [1] {\n  out x: int = 0\n}\n",
            "t/test.rules:1:12",
        ),
        (
            "system t \"T\"\nresolver r \"R\u{1b}[31m\" [1] {\n  out x: int = 0\n}\n",
            "t/test.rules:2:14",
        ),
        (
            "system t \"T\" // a \u{7f} in a comment\nresolver r \"R\" [1] {\n  out x: int = 0\n}\n",
            "t/test.rules:1:19",
        ),
        ("system t \"T\"\rresolver r \"R\" [1] {\n  out x: int = 0\n}\n", "t/test.rules:1:13"),
    ] {
        let c = compile(text);
        assert_eq!(codes(&c), ["E0004"], "{text:?}: {}", c.render());
        let rendered = c.render();
        assert!(rendered.contains(at), "{text:?}: {rendered}");
        assert!(rendered.contains("control character"), "{rendered}");
    }
    // Tabs and Windows line ends are fine, and such text generates code.
    let ok = compile("system t \"T\"\r\nresolver r \"R\tx\" [1] {\r\n\tout x: int = 0\r\n}\r\n");
    assert!(ok.diagnostics.is_empty(), "{}", ok.render());
    let program = ok.program.as_ref().expect("a program");
    rulebook_compiler::codegen::generate(program, "").expect("code");
}
