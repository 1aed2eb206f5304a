//! Tables `by decimal`: rows that are bands of exact decimals (`..0.1`, `0.1..0.5`, `0.5..`,
//! `1.5`, `2..3`), both ends included. Together they must cover every decimal, so a lookup never
//! falls outside the table: two rows may share an end (the value there belongs to the first row
//! in the text that has it), but not more. Gaps and overlaps are found in one sort of the rows.
//!
//! Diagnostics owned here: E0301 (decimals no row covers), E0302 (rows that overlap on more than
//! a shared end), E0307 (a band whose low end is above its high end, a row that is not a band, a
//! `by decimal` with bounds), and E0307 for `-> type` with `columns` or neither.

use super::ctx::Checker;
use crate::ast::{self, Span};
use crate::ir::*;
use rulebook_runtime::Dec;
use std::cmp::Ordering;

/// One end of a band as an exact decimal, `None` when open.
fn end(e: Option<(i64, i64)>) -> Option<Dec> {
    e.map(|(n, d)| Dec::raw(n, d))
}

/// `a` against `b` as low ends: an open low end is below everything.
fn cmp_lo(a: Option<Dec>, b: Option<Dec>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, _) => Ordering::Less,
        (_, None) => Ordering::Greater,
        (Some(x), Some(y)) => x.cmp(&y),
    }
}

/// `a` against `b` as high ends: an open high end is above everything.
fn cmp_hi(a: Option<Dec>, b: Option<Dec>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, _) => Ordering::Greater,
        (_, None) => Ordering::Less,
        (Some(x), Some(y)) => x.cmp(&y),
    }
}

/// How a band is written: `..0.1`, `0.1..0.5`, `0.5..`, `1.5`, `any value`.
pub fn band_label((lo, hi): DecBand) -> String {
    let show = |e: (i64, i64)| Dec::raw(e.0, e.1).to_string();
    match (lo, hi) {
        (None, None) => "any value".into(),
        (None, Some(h)) => format!("..{}", show(h)),
        (Some(l), None) => format!("{}..", show(l)),
        (Some(l), Some(h)) if l == h => show(l),
        (Some(l), Some(h)) => format!("{}..{}", show(l), show(h)),
    }
}

impl Checker<'_> {
    /// A range table indexed `by decimal`: its rows, each a band, covering every decimal.
    pub(super) fn dec_range_table(
        &mut self,
        tid: usize,
        t: &ast::TableDecl,
        index: &ast::TypeAtom,
        result: Option<&ast::TypeExpr>,
        cols: &[(String, Ty)],
    ) {
        if index.bounds.is_some() {
            self.err(
                "E0307",
                index.name.span,
                "a table `by decimal` covers every decimal; it takes no bounds",
                "bounds",
                Some("write `by decimal` and give the first row an open low end and the last an open high end (`..0.1`, `0.5..`)".into()),
            );
            self.broken_tables.insert(tid);
            return;
        }
        let result_ty = result.map(|r| self.type_expr(r).0);
        match (&result_ty, cols.is_empty()) {
            (Some(_), false) => {
                self.err(
                    "E0307",
                    t.name.span,
                    "a range table has either `-> type` or `columns`, not both",
                    "both",
                    None,
                );
                self.broken_tables.insert(tid);
                return;
            }
            (None, true) => {
                self.err(
                    "E0307",
                    t.name.span,
                    format!("range table `{}` needs `-> type` or a `columns` line", t.name.name),
                    "no result",
                    Some("e.g. `table slope \"...\" [53.B] by decimal -> int { ..0.1 => 2  0.1..0.5 => 1  0.5.. => 0 }`".into()),
                );
                self.broken_tables.insert(tid);
                return;
            }
            _ => {}
        }
        self.tables[tid].kind = TableKind::DecRange;
        self.tables[tid].result = result_ty.clone();
        let mut rows: Vec<RowDef> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for row in &t.rows {
            let band: DecBand = match &row.head {
                ast::RowHead::DecRange(a, b) => (*a, *b),
                ast::RowHead::Range(a, b) => (a.map(|n| (n, 1)), b.map(|n| (n, 1))),
                _ => {
                    self.err(
                        "E0307",
                        row.head_span,
                        "a row of a table `by decimal` starts with a band of decimals, e.g. `0.1..0.5`",
                        "not a band",
                        None,
                    );
                    continue;
                }
            };
            if let (Some(l), Some(h)) = (end(band.0), end(band.1)) {
                if l > h {
                    self.err(
                        "E0307",
                        row.head_span,
                        format!("empty band {}", band_label(band)),
                        "low above high",
                        Some("write bands low..high; both ends are included".into()),
                    );
                    continue;
                }
            }
            let Some(cells) = self.range_cells(row, result_ty.as_ref(), cols) else {
                continue;
            };
            rows.push(RowDef {
                label: band_label(band),
                range: (0, 0),
                band: Some(band),
                cells,
            });
            spans.push(row.head_span);
        }
        self.band_cover(t, &rows, &spans);
        self.tables[tid].rows = rows;
    }

    /// E0302 for a row that overlaps an earlier-starting one on more than a shared end (once per
    /// row, against the row reaching furthest), and E0301 for the decimals no row covers: below
    /// the first row, between rows, above the last.
    fn band_cover(&mut self, t: &ast::TableDecl, rows: &[RowDef], spans: &[Span]) {
        let mut order: Vec<usize> = (0..rows.len().min(spans.len())).collect();
        let band = |i: usize| rows[i].band.map(|(a, b)| (end(a), end(b))).unwrap_or((None, None));
        order.sort_by(|&i, &j| cmp_lo(band(i).0, band(j).0).then(cmp_hi(band(i).1, band(j).1)).then(i.cmp(&j)));
        let Some(&first) = order.first() else {
            self.err("E0301", t.name.span, "a table `by decimal` needs rows", "no rows", None);
            return;
        };
        if band(first).0.is_some() {
            self.err(
                "E0301",
                spans[first],
                format!(
                    "no row covers the decimals below {}",
                    band(first).0.map(|d| d.to_string()).unwrap_or_default()
                ),
                "no row before this one",
                Some("open the lowest row's low end, e.g. `..0.1`, so every decimal has a row".into()),
            );
        }
        // The row reaching furthest so far.
        let mut reach = first;
        for &i in order.iter().skip(1) {
            let (lo, hi) = band(i);
            let far = band(reach).1;
            match (lo, far) {
                // An open high end so far: everything after it overlaps.
                (_, None) => self.band_overlap(rows, spans, reach, i),
                (None, Some(_)) => self.band_overlap(rows, spans, reach, i),
                (Some(l), Some(f)) if l < f => self.band_overlap(rows, spans, reach, i),
                (Some(l), Some(f)) if l > f => {
                    let at = Span {
                        file: spans[reach].file,
                        start: spans[reach].start.min(spans[i].start),
                        end: spans[reach].end.max(spans[i].end),
                    };
                    let same_file = spans[reach].file == spans[i].file;
                    self.err(
                        "E0301",
                        if same_file { at } else { spans[i] },
                        format!("no row covers the decimals between {f} and {l}"),
                        "nothing between these rows",
                        Some(format!("let one row end where the next begins (`..{l}` then `{l}..`): both ends are included, and the value on a shared end belongs to the first row in the text that has it")),
                    );
                }
                _ => {}
            }
            if cmp_hi(hi, band(reach).1) == Ordering::Greater {
                reach = i;
            }
        }
        if band(reach).1.is_some() {
            self.err(
                "E0301",
                spans[reach],
                format!(
                    "no row covers the decimals above {}",
                    band(reach).1.map(|d| d.to_string()).unwrap_or_default()
                ),
                "no row after this one",
                Some("open the highest row's high end, e.g. `0.5..`, so every decimal has a row".into()),
            );
        }
    }

    fn band_overlap(&mut self, rows: &[RowDef], spans: &[Span], earlier: usize, row: usize) {
        let line = self.line_of(spans[earlier]);
        self.err(
            "E0302",
            spans[row],
            format!("rows `{}` and `{}` overlap on more than a shared end", rows[earlier].label, rows[row].label),
            "overlaps another row",
            Some(format!(
                "the other row is on line {line}; bands may share an end (`..0.5` then `0.5..`), where the first row in the text wins, but no more"
            )),
        );
    }
}
