//! Matrices: each axis an enum or a whole-number range, the header row's columns, the grid of
//! cells, and the rows and columns a matrix lacks.
//!
//! Diagnostics owned here: E0303 (matrix cell, row or column missing), E0306 (duplicate row or
//! column), E0307 (malformed matrix), W0002 (row or column outside the axis range), plus E0101 for
//! unknown variants and E0201 for axes of the wrong kind and labels that are not on their axis.

use super::bounds::range_label;
use super::ctx::Checker;
use crate::ast::{self, CellKind, Span};
use crate::diag::did_you_mean;
use crate::ir::*;
use std::collections::BTreeMap;

impl Checker<'_> {
    pub(super) fn matrix_table(
        &mut self,
        tid: usize,
        t: &ast::TableDecl,
        row_ty: &ast::TypeAtom,
        col_ty: &ast::TypeAtom,
        result: &ast::TypeExpr,
    ) {
        let (Some(rows), Some(cols)) = (self.matrix_axis(row_ty), self.matrix_axis(col_ty)) else {
            self.broken_tables.insert(tid);
            return;
        };
        let res = self.type_expr(result).0;
        self.tables[tid].kind = TableKind::Matrix { rows, cols };
        self.tables[tid].result = Some(res.clone());
        let Some(header) = &t.header else {
            self.err(
                "E0307",
                t.name.span,
                "a matrix needs a header row of column labels: `| a | b | ...`",
                "no header",
                None,
            );
            return;
        };
        let Some(col_pos) = self.matrix_columns(t, header, cols) else {
            return;
        };
        let grid = self.matrix_grid(t, rows, cols, header, &col_pos, &res);
        let rows = self.matrix_rows(t, grid, rows, self.axis_len(cols));
        self.tables[tid].rows = rows;
    }

    /// A matrix axis: an enum, or `int lo..hi` of at most `MAX_INT_AXIS` values.
    fn matrix_axis(&mut self, a: &ast::TypeAtom) -> Option<Axis> {
        match self.type_atom(a) {
            (Ty::Enum(e), _) => Some(Axis::Enum(e)),
            (Ty::Int, Some((lo, hi))) if lo <= hi => {
                if (hi as i128) - (lo as i128) >= MAX_INT_AXIS as i128 {
                    self.err(
                        "E0307",
                        a.name.span,
                        format!("a matrix axis covers at most {MAX_INT_AXIS} values, and `int {lo}..{hi}` has more"),
                        "too many values",
                        Some("narrow the range, or use a range table for a wide index".into()),
                    );
                    return None;
                }
                Some(Axis::Int { lo, hi })
            }
            // An empty range was reported with the type.
            (Ty::Int, Some(_)) | (Ty::Error, _) => None,
            (Ty::Int, None) => {
                self.err(
                    "E0201",
                    a.name.span,
                    "a whole-number matrix axis needs bounds",
                    "no bounds",
                    Some("give the range of its values, e.g. `distance: int 0..5`".into()),
                );
                None
            }
            _ => {
                self.err(
                    "E0201",
                    a.name.span,
                    "matrix axes must be enums or bounded ints",
                    "not an enum",
                    Some("e.g. `matrix unit: unit_type x distance: int 0..5 -> int`".into()),
                );
                None
            }
        }
    }

    /// Number of positions on an axis.
    pub(super) fn axis_len(&self, a: Axis) -> usize {
        match a {
            Axis::Enum(e) => self.enums[e].variants.len(),
            Axis::Int { lo, hi } => (hi as i128 - lo as i128 + 1) as usize,
        }
    }

    /// The labels of an axis, in order: variant names or numbers.
    fn axis_labels(&self, a: Axis) -> Vec<String> {
        match a {
            Axis::Enum(e) => self.enums[e].variants.iter().map(|(n, _)| n.clone()).collect(),
            Axis::Int { lo, hi } => (lo..=hi).map(|v| v.to_string()).collect(),
        }
    }

    /// The position of `label` on axis `a`, or the diagnostic that says why there is none: E0101
    /// for an unknown variant, E0201 for a name on an int axis, W0002 for a number outside it.
    fn axis_pos(&mut self, t: &ast::TableDecl, a: Axis, label: &str, span: Span, what: &str) -> Option<usize> {
        match a {
            Axis::Enum(e) => {
                let vars: Vec<String> = self.axis_labels(a);
                let pos = vars.iter().position(|v| v == label);
                if pos.is_none() {
                    let help = did_you_mean(label, vars.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "variant");
                    let en = self.enums[e].name.clone();
                    self.err(
                        "E0101",
                        span,
                        format!("`{label}` is not a variant of `{en}`"),
                        format!("unknown {what}"),
                        Some(help),
                    );
                }
                pos
            }
            Axis::Int { lo, hi } => match label.parse::<i64>() {
                Ok(v) if (lo..=hi).contains(&v) => Some((v as i128 - lo as i128) as usize),
                Ok(v) => {
                    self.warn(
                        "W0002",
                        span,
                        format!(
                            "{what} `{v}` is outside the axis range {} of matrix `{}`",
                            range_label(lo, hi),
                            t.name.name
                        ),
                        "never used",
                        Some(format!("remove the {what} or widen the axis")),
                    );
                    None
                }
                Err(_) => {
                    self.err(
                        "E0201",
                        span,
                        format!("expected a whole number in {}, found `{label}`", range_label(lo, hi)),
                        format!("not a {what} of this axis"),
                        Some(format!("this axis is `int {lo}..{hi}`: label its {what}s with numbers")),
                    );
                    None
                }
            },
        }
    }

    /// The column of each header label (`None` for a label outside the axis), and E0303 for every
    /// position of the column axis that has no column.
    fn matrix_columns(&mut self, t: &ast::TableDecl, header: &[ast::Ident], cols: Axis) -> Option<Vec<Option<usize>>> {
        let mut col_pos = Vec::new();
        let mut seen: BTreeMap<usize, Span> = BTreeMap::new();
        for h in header {
            let pos = self.axis_pos(t, cols, &h.name, h.span, "column");
            if pos.is_none() && matches!(cols, Axis::Enum(_)) {
                return None;
            }
            if let Some(p) = pos {
                if seen.insert(p, h.span).is_some() {
                    self.err(
                        "E0306",
                        h.span,
                        format!("column `{}` appears twice", h.name),
                        "duplicate column",
                        Some("give each column once in the header row".into()),
                    );
                }
            }
            col_pos.push(pos);
        }
        let labels = self.axis_labels(cols);
        for (lo, hi) in missing_runs(cols, labels.len(), |i| seen.contains_key(&i)) {
            let v = run_label(&labels, lo, hi);
            self.err(
                "E0303",
                t.name.span,
                format!("matrix `{}` has no column for `{v}`", t.name.name),
                "missing column",
                Some(format!("add `| {}` to the header row", labels[lo..=hi].join(" | "))),
            );
        }
        Some(col_pos)
    }

    /// The cells of each row of the row axis, in the column axis's order (`None` for a row the
    /// matrix lacks).
    fn matrix_grid(
        &mut self,
        t: &ast::TableDecl,
        rows: Axis,
        cols: Axis,
        header: &[ast::Ident],
        col_pos: &[Option<usize>],
        res: &Ty,
    ) -> Vec<Option<Vec<Const>>> {
        let cvars = self.axis_labels(cols);
        let none_ok = matches!(res, Ty::Opt(_));
        let mut grid: Vec<Option<Vec<Const>>> = vec![None; self.axis_len(rows)];
        for row in &t.rows {
            let label = match (&row.head, rows) {
                (ast::RowHead::Label(l), _) => l.clone(),
                (ast::RowHead::Range(Some(a), Some(b)), Axis::Int { .. }) if a == b => a.to_string(),
                (ast::RowHead::Range(..), Axis::Int { .. }) => {
                    self.err(
                        "E0307",
                        row.head_span,
                        "a matrix row of a whole-number axis starts with one number",
                        "a range here",
                        Some("give each number its own row".into()),
                    );
                    continue;
                }
                _ => {
                    self.err(
                        "E0307",
                        row.head_span,
                        "a matrix row starts with its row label",
                        "not a label",
                        None,
                    );
                    continue;
                }
            };
            let Some(ri) = self.axis_pos(t, rows, &label, row.head_span, "row") else {
                continue;
            };
            if row.cells.len() != header.len() {
                self.err(
                    "E0303",
                    row.span,
                    format!("row `{label}` has {} cells but the header has {}", row.cells.len(), header.len()),
                    "missing matrix cell",
                    Some("fill every cell; write `-` where an attack is impossible, if the result type is optional".into()),
                );
                continue;
            }
            let mut cells = vec![Const::None; cvars.len()];
            for (c, pos) in row.cells.iter().zip(col_pos) {
                let Some(pos) = *pos else { continue };
                if matches!(c.kind, CellKind::None) && !none_ok {
                    let rn = self.ty_name(res);
                    self.err(
                        "E0303",
                        c.span,
                        format!("empty cell in matrix `{}` at `{label}`, `{}`", t.name.name, cvars[pos]),
                        "missing matrix cell",
                        Some(format!("give a value, or declare the result as `{rn}?` to allow `-`")),
                    );
                    continue;
                }
                cells[pos] = self.cell_const(c, res);
            }
            if grid[ri].is_some() {
                self.err(
                    "E0306",
                    row.head_span,
                    format!("row `{label}` appears twice"),
                    "duplicate row",
                    None,
                );
            }
            grid[ri] = Some(cells);
        }
        grid
    }

    /// One row per position of the row axis; E0303 for each the matrix lacks.
    fn matrix_rows(&mut self, t: &ast::TableDecl, grid: Vec<Option<Vec<Const>>>, rows_axis: Axis, ncols: usize) -> Vec<RowDef> {
        let labels = self.axis_labels(rows_axis);
        for (lo, hi) in missing_runs(rows_axis, grid.len(), |i| grid[i].is_some()) {
            let v = run_label(&labels, lo, hi);
            self.err(
                "E0303",
                t.name.span,
                format!("matrix `{}` has no row for `{v}`", t.name.name),
                "missing row",
                Some(format!("add a row `{} | ...`", labels[lo])),
            );
        }
        grid.into_iter()
            .enumerate()
            .map(|(i, g)| RowDef {
                label: labels[i].clone(),
                range: (i as i64, i as i64),
                band: None,
                cells: g.unwrap_or_else(|| vec![Const::None; ncols]),
            })
            .collect()
    }
}

/// Most values a whole-number matrix axis may cover (each needs its own row or column).
const MAX_INT_AXIS: usize = 256;

/// The positions in `0..n` that `present` rejects, as `(first, last)`: runs of consecutive
/// numbers on a whole-number axis, one by one on an enum axis.
fn missing_runs(axis: Axis, n: usize, present: impl Fn(usize) -> bool) -> Vec<(usize, usize)> {
    let group = matches!(axis, Axis::Int { .. });
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in (0..n).filter(|&i| !present(i)) {
        match runs.last_mut() {
            Some(r) if group && r.1 + 1 == i => r.1 = i,
            _ => runs.push((i, i)),
        }
    }
    runs
}

/// A run of missing positions as the user writes it: `cas` for one, `3..5` for consecutive
/// numbers.
fn run_label(labels: &[String], lo: usize, hi: usize) -> String {
    if lo == hi {
        labels[lo].clone()
    } else {
        format!("{}..{}", labels[lo], labels[hi])
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};

    #[test]
    fn matrices_need_every_cell() {
        let src = |cell: &str, result: &str| {
            format!("enum u \"U\" [1] {{ a, b }}\ntable m \"M\" [1] matrix x: u x y: u -> {result} {{\n    | a | b\n  a | 1 | {cell}\n  b | 3 | 4\n}}\nresolver r \"R\" [1] {{\n  in p: u\n  in q: u\n  out x: {result}\n  set x = m(p, q)\n}}\n")
        };
        check_codes(&src("2", "int"), &[]);
        check_codes(&src("-", "int"), &["E0303"]);
        check_codes(&src("-", "int?"), &[]);
    }

    #[test]
    fn a_matrix_may_have_a_whole_number_axis() {
        let src = |header: &str, cells: &str, index: &str| {
            format!("enum u \"U\" [1] {{ a, b }}\ntable m \"M\" [1] matrix unit: u x distance: int 0..2 -> int {{\n  {header}\n  a {cells}\n  b | 4 | 5 | 6\n}}\nresolver r \"R\" [1] {{\n  in p: u\n  in d: int {index}\n  out x: int\n  set x = m(p, d)\n}}\n")
        };
        check_codes(&src("| 0 | 1 | 2", "| 1 | 2 | 3", "0..2"), &[]);
        // Columns may come in any order.
        check_codes(&src("| 2 | 0 | 1", "| 1 | 2 | 3", "0..2"), &[]);
        assert_eq!(
            only(&src("| 0 | 1 | 2", "| 1 | 2 | 3", "0..3"), "E0304").0,
            "this index can be 0..3, but table `m` covers 0..2"
        );
        let narrow = src("| 0", "| 1", "0..2").replace("b | 4 | 5 | 6", "b | 4");
        let (msg, help) = only(&narrow, "E0303");
        assert_eq!(
            (msg.as_str(), help.as_str()),
            ("matrix `m` has no column for `1..2`", "add `| 1 | 2` to the header row")
        );
        let wide = src("| 0 | 1 | 2 | 3", "| 1 | 2 | 3 | 0", "0..2").replace("b | 4 | 5 | 6", "b | 4 | 5 | 6 | 7");
        check_codes(&wide, &["W0002"]);
        check_codes(&src("| 0 | 1 | 1", "| 1 | 2 | 3", "0..2"), &["E0306", "E0303"]);
        check_codes(&src("| 0 | 1 | two", "| 1 | 2 | 3", "0..2"), &["E0201", "E0303"]);
    }

    #[test]
    fn a_whole_number_axis_needs_bounds_and_rows_of_one_number() {
        let src = |axis: &str, row: &str| {
            format!("table m \"M\" [1] matrix n: {axis} x k: int 1..2 -> int {{\n  | 1 | 2\n  {row} | 1 | 2\n  1 | 3 | 4\n}}\nresolver r \"R\" [1] {{\n  out x: int\n  set x = m(1, 2)\n}}\n")
        };
        check_codes(&src("int 0..1", "0"), &[]);
        check_codes(&src("int", "0"), &["E0201"]);
        check_codes(&src("int 0..1", "0..1"), &["E0307", "E0303"]);
        check_codes(&src("int 0..1", "first"), &["E0201", "E0303"]);
        check_codes(&src("int 0..100000", "0"), &["E0307"]);
    }
}
