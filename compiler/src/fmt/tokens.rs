//! tree → the significant tokens, each with what the layout needs to know of it.

use crate::parse::Rule;
use crate::syntax::{rule, SyntaxKind, SyntaxNode};
use rowan::{NodeOrToken, WalkEvent};

/// One token to print, or one comment.
pub(super) struct Tok {
    /// As printed: the source text, with the spaces inside dice and `list of` made single.
    pub text: String,
    pub kind: SyntaxKind,
    /// The rule of the node the token is in.
    pub parent: Option<Rule>,
    /// Newlines in the whitespace before the token, as the author wrote it.
    pub newlines: usize,
    /// A line must start here: a statement (declaration, table line, ...) of a laid-out block,
    /// the first thing inside such a block's `{`, or its `}`.
    pub break_before: bool,
    /// A line that starts here starts a construct, so takes no continuation indent.
    pub construct: bool,
    /// The one-line table row (or matrix header) the token is part of, by number.
    pub row: Option<usize>,
}

impl Tok {
    pub fn is(&self, punct: &str) -> bool {
        self.kind == SyntaxKind::Punct && self.text == punct
    }
    pub fn is_comment(&self) -> bool {
        self.kind == SyntaxKind::Comment
    }
}

/// Constructs that start a line of their own when their block is laid out over several lines.
const LINE_LEVEL: &[Rule] = &[
    Rule::system_decl,
    Rule::option_decl,
    Rule::enum_decl,
    Rule::type_decl,
    Rule::const_decl,
    Rule::record_decl,
    Rule::table_decl,
    Rule::resolver_decl,
    Rule::input_decl,
    Rule::output_decl,
    Rule::let_stmt,
    Rule::var_stmt,
    Rule::roll_stmt,
    Rule::check_stmt,
    Rule::set_stmt,
    Rule::if_stmt,
    Rule::match_stmt,
    Rule::call_stmt,
    Rule::require_stmt,
    Rule::note_stmt,
    Rule::return_stmt,
    Rule::break_stmt,
    Rule::repeat_stmt,
    Rule::for_stmt,
    Rule::update_stmt,
    Rule::assign_stmt,
    Rule::key_line,
    Rule::columns_line,
    Rule::alias_line,
    Rule::matrix_header,
    Rule::row,
    Rule::arm,
    Rule::modifier,
    Rule::highest_group,
    Rule::field_set,
];

/// Constructs that take no continuation indent when they start a line, but may share one: the
/// items of an enum's or a record's list.
const LIST_ITEMS: &[Rule] = &[Rule::variant, Rule::field];

/// Nodes with a `{ ... }` of their own.
const BRACED: &[Rule] = &[
    Rule::resolver_decl,
    Rule::table_decl,
    Rule::block,
    Rule::mod_block,
    Rule::highest_group,
    Rule::match_stmt,
    Rule::update_stmt,
    Rule::enum_decl,
    Rule::record_decl,
];

fn is(kind: SyntaxKind, rules: &[Rule]) -> bool {
    rule(kind).is_some_and(|r| rules.contains(&r))
}

/// Whether a braced node is laid out over several lines: the author wrote it so, or it holds
/// more than one statement (one statement a line).
fn laid_out(node: &SyntaxNode) -> bool {
    let text = node.text().to_string();
    let inside = text.find('{').map_or("", |at| &text[at..]);
    let statements = node.children_with_tokens().filter(|c| is(c.kind(), LINE_LEVEL)).count();
    inside.contains('\n') || statements > 1
}

/// The significant tokens of the tree, in order, comments among them.
pub(super) fn flatten(tree: &SyntaxNode) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::new();
    // The braced nodes around the walk: whether each is laid out.
    let mut blocks: Vec<bool> = vec![true];
    let mut newlines = 0;
    let mut start_pending = (false, false);
    let mut row: Option<usize> = None;
    let mut rows = 0;
    let mut open_brace_pending = false;
    for event in tree.preorder_with_tokens() {
        match event {
            WalkEvent::Enter(NodeOrToken::Node(n)) => {
                let kind = n.kind();
                if is(kind, LINE_LEVEL) && !start_pending.1 {
                    start_pending = (blocks.last().copied().unwrap_or(true), true);
                } else if is(kind, LIST_ITEMS) && !start_pending.1 {
                    start_pending = (false, true);
                }
                if is(kind, BRACED) {
                    blocks.push(laid_out(&n));
                }
                // A pair's text ends with the whitespace pest skipped after it: not part of the row.
                if is(kind, &[Rule::row, Rule::matrix_header]) && !n.text().to_string().trim_end().contains('\n') {
                    row = Some(rows);
                    rows += 1;
                }
            }
            WalkEvent::Leave(NodeOrToken::Node(n)) => {
                if is(n.kind(), BRACED) {
                    blocks.pop();
                }
                if is(n.kind(), &[Rule::row, Rule::matrix_header]) {
                    row = None;
                }
            }
            WalkEvent::Enter(NodeOrToken::Token(t)) => {
                let kind = t.kind();
                if kind == SyntaxKind::Whitespace {
                    newlines += t.text().matches('\n').count();
                    continue;
                }
                let parent = t.parent().and_then(|p| rule(p.kind()));
                let mut tok = Tok {
                    text: printed(kind, t.text()),
                    kind,
                    parent,
                    newlines,
                    break_before: false,
                    construct: false,
                    row,
                };
                newlines = 0;
                if kind == SyntaxKind::Comment {
                    out.push(tok);
                    continue;
                }
                let own_block = parent.is_some_and(|p| BRACED.contains(&p));
                let laid = blocks.last().copied().unwrap_or(true);
                if is(kind, LINE_LEVEL) && !start_pending.1 {
                    // `return` and `break`: statements that are one token.
                    start_pending = (laid, true);
                }
                if start_pending.1 {
                    tok.break_before = start_pending.0;
                    tok.construct = true;
                    start_pending = (false, false);
                }
                if open_brace_pending {
                    tok.break_before = true;
                    open_brace_pending = false;
                }
                if own_block && tok.is("}") && laid {
                    tok.break_before = true;
                }
                if tok.is("}") || (kind == SyntaxKind::Rule(Rule::kw_else) && parent == Some(Rule::if_stmt)) {
                    tok.construct = true;
                }
                if own_block && tok.is("{") && laid {
                    open_brace_pending = true;
                }
                out.push(tok);
            }
            WalkEvent::Leave(NodeOrToken::Token(_)) => {}
        }
    }
    out
}

/// A token as printed: spaces inside dice and `list of` made single (where no line break or
/// comment is inside), comments without trailing space; everything else as written.
fn printed(kind: SyntaxKind, text: &str) -> String {
    match kind {
        SyntaxKind::Comment => text.trim_end().to_string(),
        SyntaxKind::Rule(Rule::dice | Rule::list_kw) if !text.contains('\n') && !text.contains("//") => {
            text.split([' ', '\t']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
        }
        _ => text.to_string(),
    }
}
