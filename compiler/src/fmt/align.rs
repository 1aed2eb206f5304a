//! lines → text: tokens spaced, table rows in columns, comments at the ends of neighbouring
//! lines lined up.

use super::lines::Line;
use super::spacing::space;
use super::tokens::Tok;
use crate::parse::Rule;
use crate::syntax::SyntaxKind;

/// The whole file's text, ending in one newline.
pub(super) fn render(toks: &[Tok], lines: &[Line]) -> String {
    let mut code: Vec<String> = lines
        .iter()
        .map(|l| format!("{}{}", "  ".repeat(l.indent), joined(toks, &l.toks)))
        .collect();
    for run in row_runs(toks, lines) {
        for (li, text) in align_rows(toks, lines, &run) {
            code[li] = text;
        }
    }
    let comment_at = comment_columns(lines, &code);
    let mut out = String::new();
    for (li, line) in lines.iter().enumerate() {
        if line.blank_before {
            out.push('\n');
        }
        let mut text = code[li].clone();
        if let Some(c) = line.comment {
            if line.toks.is_empty() {
                text.push_str(&toks[c].text);
            } else {
                let pad = comment_at[li].saturating_sub(width(&text)).max(2);
                text.push_str(&" ".repeat(pad));
                text.push_str(&toks[c].text);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// Tokens with one space or none between each two.
fn joined(toks: &[Tok], idx: &[usize]) -> String {
    let mut s = String::new();
    for (n, &i) in idx.iter().enumerate() {
        if n > 0 && space(&toks[idx[n - 1]], &toks[i]) {
            s.push(' ');
        }
        s.push_str(&toks[i].text);
    }
    s
}

/// A cell separator of a table row: `|` between cells, or the `=>` of a row with one value.
fn separator(t: &Tok) -> bool {
    (t.is("|") || t.is("=>")) && matches!(t.parent, Some(Rule::row | Rule::matrix_header))
}

/// Whether a line is one whole table row, and then whether its cells are split by `=>`.
fn row_line(toks: &[Tok], line: &Line) -> Option<bool> {
    let first = toks[*line.toks.first()?].row?;
    if line.toks.iter().all(|&t| toks[t].row == Some(first)) {
        Some(line.toks.iter().any(|&t| toks[t].is("=>")))
    } else {
        None
    }
}

/// Runs of neighbouring row lines (no blank line, comment line or other line between) of one kind.
fn row_runs(toks: &[Tok], lines: &[Line]) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut last: Option<(usize, bool)> = None;
    for (li, line) in lines.iter().enumerate() {
        let kind = row_line(toks, line);
        match (kind, last) {
            (Some(k), Some((prev, pk))) if prev + 1 == li && pk == k && !line.blank_before => {
                if let Some(run) = runs.last_mut() {
                    run.push(li);
                }
            }
            (Some(_), _) => runs.push(vec![li]),
            _ => {}
        }
        last = kind.map(|k| (li, k));
    }
    runs
}

/// A cell that reads as a number (or `-`, no value), so that its column is right-aligned.
fn numeric(toks: &[Tok], cell: &[usize]) -> bool {
    match cell {
        [t] => matches!(toks[*t].kind, SyntaxKind::Rule(Rule::signed_num | Rule::none_cell)),
        _ => false,
    }
}

/// The rows of one run with their cells padded to the widest of each column; columns of numbers
/// right-aligned, the rest (and the keys) left-aligned.
fn align_rows(toks: &[Tok], lines: &[Line], run: &[usize]) -> Vec<(usize, String)> {
    let cells: Vec<(Vec<String>, Vec<bool>, bool)> = run
        .iter()
        .map(|&li| {
            let mut texts = Vec::new();
            let mut nums = Vec::new();
            let mut cur: Vec<usize> = Vec::new();
            let mut push = |cur: &mut Vec<usize>| {
                texts.push(joined(toks, cur));
                nums.push(numeric(toks, cur));
                cur.clear();
            };
            for &t in &lines[li].toks {
                if separator(&toks[t]) {
                    push(&mut cur);
                } else {
                    cur.push(t);
                }
            }
            push(&mut cur);
            let header = toks[lines[li].toks[0]].parent == Some(Rule::matrix_header);
            (texts, nums, header)
        })
        .collect();
    let columns = cells.iter().map(|c| c.0.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|j| cells.iter().filter_map(|c| c.0.get(j)).map(|s| width(s)).max().unwrap_or(0))
        .collect();
    let right: Vec<bool> = (0..columns)
        .map(|j| j > 0 && cells.iter().filter(|c| !c.2).all(|c| c.1.get(j).copied().unwrap_or(true)))
        .collect();
    let sep = if run.first().and_then(|&li| row_line(toks, &lines[li])) == Some(true) {
        " => "
    } else {
        " | "
    };
    run.iter()
        .zip(&cells)
        .map(|(&li, (texts, _, _))| {
            let mut s = "  ".repeat(lines[li].indent);
            for (j, text) in texts.iter().enumerate() {
                if j > 0 {
                    s.push_str(sep);
                }
                let pad = " ".repeat(widths[j].saturating_sub(width(text)));
                if right[j] {
                    s.push_str(&pad);
                    s.push_str(text);
                } else {
                    s.push_str(text);
                    s.push_str(&pad);
                }
            }
            (li, s.trim_end().to_string())
        })
        .collect()
}

/// For each line with a comment at its end, the column where that comment starts: two spaces
/// after the longest code of its run of neighbouring lines that all end in a comment.
fn comment_columns(lines: &[Line], code: &[String]) -> Vec<usize> {
    let mut at = vec![0; lines.len()];
    let trailing = |li: usize| lines[li].comment.is_some() && !lines[li].toks.is_empty();
    let mut li = 0;
    while li < lines.len() {
        if !trailing(li) {
            li += 1;
            continue;
        }
        let mut end = li + 1;
        while end < lines.len() && trailing(end) && !lines[end].blank_before {
            end += 1;
        }
        let col = (li..end).map(|l| width(code[l].trim_end())).max().unwrap_or(0) + 2;
        at[li..end].fill(col);
        li = end;
    }
    at
}
