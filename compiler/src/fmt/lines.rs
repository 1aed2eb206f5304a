//! tokens → lines: where lines break, which are blank before, and how deep each is indented.

use super::tokens::Tok;

/// One line of the output: code tokens and a comment at its end, or a comment alone.
pub(super) struct Line {
    /// Indices into the tokens; empty for a line that is only a comment.
    pub toks: Vec<usize>,
    /// The comment at the end of the line, or the line's only content.
    pub comment: Option<usize>,
    pub blank_before: bool,
    /// In steps of two spaces.
    pub indent: usize,
}

/// The tokens broken into lines: where the author broke them, before each statement of a block
/// laid out over lines, and after a comment; at most one blank line in a row, none just inside
/// braces.
pub(super) fn lines(toks: &[Tok]) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut open = false;
    for (i, t) in toks.iter().enumerate() {
        let blank_before = t.newlines >= 2;
        if t.is_comment() {
            let ends_code = open && t.newlines == 0 && lines.last().is_some_and(|l| l.comment.is_none());
            match lines.last_mut() {
                Some(line) if ends_code => line.comment = Some(i),
                _ => lines.push(Line {
                    toks: Vec::new(),
                    comment: Some(i),
                    blank_before,
                    indent: 0,
                }),
            }
            open = false;
            continue;
        }
        match lines.last_mut() {
            Some(line) if open && t.newlines == 0 && !t.break_before => line.toks.push(i),
            _ => lines.push(Line {
                toks: vec![i],
                comment: None,
                blank_before,
                indent: 0,
            }),
        }
        open = true;
    }
    drop_blanks(toks, &mut lines);
    indent(toks, &mut lines);
    lines
}

/// No blank line first, just after a `{` or just before a `}`.
fn drop_blanks(toks: &[Tok], lines: &mut [Line]) {
    for i in 0..lines.len() {
        let after_brace = i == 0 || lines[i - 1].toks.last().is_some_and(|&t| toks[t].is("{"));
        let before_brace = lines[i].toks.first().is_some_and(|&t| toks[t].is("}"));
        if after_brace || before_brace {
            lines[i].blank_before = false;
        }
    }
}

/// Each line's depth: one step for each `{` open around it; a line that continues a construct
/// begun above one step more, or one for each `(` and `[` still open there, so that what is
/// inside two brackets stands further in than what is inside one. A comment
/// alone on a line stands as the code line after it (inside the block when that line is its `}`).
/// The condition of an `if`, `for` or `match` continued on a line stands one step further in
/// still, so that it does not line up with the block it opens.
fn indent(toks: &[Tok], lines: &mut [Line]) {
    let mut depth = 0usize;
    // For each open `{`, its still-open `(` and `[` (by the line each was opened on).
    let mut frames: Vec<Vec<usize>> = vec![Vec::new()];
    // Whether the construct begun last at this depth opens a block after a condition.
    let mut header = false;
    for (li, line) in lines.iter_mut().enumerate() {
        if line.toks.is_empty() {
            continue;
        }
        let line_toks = line.toks.clone();
        let first = &toks[line_toks[0]];
        let frame = frames.last_mut();
        let mut closers = 0;
        if let Some(frame) = frame {
            while closers < line_toks.len() && (toks[line_toks[closers]].is(")") || toks[line_toks[closers]].is("]")) {
                frame.pop();
                closers += 1;
            }
        }
        let open = frames.last().map_or(0, Vec::len);
        let cont = if first.construct {
            header = line_toks.iter().any(|&t| opens_block(&toks[t]));
            0
        } else if open == 0 && closers == 0 {
            1 + usize::from(header)
        } else {
            open + usize::from(header)
        };
        let base = if first.is("}") { depth.saturating_sub(1) } else { depth };
        line.indent = base + cont;
        for &t in &line_toks[closers..] {
            let tok = &toks[t];
            if tok.is("{") {
                header = false;
                depth += 1;
                frames.push(Vec::new());
            } else if tok.is("}") {
                depth = depth.saturating_sub(1);
                if frames.len() > 1 {
                    frames.pop();
                }
            } else if tok.is("(") || tok.is("[") {
                if let Some(f) = frames.last_mut() {
                    f.push(li);
                }
            } else if tok.is(")") || tok.is("]") {
                if let Some(f) = frames.last_mut() {
                    f.pop();
                }
            }
        }
    }
    let mut next: Option<(usize, bool)> = None;
    for line in lines.iter_mut().rev() {
        if let Some(&t) = line.toks.first() {
            next = Some((line.indent, toks[t].is("}")));
        } else {
            line.indent = next.map_or(0, |(indent, closes)| indent + usize::from(closes));
        }
    }
}

/// The keyword of a statement whose condition (or list) comes before a block.
fn opens_block(t: &Tok) -> bool {
    use crate::parse::Rule;
    use crate::syntax::SyntaxKind;
    matches!(
        (t.kind, t.parent),
        (SyntaxKind::Rule(Rule::kw_if), Some(Rule::if_stmt))
            | (SyntaxKind::Rule(Rule::kw_for), Some(Rule::for_stmt))
            | (SyntaxKind::Rule(Rule::kw_match), Some(Rule::match_stmt))
            | (SyntaxKind::Rule(Rule::kw_update), Some(Rule::update_stmt))
    )
}
