//! Locals live in slots of the call's frame, and a block's slots are reused once it ends
//! (`lower`): sibling blocks, an aggregate's item and the `let` after it, nested loops, and a name
//! an inner block declares again must each still read their own value.

use rulebook_compiler::check::SourceFile;
use rulebook_interp::Rules;
use rulebook_runtime as rt;

const TEXT: &str = r#"system t "T"
resolver r "R" [1] {
  in n: int 0..10
  out a: int
  out b: int
  out c: int
  out d: list int
  out e: int
  let x = n + 1
  if n > 2 {
    let y = x * 10
    set a = y
  } else {
    let z = x * 100
    set a = z + 1
  }
  set b = x
  let w = sum(i in [1, 2, 3]: i * x)
  set c = w + x
  var acc: list int = []
  for i in [1, 2] {
    let t = i + x
    for j in [10, 20] {
      let u = t + j
      acc = acc + [u]
    }
    let after = t * 2
    acc = acc + [after]
  }
  set d = acc
  var k = 0
  for i in [5, 6] {
    let x = i * 1000
    k = k + x
  }
  set e = k + x
}
"#;

fn run(n: i64) -> rt::Value {
    let rules = Rules::from_sources(vec![SourceFile {
        path: "t/t.rules".into(),
        text: TEXT.into(),
        system: "t".into(),
    }])
    .unwrap_or_else(|e| panic!("{e}"));
    let r = &rules.systems()[0].resolvers[0];
    let inputs: rt::Inputs = [("n".to_string(), rt::Value::Int(n))].into();
    r.run_quiet(&mut rt::Seeded::new(1), &mut rt::NoTrace, &inputs)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn field(v: &rt::Value, name: &str) -> String {
    v.field(name).map(|x| x.to_string()).unwrap_or_else(|| panic!("no `{name}` in {v}"))
}

#[test]
fn each_local_reads_its_own_value_when_slots_are_reused() {
    // n = 1: x = 2; the `else` branch; w = (1 + 2 + 3) * 2 = 12.
    let out = run(1);
    assert_eq!(field(&out, "a"), "201");
    assert_eq!(field(&out, "b"), "2");
    assert_eq!(field(&out, "c"), "14");
    // i = 1: t = 3, u = 13, 23, after = 6; i = 2: t = 4, u = 14, 24, after = 8.
    assert_eq!(field(&out, "d"), "[13, 23, 6, 14, 24, 8]");
    // The loop's own `x` (5000, 6000) ends with the loop: the outer `x` is 2 again.
    assert_eq!(field(&out, "e"), "11002");
    // n = 5: x = 6; the `if` branch.
    let out = run(5);
    assert_eq!(field(&out, "a"), "60");
    assert_eq!(field(&out, "c"), "42");
    assert_eq!(field(&out, "e"), "11006");
}
