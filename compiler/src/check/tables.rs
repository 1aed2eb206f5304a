//! Tables: the keys of keyed tables (with aliases), tables keyed by an enum (one row per
//! variant), columns, rows and cells, range tables (their index, rows outside it, overlaps, and
//! gaps with their probability when the index is a roll), matrices (each axis an enum or a
//! whole-number range), the type of a lookup, and tables no resolver uses.
//!
//! Diagnostics owned here: E0301 (gap), E0302 (overlap), E0303 (matrix cell, row or column
//! missing; a variant without its row), E0305 (wrong number of cells), E0306 (duplicate key, row or
//! column), E0307 (malformed table), W0001 (unused table), W0002 (row or matrix column outside the
//! index range), plus E0101 for unknown keys, variants and key enums, E0102 for reserved column
//! names, and E0201 for cells of the wrong type and axes or keys of the wrong kind.

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
            if let (ast::TableKind::Keyed, Some(kt)) = (&t.kind, &t.key_ty) {
                self.declare_enum_key(tid, t, kt);
            } else if matches!(t.kind, ast::TableKind::Keyed) {
                let mut keys: BTreeMap<String, usize> = BTreeMap::new();
                for (ri, row) in t.rows.iter().enumerate() {
                    let key = match &row.head {
                        ast::RowHead::Key(k) | ast::RowHead::Label(k) => k.clone(),
                        ast::RowHead::Range(..) | ast::RowHead::DecRange(..) => continue,
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

    /// `key unit: unit_type`: the table has one row per variant of that enum (E0101 for an unknown
    /// type, E0201 for a type that is not an enum, E0307 for aliases, which name text keys).
    fn declare_enum_key(&mut self, tid: usize, t: &ast::TableDecl, kt: &ast::Ident) {
        if let Some(&e) = self.enum_idx.get(&kt.name) {
            self.tables[tid].kind = TableKind::ByEnum { key_enum: e };
        } else if matches!(kt.name.as_str(), "int" | "decimal" | "bool" | "text")
            || self.record_idx.contains_key(&kt.name)
            || self.table_idx.contains_key(&kt.name)
            || self.aliases.contains_key(&kt.name)
        {
            self.err(
                "E0201",
                kt.span,
                format!("a table is keyed by text or by an enum, not by `{}`", kt.name),
                "not an enum",
                Some(format!(
                    "write `key {}` for text keys, or name an enum",
                    t.key.as_ref().map(|k| k.name.as_str()).unwrap_or("name")
                )),
            );
        } else {
            let names: Vec<&str> = self.enums.iter().map(|e| e.name.as_str()).collect();
            let help = did_you_mean(&kt.name, names, "enum");
            self.err("E0101", kt.span, format!("unknown enum `{}`", kt.name), "not an enum", Some(help));
        }
        if !matches!(self.tables[tid].kind, TableKind::ByEnum { .. }) {
            self.broken_tables.insert(tid);
        }
        for (_, _, span) in &t.aliases {
            self.err(
                "E0307",
                *span,
                format!("table `{}` is keyed by an enum: its rows have no text keys to alias", t.name.name),
                "alias in an enum-keyed table",
                Some("remove the alias; an enum value names its row".into()),
            );
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
            ast::TableKind::Keyed if t.key_ty.is_some() => {
                if let TableKind::ByEnum { key_enum } = self.tables[tid].kind {
                    self.enum_table(tid, t, key_enum, &cols);
                }
            }
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
                        ast::RowHead::Range(..) | ast::RowHead::DecRange(..) => {
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
                        band: None,
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

    /// The rows of a table keyed by enum `e`: one per variant (E0303 for a variant without a row,
    /// E0306 for one with two, E0101 for a row that names no variant).
    fn enum_table(&mut self, tid: usize, t: &ast::TableDecl, e: usize, cols: &[(String, Ty)]) {
        let en = self.enums[e].name.clone();
        if cols.is_empty() {
            self.err(
                "E0307",
                t.name.span,
                format!("table `{}` has no `columns` line", t.name.name),
                "no columns",
                Some("add `columns name: type, ...` before the rows".into()),
            );
        }
        let vars: Vec<String> = self.enums[e].variants.iter().map(|(v, _)| v.clone()).collect();
        let mut grid: Vec<Option<(Vec<Const>, Span)>> = vec![None; vars.len()];
        for row in &t.rows {
            let label = match &row.head {
                ast::RowHead::Label(l) => l.clone(),
                ast::RowHead::Key(k) => {
                    self.err(
                        "E0307",
                        row.head_span,
                        format!("a row of a table keyed by `{en}` starts with a variant, not text"),
                        "text here",
                        Some(format!("write the variant without quotes: `{k} | ...`")),
                    );
                    continue;
                }
                ast::RowHead::Range(..) | ast::RowHead::DecRange(..) => {
                    self.err(
                        "E0307",
                        row.head_span,
                        format!("a row of a table keyed by `{en}` starts with a variant of `{en}`"),
                        "a number here",
                        None,
                    );
                    continue;
                }
            };
            let Some(pos) = vars.iter().position(|v| *v == label) else {
                let help = did_you_mean(&label, vars.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "variant");
                self.err(
                    "E0101",
                    row.head_span,
                    format!("`{label}` is not a variant of `{en}`"),
                    "unknown row",
                    Some(help),
                );
                continue;
            };
            let cells = self.row_cells(row, cols, false);
            if let Some((_, first)) = &grid[pos] {
                let line = self.line_of(*first);
                self.err(
                    "E0306",
                    row.head_span,
                    format!("variant `{label}` has two rows in table `{}`", t.name.name),
                    "duplicate row",
                    Some(format!("the first is on line {line}; give each variant of `{en}` one row")),
                );
                continue;
            }
            grid[pos] = Some((cells, row.head_span));
        }
        let mut rows = Vec::new();
        for (i, g) in grid.into_iter().enumerate() {
            if g.is_none() {
                self.err(
                    "E0303",
                    t.name.span,
                    format!("table `{}` has no row for `{}`", t.name.name, vars[i]),
                    "missing row",
                    Some(format!("add a row `{} | ...`: every variant of `{en}` needs one", vars[i])),
                );
            }
            rows.push(RowDef {
                label: vars[i].clone(),
                range: (i as i64, i as i64),
                band: None,
                cells: g.map(|(c, _)| c).unwrap_or_else(|| vec![Const::None; cols.len()]),
            });
        }
        self.tables[tid].rows = rows;
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
        row.cells
            .iter()
            .zip(cols)
            .map(|(c, (name, ty))| self.cell_in(c, ty, Some((name, ty))))
            .collect()
    }

    pub(super) fn cell_const(&mut self, c: &ast::Cell, ty: &Ty) -> Const {
        self.cell_in(c, ty, None)
    }

    /// A cell's value of type `ty`; `column` is the column it sits in (its name and declared type),
    /// which a wrong value's E0201 names.
    fn cell_in(&mut self, c: &ast::Cell, ty: &Ty, column: Option<(&str, &Ty)>) -> Const {
        match (ty, &c.kind) {
            (Ty::Opt(_), CellKind::None) => Const::None,
            (Ty::Opt(inner), _) => self.cell_in(c, inner, column),
            (Ty::Int, CellKind::Int(v)) => Const::Int(*v),
            (Ty::Dec, CellKind::Int(v)) => Const::Dec(*v, 1),
            (Ty::Dec, CellKind::Dec(n, d)) => Const::Dec(*n, *d),
            (Ty::Bool, CellKind::Bool(b)) => Const::Bool(*b),
            (Ty::Text, CellKind::Str(s)) | (Ty::Text, CellKind::Ident(s)) => Const::Text(s.clone()),
            (Ty::Enum(e), CellKind::Ident(v)) => self.variant_const(*e, v, c.span),
            (Ty::Key(ts), CellKind::Str(k)) | (Ty::Key(ts), CellKind::Ident(k)) => self.key_const(ts, k, c.span),
            (Ty::List(inner), CellKind::List(items)) => Const::List(items.iter().map(|i| self.cell_in(i, inner, column)).collect()),
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
                let how = match ty {
                    _ if matches!(c.kind, CellKind::None) => {
                        format!("`-` is allowed only in a column of optional type, e.g. `{want}?`")
                    }
                    Ty::List(_) => "write a list as `[a, b]`".into(),
                    Ty::Int => "write a whole number, e.g. `3` or `-2`".into(),
                    Ty::Dec => "write a number, e.g. `0.5` or `2`".into(),
                    Ty::Bool => "write `yes` or `no`".into(),
                    Ty::Text => "write text in quotes, e.g. `\"Powerpak\"`".into(),
                    Ty::Enum(e) => {
                        let variants = self.enums.get(*e).map(|e| e.variants.clone()).unwrap_or_default();
                        let shown: Vec<String> = variants.iter().take(8).map(|(v, _)| format!("`{v}`")).collect();
                        let more = if variants.len() > 8 { ", ..." } else { "" };
                        format!("write one of {}{more}", shown.join(", "))
                    }
                    Ty::Key(_) => format!("write a row key of `{want}` in quotes"),
                    _ => "write a value of that type".into(),
                };
                let (message, label, help) = match column {
                    Some((name, declared)) => {
                        let none = if matches!(declared, Ty::Opt(_)) && !matches!(c.kind, CellKind::None) {
                            ", or `-` for none"
                        } else {
                            ""
                        };
                        (
                            format!("column `{name}` holds {}, found {found}", self.ty_shown(declared)),
                            format!("not {}", self.ty_shown(declared)),
                            format!("the `columns` line declares `{name}: {}`; {how}{none}", self.ty_name(declared)),
                        )
                    }
                    None => (format!("expected {shown}, found {found}"), format!("not {shown}"), how),
                };
                self.err("E0201", c.span, message, label, Some(help));
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
        // A file of this system that failed to parse and mentions the key probably declares its
        // row: its syntax error is the one report.
        if self.unparsed.as_ref().is_some_and(|u| u.mentions(&norm)) {
            return Const::None;
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
    use super::super::testing::{check_codes, diagnostics, only, program};

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

    #[test]
    fn a_table_keyed_by_an_enum_has_one_row_per_variant() {
        let src = |rows: &str| {
            format!("enum u \"U\" [1] {{ infantry, cas }}\ntable ut \"UT\" [1] {{\n  key unit: u\n  columns blocks: int, flanks: bool\n{rows}}}\nresolver r \"R\" [1] {{\n  in t: u\n  out x: int\n  set x = if ut(t).flanks then ut(t).blocks else 0\n}}\n")
        };
        check_codes(&src("  infantry | 2 | yes\n  cas | 0 | no\n"), &[]);
        let (msg, help) = only(&src("  infantry | 2 | yes\n"), "E0303");
        assert_eq!(
            (msg.as_str(), help.as_str()),
            (
                "table `ut` has no row for `cas`",
                "add a row `cas | ...`: every variant of `u` needs one"
            )
        );
        let (msg, help) = only(&src("  infantry | 2 | yes\n  cas | 0 | no\n  infantry | 1 | no\n"), "E0306");
        assert_eq!(msg, "variant `infantry` has two rows in table `ut`");
        assert_eq!(help, "the first is on line 6; give each variant of `u` one row");
        check_codes(&src("  infantry | 2 | yes\n  cass | 0 | no\n"), &["E0101", "E0303"]);
        assert_eq!(
            diagnostics(&src("  infantry | 2 | yes\n  cass | 0 | no\n"))[0].help.as_deref(),
            Some("did you mean `cas`?")
        );
        check_codes(&src("  infantry | 2 | yes\n  cas | 0\n"), &["E0305"]);
        check_codes(&src("  infantry | 2 | yes\n  \"cas\" | 0 | no\n"), &["E0307", "E0303"]);
    }

    #[test]
    fn an_enum_key_must_be_an_enum_and_the_table_is_no_type() {
        let table =
            |key: &str| format!("enum u \"U\" [1] {{ a }}\ntable ut \"UT\" [1] {{\n  key unit: {key}\n  columns n: int\n  a | 1\n}}\n");
        let (msg, help) = only(
            &format!("{}resolver r \"R\" [1] {{\n  out x: int\n  set x = ut(a).n\n}}\n", table("uu")),
            "E0101",
        );
        assert_eq!((msg.as_str(), help.as_str()), ("unknown enum `uu`", "did you mean `u`?"));
        let (msg, help) = only(
            &format!("{}resolver r \"R\" [1] {{\n  out x: int\n  set x = ut(a).n\n}}\n", table("int")),
            "E0201",
        );
        assert_eq!(msg, "a table is keyed by text or by an enum, not by `int`");
        assert_eq!(help, "write `key unit` for text keys, or name an enum");
        check_codes(
            &format!("{}resolver r \"R\" [1] {{\n  out x: int = 0\n}}\n", table("int")),
            &["E0201", "W0001"],
        );
        check_codes(
            &format!("{}resolver r \"R\" [1] {{\n  in k: ut\n  out x: int = 0\n}}\n", table("u")),
            &["E0201"],
        );
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
