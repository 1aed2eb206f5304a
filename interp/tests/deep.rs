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
