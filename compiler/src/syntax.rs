//! text → lossless syntax tree: every byte of a rules file in a rowan tree (rust-analyzer's), the
//! comments and whitespace that the grammar skips kept as trivia tokens. `fmt` lays a file out
//! from it; `tree.text()` is the file again, byte for byte.
//!
//! Built from the grammar's own parse (`parse::pairs`): each pest pair becomes a node of its
//! rule, and the text between pairs (which pest matched as literals or skipped) becomes tokens:
//! whitespace, `//` comments, and punctuation (`{`, `=>`, `|`, ...). A few atomic rules whose
//! inner pairs say nothing to a layout (strings, citations, dice, ranges) are kept as one token.

use crate::diag::Diagnostic;
use crate::parse::{self, Rule};
use pest::iterators::Pair;
use rowan::{GreenNodeBuilder, Language};

/// A node or token's kind: a grammar rule, or the trivia and punctuation between rules' pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SyntaxKind {
    Whitespace,
    Comment,
    /// A literal of the grammar that is no rule of its own: `{`, `=>`, `|`, `,`, `x`, ...
    Punct,
    Rule(Rule),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RulesLang {}

impl Language for RulesLang {
    type Kind = SyntaxKind;
    fn kind_from_raw(raw: rowan::SyntaxKind) -> SyntaxKind {
        match raw.0 {
            0 => SyntaxKind::Whitespace,
            1 => SyntaxKind::Comment,
            2 => SyntaxKind::Punct,
            n => Rule::all_rules()
                .get(usize::from(n) - 3)
                .map_or(SyntaxKind::Punct, |r| SyntaxKind::Rule(*r)),
        }
    }
    fn kind_to_raw(kind: SyntaxKind) -> rowan::SyntaxKind {
        rowan::SyntaxKind(match kind {
            SyntaxKind::Whitespace => 0,
            SyntaxKind::Comment => 1,
            SyntaxKind::Punct => 2,
            // Rules by their place in `all_rules`, the order `kind_from_raw` reads them in.
            SyntaxKind::Rule(r) => 3 + Rule::all_rules().iter().position(|x| *x == r).map_or(u16::MAX - 3, |i| i as u16),
        })
    }
}

pub type SyntaxNode = rowan::SyntaxNode<RulesLang>;
pub type SyntaxToken = rowan::SyntaxToken<RulesLang>;
pub type SyntaxElement = rowan::SyntaxElement<RulesLang>;

/// Rules kept whole as one token: their inner pairs matter to the checker, not to a layout.
const WHOLE: &[Rule] = &[
    Rule::string,
    Rule::cite,
    Rule::dice,
    Rule::range_pat,
    Rule::dec_range_pat,
    Rule::signed_int,
    Rule::signed_num,
    Rule::int_bounds,
    Rule::list_kw,
];

/// The lossless tree of `src`, or the parser's diagnostics (for file number `file`) when it does
/// not parse: a tree is only built for text the parser accepts.
pub fn parse(file: usize, src: &str) -> Result<SyntaxNode, Vec<Diagnostic>> {
    parse::parse_file(file, src)?;
    let Some(top) = parse::pairs(src) else {
        // parse_file accepted the text, so the grammar does too; an empty tree is never reached.
        return Ok(SyntaxNode::new_root(GreenNodeBuilder::new().finish()));
    };
    let mut b = GreenNodeBuilder::new();
    let mut at = 0;
    node(&mut b, src, top, &mut at);
    Ok(SyntaxNode::new_root(b.finish()))
}

fn node(b: &mut GreenNodeBuilder<'static>, src: &str, pair: Pair<'_, Rule>, at: &mut usize) {
    b.start_node(RulesLang::kind_to_raw(SyntaxKind::Rule(pair.as_rule())));
    let end = pair.as_span().end();
    for child in pair.into_inner() {
        let span = child.as_span();
        gap(b, &src[*at..span.start()]);
        *at = span.start();
        if span.start() == span.end() {
            // EOI, and nothing else: an empty token would say nothing.
        } else if WHOLE.contains(&child.as_rule()) || (child.clone().into_inner().next().is_none() && !has_trivia(span.as_str())) {
            b.token(RulesLang::kind_to_raw(SyntaxKind::Rule(child.as_rule())), span.as_str());
        } else {
            node(b, src, child, at);
        }
        *at = span.end();
    }
    gap(b, &src[*at..end]);
    *at = end;
    b.finish_node();
}

/// Whether a pair with no inner pairs holds whitespace or a comment (`{ }`, `[ ]`, `f( )`): then
/// it is a node with its literals as tokens, so that the layout sees them.
fn has_trivia(text: &str) -> bool {
    text.contains(char::is_whitespace) || text.contains("//")
}

/// Operators of more than one character, longest first where one begins another.
const OPERATORS: &[&str] = &["=>", "->", "..", "==", "!=", "<=", ">=", "??"];

/// The text between two pairs: whitespace, comments and the grammar's literals, as tokens.
fn gap(b: &mut GreenNodeBuilder<'static>, text: &str) {
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let (kind, len) = if c.is_whitespace() {
            (
                SyntaxKind::Whitespace,
                rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len()),
            )
        } else if rest.starts_with("//") {
            (SyntaxKind::Comment, rest.find('\n').unwrap_or(rest.len()))
        } else if c.is_alphanumeric() || c == '_' {
            (
                SyntaxKind::Punct,
                rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len()),
            )
        } else {
            let op = OPERATORS.iter().find(|op| rest.starts_with(**op));
            (SyntaxKind::Punct, op.map_or(c.len_utf8(), |op| op.len()))
        };
        b.token(RulesLang::kind_to_raw(kind), &rest[..len]);
        rest = &rest[len..];
    }
}

/// The grammar rule of a node or token, if it is one.
pub fn rule(kind: SyntaxKind) -> Option<Rule> {
    match kind {
        SyntaxKind::Rule(r) => Some(r),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_holds_every_byte_and_the_comments() {
        let src = "// head\nsystem s \"S\"  // trailing\n\nenum e { a, // one\n b }\ntable t \"T\" [1] by 2d6 -> int {\n  2..7 => 1 // low\n  8.. => 2\n}\n";
        let tree = parse(0, src).map_err(|d| d.len()).unwrap_or_else(|n| panic!("{n} diagnostics"));
        assert_eq!(tree.text().to_string(), src);
        let comments: Vec<String> = tree
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind() == SyntaxKind::Comment)
            .map(|t| t.text().to_string())
            .collect();
        assert_eq!(comments, ["// head", "// trailing", "// one", "// low"]);
        let dice: Vec<String> = tree
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind() == SyntaxKind::Rule(Rule::dice))
            .map(|t| t.text().to_string())
            .collect();
        assert_eq!(dice, ["2d6"]);
    }

    #[test]
    fn text_that_does_not_parse_gives_the_parsers_diagnostics() {
        let Err(d) = parse(0, "table {") else { panic!("parsed") };
        assert!(d[0].code.starts_with('E'), "{:?}", d[0]);
    }
}
