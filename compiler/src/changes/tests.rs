//! One edit of each kind (cell, row, modifier value, modifier condition, `require`, constant),
//! each found, placed, and traced to the resolvers that read it.

use super::{compare, Change, Changes, Version};
use crate::check::SourceFile;
use crate::ir::Program;

const BASE: &str = r#"system t "Test" cite "Test"
const bonus = 2 "bonus" [1.0]
table hits "Hits" [1.1] by 1d6 -> int {
  1..3 => 0
  4..6 => 1
}
table guns "Guns" [1.2] {
  key gun
  columns power: int, reach: int
  pistol | 2 | 3
  rifle | 3 | 8
}
resolver to_hit "To hit" [2.1] {
  in gun: guns
  in range: int 0..20 = 1
  out hit: bool
  require range <= gun.reach else "out of reach" [2.2]
  roll d = 2d6 "to hit" [2.1]
  let total = d + gun.power [2.1] {
    +3 "close range" when range <= 2 [2.3]
    -1 "long range" when range > 6 [2.3]
  }
  set hit = total >= 9 + bonus [2.1]
}
resolver damage "Damage" [3.1] {
  out n: int
  roll d = 1d6 "damage" [3.1]
  set n = hits(d) [3.1]
}
resolver shot "Shot" [4.1] {
  in gun: guns
  out hit: bool
  out n: int
  call h = to_hit(gun: gun) [4.1]
  set hit = h.hit [4.1]
  set n = 0 [4.1]
}
"#;

fn program(text: &str) -> (Program, Vec<SourceFile>) {
    let sources = vec![SourceFile {
        path: "t/t.rules".into(),
        text: text.into(),
        system: "t".into(),
    }];
    let compiled = crate::driver::compile_sources(sources);
    match compiled.program {
        Some(p) => (p, compiled.sources),
        None => panic!("the test rules do not check:\n{}\n{text}", compiled.render()),
    }
}

/// The changes from BASE to BASE with `from` replaced by `to` (which must occur once).
fn edit(from: &str, to: &str) -> Changes {
    assert_eq!(BASE.matches(from).count(), 1, "{from:?} occurs once in BASE");
    let (o, os) = program(BASE);
    let (n, ns) = program(&BASE.replace(from, to));
    compare(Version { program: &o, sources: &os }, Version { program: &n, sources: &ns })
}

fn one(c: &Changes) -> &Change {
    match c.changes.as_slice() {
        [one] => one,
        other => panic!("expected one change, found {other:#?}"),
    }
}

fn readers(c: &Changes) -> Vec<String> {
    c.readers.iter().map(|r| format!("{}: {}", r.resolver, r.why.join("; "))).collect()
}

#[test]
fn nothing_changed_is_nothing() {
    let c = edit("const bonus = 2 \"bonus\" [1.0]", "const bonus = 2 \"bonus\" [1.0]  // the same");
    assert_eq!(c.changes, vec![]);
    assert!(c.readers.is_empty());
}

#[test]
fn a_cell() {
    let c = edit("rifle | 3 | 8", "rifle | 3 | 9");
    let ch = one(&c);
    assert_eq!(
        (ch.kind, ch.item.as_str(), ch.what.as_str()),
        ("row", "guns row \"rifle\"", "reach 8 → 9")
    );
    assert_eq!(ch.row, Some(("guns".into(), "rifle".into())));
    assert_eq!(readers(&c), ["to_hit: table guns", "shot: table guns; calls to_hit"]);
}

#[test]
fn a_row() {
    let c = edit("  1..3 => 0\n  4..6 => 1", "  1..2 => 0\n  3..6 => 1");
    let what: Vec<String> = c.changes.iter().map(|c| format!("{} {}", c.item, c.what)).collect();
    assert_eq!(
        what,
        [
            "hits row \"1..2\" added: value 0",
            "hits row \"3..6\" added: value 1",
            "hits row \"1..3\" removed",
            "hits row \"4..6\" removed"
        ]
    );
    assert_eq!(readers(&c), ["damage: table hits"]);
}

#[test]
fn a_modifier_value() {
    let c = edit("+3 \"close range\"", "+2 \"close range\"");
    let ch = one(&c);
    assert_eq!(
        (ch.kind, ch.item.as_str(), ch.what.as_str()),
        ("resolver", "to_hit: modifier \"close range\"", "changed")
    );
    let (old, new) = (ch.old.as_ref().unwrap(), ch.new.as_ref().unwrap());
    assert_eq!(old.at, "t/t.rules:20");
    assert_eq!(old.text, "+3 \"close range\" when range <= 2 [2.3]");
    assert_eq!(new.text, "+2 \"close range\" when range <= 2 [2.3]");
    assert_eq!(readers(&c), ["to_hit: its own rules", "shot: calls to_hit"]);
}

#[test]
fn a_modifier_condition() {
    let c = edit("when range > 6", "when range > 5");
    let ch = one(&c);
    assert_eq!(ch.item, "to_hit: modifier \"long range\"");
    assert_eq!(ch.new.as_ref().unwrap().text, "-1 \"long range\" when range > 5 [2.3]");
}

#[test]
fn a_require() {
    let c = edit("require range <= gun.reach", "require range < gun.reach");
    let ch = one(&c);
    assert_eq!((ch.item.as_str(), ch.what.as_str()), ("to_hit: require", "changed"));
    assert_eq!(ch.new.as_ref().unwrap().at, "t/t.rules:17");
}

#[test]
fn a_constant() {
    let c = edit("const bonus = 2", "const bonus = 1");
    let what: Vec<String> = c.changes.iter().map(|c| format!("{} {}: {}", c.kind, c.item, c.what)).collect();
    assert_eq!(
        what,
        [
            "constant bonus: 2 → 1",
            "resolver to_hit: set hit: changed (the same text: a constant or a type it reads changed)"
        ]
    );
    assert_eq!(readers(&c), ["to_hit: its own rules", "shot: calls to_hit"]);
}

#[test]
fn a_line_added_above_moves_nothing() {
    // Every line below the new one moves down: only the new line is a change.
    let c = edit(
        "  roll d = 2d6 \"to hit\" [2.1]\n",
        "  require range >= 0 else \"negative\" [2.2]\n  roll d = 2d6 \"to hit\" [2.1]\n",
    );
    let ch = one(&c);
    assert_eq!((ch.item.as_str(), ch.what.as_str()), ("to_hit: require", "added"));
    assert_eq!(ch.new.as_ref().unwrap().at, "t/t.rules:18");
}

#[test]
fn a_table_added_above_changes_no_reader() {
    // Tables are named, not numbered, in the comparison: a new first table shifts no index.
    let c = edit(
        "table hits",
        "table extra \"Extra\" [9] by 1d6 -> int {\n  1..6 => 0\n}\nresolver uses_extra \"U\" [9] {\n  out n: int\n  roll d = 1d6 \"x\" [9]\n  set n = extra(d) [9]\n}\ntable hits",
    );
    let what: Vec<String> = c.changes.iter().map(|c| format!("{} {}", c.item, c.what)).collect();
    assert_eq!(what, ["extra new table", "uses_extra added"]);
    assert_eq!(readers(&c), ["uses_extra: its own rules; table extra"]);
}

#[test]
fn a_let_added_above_renumbers_nothing() {
    // The checker numbers locals in order (`v_total_3`): a binding added above renumbers every
    // later one, and the comparison reads them by their rules names.
    let c = edit(
        "  roll d = 2d6 \"to hit\" [2.1]\n",
        "  let spare = 1 [2.1]\n  roll d = 2d6 \"to hit\" [2.1]\n",
    );
    let ch = one(&c);
    assert_eq!((ch.item.as_str(), ch.what.as_str()), ("to_hit: let spare", "added"));
}

#[test]
fn a_constant_names_the_line_that_reads_it_by_its_rules_name() {
    let c = edit("const bonus = 2", "const bonus = 3");
    assert!(c.changes.iter().all(|ch| !ch.item.contains("v_")), "{:#?}", c.changes);
}
