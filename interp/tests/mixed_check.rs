//! A `check` between a whole number and a decimal compares their values (found while encoding
//! Striker: `check x = a <= b` with a = 99 and b = 10.0 came out true).

use rulebook_compiler::check::SourceFile;
use rulebook_interp::Rules;
use rulebook_runtime as rt;

#[test]
fn check_compares_a_whole_number_with_a_decimal_by_value() {
    let text = "system t \"T\"\nresolver r \"R\" [1] {\n  in a: int 0..200\n  in b: decimal\n  out le: bool\n  out ge: bool\n  out gt: bool\n  check x = a <= b [1]\n  check y = b >= a [1]\n  check z = a > b [1]\n  set le = x\n  set ge = y\n  set gt = z\n}\n";
    let rules = Rules::from_sources(vec![SourceFile {
        path: "t/t.rules".into(),
        text: text.into(),
        system: "t".into(),
    }])
    .unwrap_or_else(|e| panic!("{e}"));
    let r = &rules.systems()[0].resolvers[0];
    for (a, b, want) in [
        (99, "10", [false, false, true]),
        (10, "99.5", [true, true, false]),
        (10, "10", [true, true, false]),
    ] {
        let inputs: rt::Inputs = [
            ("a".to_string(), rt::Value::Int(a)),
            ("b".to_string(), rt::Value::Dec(rt::Dec::parse(b).unwrap())),
        ]
        .into();
        let out = r.run_quiet(&mut rt::Seeded::new(1), &mut rt::NoTrace, &inputs).unwrap();
        let got: Vec<String> = ["le", "ge", "gt"].iter().map(|f| out.field(f).unwrap().to_string()).collect();
        let want: Vec<String> = want.iter().map(|b| b.to_string()).collect();
        assert_eq!(got, want, "a = {a}, b = {b}");
    }
}
