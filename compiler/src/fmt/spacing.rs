//! Whether one space or none goes between two tokens on a line.

use super::tokens::Tok;
use crate::parse::Rule;
use crate::syntax::SyntaxKind;

/// Rules whose `(` follows a name with no space: calls, `sum(...)`, `update(...)`.
const CALLS: &[Rule] = &[Rule::call, Rule::aggregate, Rule::update, Rule::call_stmt];

/// One space between `a` and `b`, else none: none inside brackets, before `,` `:` `.` `?`, around
/// `.`, after a sign, and before the `(` of a call; one elsewhere.
pub(super) fn space(a: &Tok, b: &Tok) -> bool {
    let tight_before = [",", ")", "]", ".", ":"].iter().any(|p| b.is(p)) || b.kind == SyntaxKind::Rule(Rule::opt_mark);
    let tight_after = ["(", "[", "."].iter().any(|p| a.is(p)) || a.kind == SyntaxKind::Rule(Rule::neg_op);
    let call = b.is("(") && b.parent.is_some_and(|p| CALLS.contains(&p));
    !(tight_before || tight_after || call)
}
