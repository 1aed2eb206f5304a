//! Tables: the keys of keyed tables (with aliases), columns, rows and cells, range tables (their
//! index, rows outside it, overlaps, and gaps with their probability when the index is a roll),
//! matrices over two enums, the type of a lookup, and tables no resolver uses.
//!
//! Diagnostics owned here: E0301 (gap), E0302 (overlap), E0303 (matrix cell, row or column
//! missing), E0305 (wrong number of cells), E0306 (duplicate key or row), E0307 (malformed table),
//! W0001 (unused table), W0002 (row outside the index range), plus E0101 for unknown keys and E0102
//! for reserved column names, and E0201 for cells of the wrong type.

use super::bounds::range_label;
use super::ctx::Checker;
use super::dice::DiceDomain;
use super::names::rust_ident_ok;
use super::normalize_key;
use crate::ast::{self, CellKind, Span};
use crate::diag::{did_you_mean, Diagnostic};
use crate::ir::*;
use std::collections::BTreeMap;

impl Checker<'_> {
    /// Pass 2: keys of keyed tables, aliases included (so cells can refer to rows of any table).
    pub(super) fn declare_keys(&mut self, tables_ast: &[&ast::TableDecl]) {
        for t in tables_ast {
            let Some(&tid) = self.table_idx.get(&t.name.name) else {
                continue;
            };
            if matches!(t.kind, ast::TableKind::Keyed) {
                let mut keys: BTreeMap<String, usize> = BTreeMap::new();
                for (ri, row) in t.rows.iter().enumerate() {
                    let key = match &row.head {
                        ast::RowHead::Key(k) | ast::RowHead::Label(k) => k.clone(),
                        ast::RowHead::Range(..) => continue,
                    };
                    let norm = normalize_key(&key);
                    if let Some(&prev) = keys.get(&norm) {
                        let prev: usize = prev;
                        let prev_key: String = match &t.rows[prev].head {
                            ast::RowHead::Key(k) | ast::RowHead::Label(k) => k.clone(),
                            _ => String::new(),
                        };
                        self.err(
                            "E0306",
                            row.head_span,
                            format!("key `{key}` is already used in table `{}`", t.name.name),
                            "duplicate key",
                            Some(format!(
                                "it matches row `{prev_key}` (keys compare ignoring case, and spaces, hyphens, dots and underscores count alike); give each row its own key"
                            )),
                        );
                    } else {
                        keys.insert(norm, ri);
                    }
                }
                for (names, target, span) in &t.aliases {
                    match keys.get(&normalize_key(target)).copied() {
                        Some(row) => {
                            for (n, nspan) in names {
                                let norm = normalize_key(n);
                                if let std::collections::btree_map::Entry::Vacant(e) = keys.entry(norm) {
                                    e.insert(row);
                                    self.tables[tid].aliases.push((n.clone(), row));
                                } else {
                                    self.err(
                                        "E0306",
                                        *nspan,
                                        format!("alias `{n}` already names a row of `{}`", t.name.name),
                                        "duplicate key",
                                        Some("remove the alias; keys already match ignoring case and separators".into()),
                                    );
                                }
                            }
                        }
                        None => {
                            let cands: Vec<String> = t
                                .rows
                                .iter()
                                .filter_map(|r| {
                                    if let ast::RowHead::Key(k) = &r.head {
                                        Some(k.clone())
                                    } else {
                                        None
                                    }
                                })
                                .collect();
                            let help = did_you_mean(target, cands.iter().map(|s| s.as_str()), "key");
                            self.err(
                                "E0101",
                                *span,
                                format!("alias target `{target}` is not a key of `{}`", t.name.name),
                                "unknown key",
                                Some(help),
                            );
                        }
                    }
                }
                self.table_keys[tid] = keys;
            }
        }
    }

    /// Pass 4: columns and rows of every table.
    pub(super) fn lower_tables(&mut self, tables_ast: &[&ast::TableDecl]) {
        for t in tables_ast {
            if let Some(&tid) = self.table_idx.get(&t.name.name) {
                self.table(tid, t);
            }
        }
    }

    /// W0001: a table no resolver, input type or other table refers to.
    pub(super) fn warn_unused_tables(&mut self, tables_ast: &[&ast::TableDecl]) {
        // A file that failed to parse may be the one that uses it.
        if self.unparsed.is_some() {
            return;
        }
        for (tid, t) in self.tables.iter().enumerate() {
            if !t.used {
                if let Some(ta) = tables_ast.iter().find(|x| self.table_idx.get(&x.name.name) == Some(&tid)) {
                    let span = ta.name.span;
                    let name = t.name.clone();
                    self.diags.push(
                        Diagnostic::warning("W0001", span, format!("table `{name}` is never used by a resolver"))
                            .label("unused")
                            .help("reference it from a resolver, an input type or another table, or remove it"),
                    );
                }
            }
        }
    }

    pub(super) fn table(&mut self, tid: usize, t: &ast::TableDecl) {
        if let Some(k) = &t.key {
            self.tables[tid].key_column = k.name.clone();
        }
        let mut cols = Vec::new();
        let mut cseen = BTreeMap::new();
        for (n, te) in &t.columns {
            let (ty, _) = self.type_expr(te);
            if self.defined(n, &mut cseen, "column") {
                if !rust_ident_ok(&n.name) {
                    self.reserved(n, "column");
                } else if n.name == self.tables[tid].key_column {
                    self.err(
                        "E0102",
                        n.span,
                        format!("column `{}` has the name of the key column", n.name),
                        "named like the key",
                        Some("the key column holds the row names; give this column another name".into()),
                    );
                }
                cols.push((n.name.clone(), ty));
            }
        }
        self.tables[tid].columns = cols.clone();
        match &t.kind {
            ast::TableKind::Keyed => {
                if cols.is_empty() {
                    self.err(
                        "E0307",
                        t.name.span,
                        format!("keyed table `{}` has no `columns` line", t.name.name),
                        "no columns",
                        Some("add `columns name: type, ...` before the rows".into()),
                    );
                }
                let mut rows = Vec::new();
                for row in &t.rows {
                    let key = match &row.head {
                        ast::RowHead::Key(k) | ast::RowHead::Label(k) => k.clone(),
                        ast::RowHead::Range(..) => {
                            self.err(
                                "E0307",
                                row.head_span,
                                "a keyed table row starts with its key in quotes",
                                "a range here",
                                Some(format!(
                                    "write the key as a string, e.g. `\"Hanza 6/-3\" | ...`; or declare `by int` on table `{}`",
                                    t.name.name
                                )),
                            );
                            continue;
                        }
                    };
                    let cells = self.row_cells(row, &cols, false);
                    rows.push(RowDef {
                        label: key,
                        range: (0, 0),
                        cells,
                    });
                }
                self.tables[tid].rows = rows;
            }
            ast::TableKind::By { index, result } => self.range_table(tid, t, index, result.as_ref(), &cols),
            ast::TableKind::Matrix {
                row_name: _,
                row_ty,
                col_name: _,
                col_ty,
                result,
            } => self.matrix_table(tid, t, row_ty, col_ty, result),
        }
    }

    pub(super) fn row_cells(&mut self, row: &ast::Row, cols: &[(String, Ty)], arrow_ok: bool) -> Vec<Const> {
        if row.arrow && !arrow_ok {
            self.err(
                "E0307",
                row.span,
                "`=>` rows belong to tables declared with `-> type`",
                "arrow row",
                Some("separate cells with `|`".into()),
            );
            return Vec::new();
        }
        if row.cells.len() != cols.len() {
            let found = row.cells.len();
            let want = cols.len();
            let names = cols.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
            self.err(
                "E0305",
                row.span,
                format!("row has {found} cells but the table has {want} columns"),
                format!("{found} cells"),
                Some(format!("the columns are: {names}")),
            );
            return Vec::new();
        }
        row.cells.iter().zip(cols).map(|(c, (_, ty))| self.cell_const(c, ty)).collect()
    }

    pub(super) fn cell_const(&mut self, c: &ast::Cell, ty: &Ty) -> Const {
        match (ty, &c.kind) {
            (Ty::Opt(_), CellKind::None) => Const::None,
            (Ty::Opt(inner), _) => self.cell_const(c, inner),
            (Ty::Int, CellKind::Int(v)) => Const::Int(*v),
            (Ty::Dec, CellKind::Int(v)) => Const::Dec(*v, 1),
            (Ty::Dec, CellKind::Dec(n, d)) => Const::Dec(*n, *d),
            (Ty::Bool, CellKind::Bool(b)) => Const::Bool(*b),
            (Ty::Text, CellKind::Str(s)) | (Ty::Text, CellKind::Ident(s)) => Const::Text(s.clone()),
            (Ty::Enum(e), CellKind::Ident(v)) => self.variant_const(*e, v, c.span),
            (Ty::Key(ts), CellKind::Str(k)) | (Ty::Key(ts), CellKind::Ident(k)) => self.key_const(ts, k, c.span),
            (Ty::List(inner), CellKind::List(items)) => Const::List(items.iter().map(|i| self.cell_const(i, inner)).collect()),
            (Ty::Error, _) => Const::None,
            _ => {
                let want = self.ty_name(ty);
                let shown = self.ty_shown(ty);
                let found = match &c.kind {
                    CellKind::Int(_) => "a whole number",
                    CellKind::Dec(..) => "a decimal",
                    CellKind::Bool(_) => "yes/no",
                    CellKind::Str(_) => "text",
                    CellKind::Ident(_) => "a name",
                    CellKind::None => "`-` (none)",
                    CellKind::List(_) => "a list",
                };
                let help = match ty {
                    Ty::Opt(_) | Ty::NoneLit => None,
                    _ if matches!(c.kind, CellKind::None) => {
                        Some(format!("`-` is allowed only in a column of optional type, e.g. `{want}?`"))
                    }
                    Ty::List(_) => Some("write a list as `[a, b]`".into()),
                    _ => None,
                };
                self.err(
                    "E0201",
                    c.span,
                    format!("expected {shown}, found {found}"),
                    format!("not {shown}"),
                    help,
                );
                Const::None
            }
        }
    }

    pub(super) fn key_const(&mut self, tables: &[usize], k: &str, span: Span) -> Const {
        let norm = normalize_key(k);
        for &t in tables {
            if let Some(&row) = self.table_keys.get(t).and_then(|m| m.get(&norm)) {
                self.tables[t].used = true;
                let name = self.tables[t]
                    .rows
                    .get(row)
                    .map(|r| r.label.clone())
                    .unwrap_or_else(|| k.to_string());
                return Const::Key { table: t, row, name };
            }
        }
        let mut cands: Vec<String> = Vec::new();
        for &t in tables {
            cands.extend(self.table_keys.get(t).map(|m| m.keys().cloned()).unwrap_or_default());
        }
        // Suggest real keys, not normalised forms.
        let near_norm = crate::diag::nearest(&norm, cands.iter().map(|s| s.as_str()));
        let mut near = Vec::new();
        for n in near_norm {
            for &t in tables {
                if let Some(&row) = self.table_keys.get(t).and_then(|m| m.get(&n)) {
                    if let Some(label) = self.raw_key(t, row) {
                        near.push(format!("`{label}`"));
                    }
                }
            }
        }
        let tn = self.ty_name(&Ty::Key(tables.to_vec()));
        let help = if near.is_empty() {
            format!("run `rulebook list` to see the rows of `{tn}`")
        } else {
            format!("did you mean {}?", near.join(" or "))
        };
        self.err("E0101", span, format!("`{k}` is not a key of `{tn}`"), "unknown key", Some(help));
        Const::None
    }

    pub(super) fn raw_key(&self, t: usize, row: usize) -> Option<String> {
        self.tables
            .get(t)
            .and_then(|t| t.rows.get(row))
            .map(|r| r.label.clone())
            .or_else(|| {
                // rows of tables not yet lowered: fall back to the normalised form
                self.table_keys
                    .get(t)
                    .and_then(|m| m.iter().find(|(_, &r)| r == row).map(|(k, _)| k.clone()))
            })
    }

    pub(super) fn range_table(
        &mut self,
        tid: usize,
        t: &ast::TableDecl,
        index: &ast::ByIndex,
        result: Option<&ast::TypeExpr>,
        cols: &[(String, Ty)],
    ) {
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
        self.range_gaps(t, &rows, (lo, hi), dist.as_deref());
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
            let cells = match result_ty {
                Some(rt) => {
                    if !row.arrow || row.cells.len() != 1 {
                        self.err(
                            "E0305",
                            row.span,
                            "this table gives one value per row: `range => value`",
                            "expected `=> value`",
                            None,
                        );
                        continue;
                    }
                    vec![self.cell_const(&row.cells[0], rt)]
                }
                None => self.row_cells(row, cols, false),
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
                cells,
            });
            spans.push(row.head_span);
        }
        (rows, spans)
    }

    /// E0302: rows that overlap, with the values involved.
    fn range_overlaps(&mut self, rows: &[RowDef], spans: &[Span]) {
        for i in 0..rows.len() {
            for j in 0..i {
                let (a, b) = (rows[i].range, rows[j].range);
                let (olo, ohi) = (a.0.max(b.0), a.1.min(b.1));
                if olo <= ohi {
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
        }
    }

    /// E0301: values of the index range no row covers, with their probability when the index is
    /// a roll.
    fn range_gaps(&mut self, t: &ast::TableDecl, rows: &[RowDef], (lo, hi): (i64, i64), dist: Option<&[(i64, u64)]>) {
        let mut sorted: Vec<(i64, i64)> = rows.iter().map(|r| r.range).collect();
        sorted.sort();
        let mut gaps = Vec::new();
        let mut next = lo as i128;
        for (a, b) in sorted {
            if (a as i128) > next && next <= hi as i128 {
                gaps.push((next as i64, (a as i128 - 1).min(hi as i128) as i64));
            }
            next = next.max(b as i128 + 1);
        }
        if next <= hi as i128 {
            gaps.push((next as i64, hi));
        }
        for (glo, ghi) in gaps {
            let mass = dist.as_ref().map(|d| {
                let (n, total) = d
                    .iter()
                    .filter(|(v, _)| *v >= glo && *v <= ghi)
                    .fold((0u64, 0u64), |acc, (_, c)| (acc.0 + c, acc.1));
                let total_all: u64 = d.iter().map(|(_, c)| c).sum();
                let _ = total;
                let g = num_integer::gcd(n, total_all.max(1)).max(1);
                format!(" (probability {}/{})", n / g, total_all.max(1) / g)
            });
            self.err(
                "E0301",
                t.name.span,
                format!(
                    "table `{}` has no row for {}{}",
                    t.name.name,
                    range_label(glo, ghi),
                    mass.unwrap_or_default()
                ),
                "gap in this table",
                Some(format!(
                    "add a row covering {} or narrow the table's `by` range",
                    range_label(glo, ghi)
                )),
            );
        }
    }

    pub(super) fn matrix_table(
        &mut self,
        tid: usize,
        t: &ast::TableDecl,
        row_ty: &ast::Ident,
        col_ty: &ast::Ident,
        result: &ast::TypeExpr,
    ) {
        let (rty, _) = self.type_atom(&ast::TypeAtom {
            name: row_ty.clone(),
            bounds: None,
        });
        let (cty, _) = self.type_atom(&ast::TypeAtom {
            name: col_ty.clone(),
            bounds: None,
        });
        // Each axis that is not an enum is reported where it is written, naming its type.
        for (ty, axis) in [(&rty, row_ty), (&cty, col_ty)] {
            if !matches!(ty, Ty::Enum(_) | Ty::Error) {
                let tn = self.ty_shown(ty);
                self.err(
                    "E0201",
                    axis.span,
                    format!("a matrix axis must be an enum, found {tn}"),
                    "not an enum",
                    Some("index the matrix by two enums, one for its rows and one for its columns; for numbers, use a range table".into()),
                );
            }
        }
        let (Ty::Enum(re), Ty::Enum(ce)) = (rty, cty) else {
            return;
        };
        let res = self.type_expr(result).0;
        self.tables[tid].kind = TableKind::Matrix {
            row_enum: re,
            col_enum: ce,
        };
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
        let cvars: Vec<String> = self.enums[ce].variants.iter().map(|(n, _)| n.clone()).collect();
        let Some(col_pos) = self.matrix_columns(t, header, ce, &cvars) else {
            return;
        };
        let grid = self.matrix_grid(t, re, ce, header, &col_pos, &res);
        let rvars: Vec<String> = self.enums[re].variants.iter().map(|(n, _)| n.clone()).collect();
        let rows = self.matrix_rows(t, grid, &rvars, cvars.len());
        self.tables[tid].rows = rows;
    }

    /// The column of each header label (E0101 for a label that is no variant), and E0303 for
    /// every variant of the column enum that has no column.
    fn matrix_columns(&mut self, t: &ast::TableDecl, header: &[ast::Ident], ce: usize, cvars: &[String]) -> Option<Vec<usize>> {
        let mut col_pos = Vec::new();
        for h in header {
            match cvars.iter().position(|v| *v == h.name) {
                Some(i) => col_pos.push(i),
                None => {
                    let help = did_you_mean(&h.name, cvars.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "variant");
                    let en = self.enums[ce].name.clone();
                    self.err(
                        "E0101",
                        h.span,
                        format!("`{}` is not a variant of `{en}`", h.name),
                        "unknown column",
                        Some(help),
                    );
                    return None;
                }
            }
        }
        for (i, v) in cvars.iter().enumerate() {
            if !col_pos.contains(&i) {
                self.err(
                    "E0303",
                    t.name.span,
                    format!("matrix `{}` has no column for `{v}`", t.name.name),
                    "missing column",
                    Some(format!("add `| {v}` to the header row")),
                );
            }
        }
        Some(col_pos)
    }

    /// The cells of each row of the row enum, in the column enum's order (`None` for a row the
    /// matrix lacks).
    fn matrix_grid(
        &mut self,
        t: &ast::TableDecl,
        re: usize,
        ce: usize,
        header: &[ast::Ident],
        col_pos: &[usize],
        res: &Ty,
    ) -> Vec<Option<Vec<Const>>> {
        let cvars: Vec<String> = self.enums[ce].variants.iter().map(|(n, _)| n.clone()).collect();
        let rvars: Vec<String> = self.enums[re].variants.iter().map(|(n, _)| n.clone()).collect();
        let none_ok = matches!(res, Ty::Opt(_));
        let mut grid: Vec<Option<Vec<Const>>> = vec![None; rvars.len()];
        for row in &t.rows {
            let label = match &row.head {
                ast::RowHead::Label(l) => l.clone(),
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
            let Some(ri) = rvars.iter().position(|v| *v == label) else {
                let help = did_you_mean(&label, rvars.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "variant");
                self.err(
                    "E0101",
                    row.head_span,
                    format!("`{label}` is not a variant of `{}`", self.enums[re].name),
                    "unknown row",
                    Some(help),
                );
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
            for (c, &pos) in row.cells.iter().zip(col_pos) {
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

    /// One row per variant of the row enum; E0303 for each the matrix lacks.
    fn matrix_rows(&mut self, t: &ast::TableDecl, grid: Vec<Option<Vec<Const>>>, rvars: &[String], ncols: usize) -> Vec<RowDef> {
        let mut rows = Vec::new();
        for (i, g) in grid.into_iter().enumerate() {
            match g {
                Some(cells) => rows.push(RowDef {
                    label: rvars[i].clone(),
                    range: (i as i64, i as i64),
                    cells,
                }),
                None => {
                    self.err(
                        "E0303",
                        t.name.span,
                        format!("matrix `{}` has no row for `{}`", t.name.name, rvars[i]),
                        "missing row",
                        Some(format!("add a row `{} | ...`", rvars[i])),
                    );
                    rows.push(RowDef {
                        label: rvars[i].clone(),
                        range: (i as i64, i as i64),
                        cells: vec![Const::None; ncols],
                    });
                }
            }
        }
        rows
    }

    pub(super) fn lookup_result(&self, tid: usize) -> (Ty, Iv) {
        let t = &self.tables[tid];
        match &t.result {
            Some(ty) => {
                let mut iv: Option<Iv> = None;
                // Every cell: a matrix row holds one value per column.
                for v in t.rows.iter().flat_map(|r| r.cells.iter()) {
                    if let Const::Int(v) = v {
                        iv = Some(iv.map_or(Iv::exact(*v), |i| i.join(Iv::exact(*v))));
                    }
                }
                (
                    ty.clone(),
                    if matches!(ty, Ty::Int) {
                        iv.unwrap_or(Iv::UNKNOWN)
                    } else {
                        Iv::UNKNOWN
                    },
                )
            }
            None => (Ty::Row(tid), Iv::UNKNOWN),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only, program};

    /// A resolver reading `t(d)` for a roll `d` of `dice`, so the table counts as used.
    fn with_reader(table: &str, dice: &str) -> String {
        format!("{table}\nresolver r \"R\" [1] {{\n  out x: int\n  roll d = {dice}\n  set x = t(d)\n}}\n")
    }

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

    #[test]
    fn keyed_tables_keys_and_cells() {
        let table = |rows: &str| {
            format!("table t \"T\" [1] {{\n  key name\n  columns a: int, b: int\n{rows}}}\nresolver r \"R\" [1] {{\n  in k: t\n  out x: int\n  set x = k.a\n}}\n")
        };
        check_codes(&table("  \"One\" | 1 | 2\n  \"Two\" | 3 | 4\n"), &[]);
        check_codes(&table("  \"Mark One\" | 1 | 2\n  \"mark-one\" | 3 | 4\n"), &["E0306"]);
        check_codes(&table("  \"One\" | 1 | 2\n  \"Two\" | 3\n"), &["E0305"]);
        check_codes(&table("  \"One\" | 1 | yes\n"), &["E0201"]);
    }

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
    fn an_unused_table_is_a_warning() {
        check_codes("table t \"T\" [1] by 1d6 -> int {\n  1..6 => 1\n}\n", &["W0001"]);
    }

    #[test]
    fn a_lookup_is_bounded_by_its_cells() {
        let p = program(&with_reader(
            "table t \"T\" [1] by 1d6 -> int {\n  1..3 => -2\n  4..6 => 5\n}",
            "1d6",
        ));
        let Some(crate::ir::Stmt::Set { value, .. }) = p.systems[0].resolvers[0].body.get(1) else {
            panic!("expected `set x = t(d)`");
        };
        assert_eq!((value.iv.lo, value.iv.hi, value.iv.known), (-2, 5, true));
    }
}
