//! Range tables, indexed `by` dice or by `int lo..hi`: their index, the cells of their rows,
//! rows outside the index, overlaps, and gaps with their probability when the index is a roll.
//!
//! Diagnostics owned here: E0301 (gap), E0302 (overlap), E0305 (a row without its `=> value`),
//! E0307 (malformed range table or row), W0002 (row outside the index range), and E0201 for an
//! index that is neither dice nor a whole number.

use super::bounds::range_label;
use super::ctx::Checker;
use super::dice::DiceDomain;
use crate::ast::{self, Span};
use crate::ir::*;

impl Checker<'_> {
    pub(super) fn range_table(
        &mut self,
        tid: usize,
        t: &ast::TableDecl,
        index: &ast::ByIndex,
        result: Option<&ast::TypeExpr>,
        cols: &[(String, Ty)],
    ) {
        if let ast::ByIndex::Type(a) = index {
            if a.name.name == "decimal" {
                return self.dec_range_table(tid, t, a, result, cols);
            }
        }
        let Some((dist, lo, hi)) = self.range_index(index) else {
            return;
        };
        let result_ty = result.map(|r| self.type_expr(r).0);
        if result_ty.is_some() && !cols.is_empty() {
            self.err(
                "E0307",
                t.name.span,
                "a range table has either `-> type` or `columns`, not both",
                "both",
                None,
            );
            return;
        }
        if result_ty.is_none() && cols.is_empty() {
            self.err(
                "E0307",
                t.name.span,
                format!("range table `{}` needs `-> type` or a `columns` line", t.name.name),
                "no result",
                Some("e.g. `table heavy_hit \"...\" [6.61] by 1d6 -> effect { 1..2 => down }`".into()),
            );
            return;
        }
        self.tables[tid].kind = TableKind::Range { lo, hi };
        self.tables[tid].result = result_ty.clone();
        let (rows, spans) = self.range_rows(t, (lo, hi), result_ty.as_ref(), cols);
        self.range_overlaps(&rows, &spans);
        self.range_gaps(t, &rows, &spans, (lo, hi), dist.as_deref());
        self.tables[tid].rows = rows;
    }

    /// The index of a range table: its range of values, and their distribution when it is a roll.
    fn range_index(&mut self, index: &ast::ByIndex) -> Option<DiceDomain> {
        match index {
            ast::ByIndex::Dice(d) => self.static_dice(d),
            ast::ByIndex::Type(a) => {
                let (ty, b) = self.type_atom(a);
                if ty != Ty::Int {
                    self.err(
                        "E0201",
                        a.name.span,
                        "a range table is indexed `by` dice or `int lo..hi`",
                        "not an int",
                        None,
                    );
                    return None;
                }
                let (lo, hi) = b.unwrap_or((i64::MIN, i64::MAX));
                Some((None, lo, hi))
            }
        }
    }

    /// The cells of a row of a range table (by whole numbers or decimals): `=> value` under
    /// `-> type`, `| cells` under `columns`; `None` after E0305.
    pub(super) fn range_cells(&mut self, row: &ast::Row, result_ty: Option<&Ty>, cols: &[(String, Ty)]) -> Option<Vec<Const>> {
        match result_ty {
            Some(rt) => {
                if !row.arrow || row.cells.len() != 1 {
                    self.err(
                        "E0305",
                        row.span,
                        "this table gives one value per row: `range => value`",
                        "expected `=> value`",
                        None,
                    );
                    return None;
                }
                Some(vec![self.cell_const(&row.cells[0], rt)])
            }
            None => Some(self.row_cells(row, cols, false)),
        }
    }

    /// The rows of a range table with the span of each head; a row outside `lo..hi` is W0002.
    fn range_rows(
        &mut self,
        t: &ast::TableDecl,
        (lo, hi): (i64, i64),
        result_ty: Option<&Ty>,
        cols: &[(String, Ty)],
    ) -> (Vec<RowDef>, Vec<Span>) {
        let mut rows: Vec<RowDef> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for row in &t.rows {
            let (rlo, rhi) = match &row.head {
                ast::RowHead::Range(a, b) => (a.unwrap_or(i64::MIN), b.unwrap_or(i64::MAX)),
                ast::RowHead::DecRange(..) => {
                    self.err(
                        "E0307",
                        row.head_span,
                        "a row with a decimal end belongs to a table `by decimal`",
                        "decimal row",
                        Some("index the table `by decimal`, or write whole-number ranges".into()),
                    );
                    continue;
                }
                _ => {
                    self.err(
                        "E0307",
                        row.head_span,
                        "a range table row starts with a value or range, e.g. `3..4`",
                        "not a range",
                        None,
                    );
                    continue;
                }
            };
            if rlo > rhi {
                self.err(
                    "E0307",
                    row.head_span,
                    format!("empty range {rlo}..{rhi}"),
                    "low above high",
                    Some("write ranges low..high; both ends are included".into()),
                );
                continue;
            }
            let Some(cells) = self.range_cells(row, result_ty, cols) else {
                continue;
            };
            if rhi < lo || rlo > hi {
                self.warn(
                    "W0002",
                    row.head_span,
                    format!(
                        "row `{}` is outside the table's index range {}",
                        range_label(rlo, rhi),
                        range_label(lo, hi)
                    ),
                    "never used",
                    Some("remove the row or widen the `by` range".into()),
                );
            }
            rows.push(RowDef {
                label: range_label(rlo, rhi),
                range: (rlo, rhi),
                band: None,
                cells,
            });
            spans.push(row.head_span);
        }
        (rows, spans)
    }

    /// E0302: rows that overlap, with the values involved. Each row that overlaps an earlier one
    /// is reported once, against the earlier row reaching furthest (the first of equals, so a
    /// repeated row is reported against its first): a value repeated a thousand times is a
    /// thousand reports, not half a million. O(n log n): the earlier rows sit in a Fenwick tree
    /// over their low ends holding the highest high end, and row i asks for the best among the
    /// earlier rows starting at or below its high end.
    fn range_overlaps(&mut self, rows: &[RowDef], spans: &[Span]) {
        let n = rows.len().min(spans.len());
        let mut los: Vec<i64> = rows[..n].iter().map(|r| r.range.0).collect();
        los.sort_unstable();
        los.dedup();
        // tree[k]: the best (highest high end, then earliest row) over a range of low ends.
        let mut tree: Vec<Option<(i64, std::cmp::Reverse<usize>)>> = vec![None; los.len() + 1];
        for i in 0..n {
            let (lo, hi) = rows[i].range;
            let mut best = None;
            let mut k = los.partition_point(|&l| l <= hi);
            while k > 0 {
                best = best.max(tree[k]);
                k &= k - 1;
            }
            if let Some((bhi, std::cmp::Reverse(j))) = best {
                if bhi >= lo {
                    let b = rows[j].range;
                    let (olo, ohi) = (lo.max(b.0), hi.min(b.1));
                    let line = self.line_of(spans[j]);
                    self.err(
                        "E0302",
                        spans[i],
                        format!(
                            "rows `{}` and `{}` overlap on {}",
                            rows[j].label,
                            rows[i].label,
                            range_label(olo, ohi)
                        ),
                        "overlaps an earlier row",
                        Some(format!("the earlier row is on line {line}; each value must map to exactly one row")),
                    );
                }
            }
            let mut k = los.partition_point(|&l| l < lo) + 1;
            let entry = Some((hi, std::cmp::Reverse(i)));
            while k < tree.len() {
                tree[k] = tree[k].max(entry);
                k += k & k.wrapping_neg();
            }
        }
    }

    /// E0301: values of the index range no row covers, with their probability when the index is
    /// a roll, shown at the rows around the gap (`spans` are the rows' heads, one per row): the
    /// rows before and after it, or the first or last row when the gap is at an end.
    fn range_gaps(&mut self, t: &ast::TableDecl, rows: &[RowDef], spans: &[Span], (lo, hi): (i64, i64), dist: Option<&[(i64, u64)]>) {
        let mut sorted: Vec<((i64, i64), Option<Span>)> = rows.iter().enumerate().map(|(i, r)| (r.range, spans.get(i).copied())).collect();
        sorted.sort_by_key(|(r, _)| *r);
        // (gap lo, gap hi, the row reaching furthest before it, the row after it)
        let mut gaps = Vec::new();
        let mut next = lo as i128;
        let mut before: Option<Span> = None;
        for ((a, b), span) in sorted {
            if (a as i128) > next && next <= hi as i128 {
                gaps.push((next as i64, (a as i128 - 1).min(hi as i128) as i64, before, span));
            }
            if b as i128 + 1 > next {
                before = span;
            }
            next = next.max(b as i128 + 1);
        }
        if next <= hi as i128 {
            gaps.push((next as i64, hi, before, None));
        }
        for (glo, ghi, before, after) in gaps {
            let mass = dist.as_ref().map(|d| {
                let n: u64 = d.iter().filter(|(v, _)| *v >= glo && *v <= ghi).map(|(_, c)| c).sum();
                let total_all: u64 = d.iter().map(|(_, c)| c).sum();
                let g = num_integer::gcd(n, total_all.max(1)).max(1);
                format!(" (probability {}/{})", n / g, total_all.max(1) / g)
            });
            let gap = range_label(glo, ghi);
            let (span, label) = match (before, after) {
                (Some(b), Some(a)) if a.file == b.file => (
                    Span {
                        file: b.file,
                        start: b.start.min(a.start),
                        end: b.end.max(a.end),
                    },
                    format!("nothing between these rows covers {gap}"),
                ),
                (Some(b), _) => (b, format!("no row after this one covers {gap}")),
                (None, Some(a)) => (a, format!("no row before this one covers {gap}")),
                (None, None) => (t.name.span, "gap in this table".to_string()),
            };
            self.err(
                "E0301",
                span,
                format!("table `{}` has no row for {gap}{}", t.name.name, mass.unwrap_or_default()),
                label,
                Some(format!("add a row covering {gap} or narrow the table's `by` range")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only, with_reader};

    #[test]
    fn a_gap_reports_its_probability() {
        let src = with_reader("table t \"T\" [1] by 1d6 -> int {\n  1..2 => 0\n  3..4 => 2\n}", "1d6");
        let (msg, help) = only(&src, "E0301");
        assert_eq!(msg, "table `t` has no row for 5..6 (probability 1/3)");
        assert_eq!(help, "add a row covering 5..6 or narrow the table's `by` range");
    }

    #[test]
    fn overlapping_and_out_of_range_rows() {
        let src = with_reader("table t \"T\" [1] by 2d6 -> int {\n  ..7 => 1\n  7..12 => 2\n}", "2d6");
        assert_eq!(only(&src, "E0302").0, "rows `..7` and `7..12` overlap on 7");
        let src = with_reader("table t \"T\" [1] by 1d6 -> int {\n  1..6 => 1\n  7..8 => 2\n}", "1d6");
        check_codes(&src, &["W0002"]);
    }
}
