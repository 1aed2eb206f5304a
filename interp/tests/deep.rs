//! Issue 14: the deepest expression the compiler accepts runs in the interpreter (traced, and
//! under exact odds) on the 2 MiB stack of a spawned thread.

use rulebook_compiler::check::SourceFile;
use rulebook_compiler::parse::MAX_EXPR_DEPTH;
use rulebook_interp::Rules;
use rulebook_runtime as rt;

fn run(expr: String) -> String {
    let text = format!(
        "system t \"T\"\nresolver r \"R\" [1] {{\n  in a: int 0..1\n  in b: bool\n  out x: decimal = 0\n  roll d = 1d2\n  let v = {expr}\n  set x = v\n}}\n"
    );
    let h = std::thread::Builder::new().stack_size(2 << 20).spawn(move || {
        let rules = match Rules::from_sources(vec![SourceFile {
            path: "t/t.rules".into(),
            text,
            system: "t".into(),
        }]) {
            Ok(r) => r,
            Err(e) => return format!("refused: {e}"),
        };
        let r = &rules.systems()[0].resolvers[0];
        let inputs: rt::Inputs = [("a".to_string(), rt::Value::Int(1)), ("b".to_string(), rt::Value::Bool(true))].into();
        let traced = r.run_traced(&mut rt::Seeded::new(7), &mut rt::Recorder::new(), &inputs);
        let odds = r.odds(&inputs);
        format!("{traced:?} {}", odds.is_ok())
    });
    match h {
        Ok(h) => h.join().unwrap_or_else(|_| panic!("the thread panicked")),
        Err(e) => panic!("cannot spawn: {e}"),
    }
}

#[test]
fn the_deepest_expressions_run() {
    for expr in [
        vec!["a"; MAX_EXPR_DEPTH + 1].join(" + "),
        vec!["d"; MAX_EXPR_DEPTH + 1].join(" - "),
        format!("d * {}", vec!["a"; MAX_EXPR_DEPTH].join(" * ")),
        format!("{}a", "- ".repeat(MAX_EXPR_DEPTH)),
        format!("if {}b then d else 0", "not ".repeat(MAX_EXPR_DEPTH - 1)),
    ] {
        let out = run(expr.clone());
        assert!(out.ends_with(" true") && out.starts_with("Ok("), "{expr}: {out}");
    }
}

/// Issue 44: the longest chain of calls `check` accepts (32 resolvers, each calling the next),
/// each call inside the most nested blocks it accepts (46, its brackets the 48th), the innermost with the deepest
/// expression, runs traced and under exact odds on the stack the CLI gives a resolution
/// (`rt::RESOLUTION_STACK`; this debug build needs between 16 and 32 MiB). A chain of 1,000
/// overflowed the stack; `check` refuses chains past 32 now (E0503).
#[test]
fn the_longest_chain_of_calls_runs_in_nested_blocks() {
    let (open, close) = ("if a >= 0 {\n".repeat(46), "}\n".repeat(46));
    let deepest = vec!["a"; MAX_EXPR_DEPTH].join(" + ");
    let mut text = format!(
        "system t \"T\"\nresolver c0 \"C\" [1] {{\n  in a: int 0..1\n  out x: int = 0\n  roll d = 1d2\n  set x = d + {deepest}\n}}\n"
    );
    for i in 1..32 {
        text.push_str(&format!(
            "resolver c{i} \"C\" [1] {{\n  in a: int 0..1\n  out x: int = 0\n{open}call y = c{}(a: a)\nset x = y.x + 1\n{close}}}\n",
            i - 1
        ));
    }
    let h = std::thread::Builder::new().stack_size(rt::RESOLUTION_STACK).spawn(move || {
        let rules = Rules::from_sources(vec![SourceFile {
            path: "t/t.rules".into(),
            text,
            system: "t".into(),
        }])
        .unwrap_or_else(|e| panic!("{e}"));
        let (_, r) = rt::find_resolver(rules.systems(), "t.c31").unwrap_or_else(|e| panic!("{e}"));
        let inputs: rt::Inputs = [("a".to_string(), rt::Value::Int(1))].into();
        let traced = r.run_traced(&mut rt::Seeded::new(7), &mut rt::Recorder::new(), &inputs);
        let odds = r.odds(&inputs).map(|d| d.outcomes.len());
        format!("{traced:?} {odds:?}")
    });
    let out = h
        .unwrap_or_else(|e| panic!("cannot spawn: {e}"))
        .join()
        .unwrap_or_else(|_| panic!("the thread panicked"));
    assert!(
        out.starts_with("Ok(Record([(\"x\", Int(96") || out.starts_with("Ok(Record([(\"x\", Int(97"),
        "{out}"
    );
    assert!(out.ends_with(" Ok(2)"), "{out}");
}
