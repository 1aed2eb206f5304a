//! Tables: the keys of keyed tables (with aliases), tables keyed by an enum (one row per
//! variant), columns, rows and cells, the type of a lookup, and tables no resolver uses. Range
//! tables are checked in `ranges`, matrices in `matrices`, tables `by decimal` in `bands`.
//!
//! Diagnostics owned here: E0303 (a variant without its row), E0305 (wrong number of cells), E0306
//! (duplicate key or row), E0307 (malformed table), W0001 (unused table), plus E0101 for unknown
//! keys, variants and key enums, E0102 for reserved column names, and E0201 for cells of the wrong
//! type and keys of the wrong kind.

use super::ctx::Checker;
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
                        self.key_spellings.insert((tid, norm.clone()), key.clone());
                        keys.insert(norm, ri);
                    }
                }
                for (names, target, span) in &t.aliases {
                    match keys.get(&normalize_key(target)).copied() {
                        Some(row) => {
                            for (n, nspan) in names {
                                let norm = normalize_key(n);
                                if let std::collections::btree_map::Entry::Vacant(e) = keys.entry(norm.clone()) {
                                    e.insert(row);
                                    self.key_spellings.insert((tid, norm), n.clone());
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
                let spelled = match self.key_spellings.get(&(t, n.clone())) {
                    Some(s) => Some(s.clone()),
                    None => self.table_keys.get(t).and_then(|m| m.get(&n)).and_then(|&row| self.raw_key(t, row)),
                };
                if let Some(label) = spelled.map(|l| format!("`{l}`")).filter(|l| !near.contains(l)) {
                    near.push(label);
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
    use super::super::testing::{check_codes, diagnostics, only, program, with_reader};

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
