//! The layout's rules, one small text each (`compiler/tests/fmt.rs` runs the books and the corpus).

use super::format;

fn fmt(src: &str) -> String {
    format(0, src).unwrap_or_else(|d| panic!("does not parse: {:?}", d[0].message))
}

#[test]
fn spaces_indents_and_one_statement_a_line() {
    let src = "resolver r \"R\" [1] {\nin a:int 0..3\n  out b : int\n    let x=floor( a/2 ) [1]  set b=x+1\n}\n";
    assert_eq!(
        fmt(src),
        "resolver r \"R\" [1] {\n  in a: int 0..3\n  out b: int\n  let x = floor(a / 2) [1]\n  set b = x + 1\n}\n"
    );
}

#[test]
fn a_one_line_block_with_one_statement_stays_on_its_line() {
    let src = "resolver r \"R\" [1] {\n  in a: int 0..3\n  out b: int\n  match a {\n    0 => { set b = 1 }\n    _ => { set b = 2   set b = 3 }\n  }\n}\n";
    assert_eq!(
        fmt(src),
        "resolver r \"R\" [1] {\n  in a: int 0..3\n  out b: int\n  match a {\n    0 => { set b = 1 }\n    _ => {\n      set b = 2\n      set b = 3\n    }\n  }\n}\n"
    );
}

#[test]
fn continuation_lines_stand_one_step_in_per_open_bracket() {
    let src = "resolver r \"R\" [1] {\n  in a: int 0..3\n  out b: int\n  set b = max(a,\n  if a > 1 then 2\n        else 3)\n  require b > 0\n else \"no\" [1]\n}\n";
    assert_eq!(
        fmt(src),
        "resolver r \"R\" [1] {\n  in a: int 0..3\n  out b: int\n  set b = max(a,\n    if a > 1 then 2\n    else 3)\n  require b > 0\n    else \"no\" [1]\n}\n"
    );
}

#[test]
fn table_cells_line_up_numbers_to_the_right() {
    let src = "table t \"T\" [1] {\n  key name\n  columns a: int, b: text\n  \"long name\" | 1 | x\n  \"n\" | -10 | yy // note\n\n  \"apart\" | 100 | z\n}\n";
    assert_eq!(
        fmt(src),
        "table t \"T\" [1] {\n  key name\n  columns a: int, b: text\n  \"long name\" |   1 | x\n  \"n\"         | -10 | yy  // note\n\n  \"apart\" | 100 | z\n}\n"
    );
}

#[test]
fn comments_stay_where_they_are_and_line_up_at_line_ends() {
    let src = "// head\n\n\n\nrecord r \"R\" [1] {\n  a: int,   // one\n  bb: int, // two\n  // alone\n  c: int\n}\n";
    assert_eq!(
        fmt(src),
        "// head\n\nrecord r \"R\" [1] {\n  a: int,   // one\n  bb: int,  // two\n  // alone\n  c: int\n}\n"
    );
}

#[test]
fn formatting_twice_gives_what_formatting_once_gave() {
    let src = "system s \"S\"\nenum e { a, b }\nresolver r \"R\" [1] { in x: e\n out y: int\n match x { a => { set y = 1 } b => { set y = 2 } } }\n";
    let once = fmt(src);
    assert_eq!(fmt(&once), once);
    assert!(
        once.contains("  match x {\n    a => { set y = 1 }\n    b => { set y = 2 }\n  }\n}\n"),
        "{once}"
    );
}
#[test]
fn empty_brackets_are_laid_out_too() {
    let src = "resolver r \"R\" [1] {\n  in a: int 0..3\n  out l: list int\n  match  a  {\n    _  =>  {   }\n  }\n  set l = [  ]\n}\n";
    assert!(fmt(src).contains("    _ => { }\n  }\n  set l = []\n"), "{}", fmt(src));
}
