//! Tables: each table's static rows and its `lookup_…` function (range, decimal band, matrix,
//! by enum), and the `key_col_…` accessors of the columns read through keys.

use super::registry::fields_of;
use super::{camel, lit, raw_ident, upper, Gen};
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    pub(super) fn table_def(&self, tid: usize, t: &TableDef) -> String {
        let mut out = String::new();
        let row_ty = format!("{}Row", camel(&t.name));
        let stat = upper(&t.name);
        let cols: Vec<(String, Ty)> = match (&t.kind, &t.result) {
            (TableKind::Range { .. } | TableKind::DecRange | TableKind::Matrix { .. }, Some(r)) => {
                vec![("value".to_string(), r.clone())]
            }
            _ => t.columns.clone(),
        };
        let doc = format!("{} [{}]. Source: {}:{}", t.title, t.cite, t.source, t.line);
        if matches!(t.kind, TableKind::Matrix { .. }) {
            return self.matrix_def(t, &doc, &stat);
        }
        // Row struct.
        let mut st = codegen::Struct::new(&row_ty);
        st.vis("pub").derive("Debug").doc(&format!("A row of {}", t.title));
        if matches!(t.kind, TableKind::Keyed) {
            st.new_field(raw_ident(&t.key_column), "&'static str").vis("pub");
        }
        for (c, ct) in &cols {
            st.new_field(raw_ident(c), self.static_ty(ct)).vis("pub");
        }
        let mut s = codegen::Scope::new();
        s.push_struct(st);
        out.push_str(&s.to_string());
        out.push('\n');
        let rows: Vec<String> = t
            .rows
            .iter()
            .map(|r| {
                let mut fields = Vec::new();
                if matches!(t.kind, TableKind::Keyed) {
                    fields.push(format!("{}: {}", t.key_column, lit(&r.label)));
                }
                for (c, (cn, ct)) in r.cells.iter().zip(&cols) {
                    fields.push(format!("{}: {}", raw_ident(cn), self.konst(c, ct, true)));
                }
                format!("{row_ty} {{ {} }}", fields.join(", "))
            })
            .collect();
        let _ = writeln!(
            out,
            "/// {doc}\npub static {stat}: [{row_ty}; {}] = [{}];",
            t.rows.len(),
            rows.join(",\n")
        );
        // to_value for row records.
        let fields: Vec<String> = cols
            .iter()
            .map(|(c, ct)| format!("({}, {})", lit(c), self.to_value(&format!("self.{}", raw_ident(c)), ct)))
            .collect();
        let _ = writeln!(
            out,
            "impl {row_ty} {{ pub fn to_value(&self) -> rt::Value {{ rt::Value::Record(vec![{}]) }} }}\n{}",
            fields.join(", "),
            self.flatten_impl(&row_ty, &fields_of(cols.iter().map(|(c, ct)| (c, ct))))
        );
        // A range table's lookup: the row for a whole number (a `match` on ranges) or a decimal
        // (`if` tests in row order: the first row in the text whose band holds it).
        let select = self.range_select(t);
        if let Some((arg, arg_ty, select)) = select {
            let (ret_ty, ret, shown) = match &t.result {
                Some(r) => (self.static_ty(r), "row.value".to_string(), self.to_value("row.value", r)),
                None => (format!("&'static {row_ty}"), "row".to_string(), "row.to_value()".to_string()),
            };
            let _ = writeln!(
                out,
                "#[inline(always)]\nfn lookup_{name}<T: rt::Trace>(trace: &mut T, {arg}: {arg_ty}) -> Result<{ret_ty}, rt::Error> {{\n let idx: usize = {select};\n let labels: [&str; {n}] = [{labels}];\n let row = {stat}.get(idx).ok_or_else(|| rt::Error::Internal {{ message: \"table row missing\".to_string() }})?;\n if T::ENABLED {{ trace.event(rt::Event::Row {{ table: {tname}.to_string(), key: {arg}.to_string(), row: format!(\"{{}} => {{}}\", labels.get(idx).copied().unwrap_or(\"?\"), {shown}), cite: {cite}.to_string() }}); }}\n Ok({ret})\n}}",
                name = t.name,
                n = t.rows.len(),
                labels = t.rows.iter().map(|r| lit(&r.label)).collect::<Vec<_>>().join(", "),
                tname = lit(&t.name),
                cite = lit(&t.cite),
            );
        }
        if let TableKind::ByEnum { key_enum } = t.kind {
            let en = camel(&self.sys.enums[key_enum].name);
            let _ = writeln!(
                out,
                "#[inline(always)]\nfn lookup_{name}<T: rt::Trace>(trace: &mut T, k: {en}) -> Result<&'static {row_ty}, rt::Error> {{\n let row = {stat}.get(rt::EnumType::index(k)).ok_or_else(|| rt::Error::Internal {{ message: {msg} }})?;\n if T::ENABLED {{ trace.event(rt::Event::Row {{ table: {tname}.to_string(), key: rt::EnumType::name(k).to_string(), row: row.to_value().to_string(), cite: {cite}.to_string() }}); }}\n Ok(row)\n}}",
                name = t.name,
                msg = lit(&format!("table {} is missing a row", t.name)) + ".to_string()",
                tname = lit(&t.name),
                cite = lit(&t.cite),
            );
        }
        let _ = tid;
        out
    }

    /// A matrix table: its static, one array per row, and its `lookup_…` by row and column.
    fn matrix_def(&self, t: &TableDef, doc: &str, stat: &str) -> String {
        let mut out = String::new();
        let (TableKind::Matrix { rows: row_axis, cols }, Some(res)) = (&t.kind, &t.result) else {
            return out;
        };
        let cty = self.static_ty(res);
        let ncols = self.axis_len(cols);
        let rows: Vec<String> = t
            .rows
            .iter()
            .map(|r| {
                format!(
                    "[{}]",
                    r.cells.iter().map(|c| self.konst(c, res, true)).collect::<Vec<_>>().join(", ")
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "/// {doc}\npub static {stat}: [[{cty}; {ncols}]; {}] = [{}];",
            t.rows.len(),
            rows.join(", ")
        );
        let (rty, ri, rn) = self.axis_code(row_axis, "r", &t.name);
        let (cty_arg, ci, cn) = self.axis_code(cols, "c", &t.name);
        let _ = writeln!(
            out,
            "#[inline(always)]\nfn lookup_{name}<T: rt::Trace>(trace: &mut T, r: {rty}, c: {cty_arg}) -> Result<{cty}, rt::Error> {{\n let ri: usize = {ri};\n let ci: usize = {ci};\n let v = {stat}.get(ri).and_then(|row| row.get(ci)).copied().ok_or_else(|| rt::Error::Internal {{ message: {msg} }})?;\n if T::ENABLED {{ trace.event(rt::Event::Row {{ table: {tname}.to_string(), key: format!(\"{{}}, {{}}\", {rn}, {cn}), row: {vs}.to_string(), cite: {cite}.to_string() }}); }}\n Ok(v)\n}}",
            name = t.name,
            msg = lit(&format!("matrix {} is missing a cell", t.name)) + ".to_string()",
            tname = lit(&t.name),
            vs = self.to_value("v", res),
            cite = lit(&t.cite),
        );
        out
    }

    /// For a range table (by whole numbers or decimal bands): the argument of its lookup, the
    /// argument's type and the code of the row's index; `None` for other tables.
    fn range_select(&self, t: &TableDef) -> Option<(&'static str, &'static str, String)> {
        match t.kind {
            TableKind::Range { .. } => {
                let arms: Vec<String> = t
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let pat = match r.range {
                            (i64::MIN, i64::MAX) => "_".to_string(),
                            (i64::MIN, h) => format!("..={h}"),
                            (l, i64::MAX) => format!("{l}.."),
                            (l, h) if l == h => format!("{l}"),
                            (l, h) => format!("{l}..={h}"),
                        };
                        format!("{pat} => {i},")
                    })
                    .collect();
                Some((
                    "i",
                    "i64",
                    format!(
                        "match i {{ {} _ => return Err(rt::Error::Domain {{ what: format!(\"{{}} is outside table {}\", i) }}) }}",
                        arms.join(" "),
                        t.name
                    ),
                ))
            }
            TableKind::DecRange => {
                let tests: Vec<String> = t
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let (lo, hi) = r.band.unwrap_or((None, None));
                        let mut c = Vec::new();
                        if let Some((n, d)) = lo {
                            c.push(format!("rt::Dec::raw({n}, {d}) <= x"));
                        }
                        if let Some((n, d)) = hi {
                            c.push(format!("x <= rt::Dec::raw({n}, {d})"));
                        }
                        let cond = if c.is_empty() { "true".to_string() } else { c.join(" && ") };
                        format!("if {cond} {{ {i} }} else")
                    })
                    .collect();
                Some((
                    "x",
                    "rt::Dec",
                    format!(
                        "{} {{ return Err(rt::Error::Domain {{ what: format!(\"{{}} is outside table {}\", x) }}) }}",
                        tests.join(" "),
                        t.name
                    ),
                ))
            }
            _ => None,
        }
    }

    /// Number of positions on a matrix axis.
    fn axis_len(&self, a: &Axis) -> usize {
        match a {
            Axis::Enum(e) => self.sys.enums[*e].variants.len(),
            Axis::Int { lo, hi } => (*hi as i128 - *lo as i128 + 1) as usize,
        }
    }

    /// For the matrix lookup argument `v` on axis `a`: its Rust type, its index into the static
    /// (an expression that may return the range table's domain error) and its label in the trace.
    fn axis_code(&self, a: &Axis, v: &str, table: &str) -> (String, String, String) {
        match a {
            Axis::Enum(e) => (
                camel(&self.sys.enums[*e].name),
                format!("rt::EnumType::index({v})"),
                format!("rt::EnumType::name({v})"),
            ),
            // Outside the axis is the range tables' error (the checker proves it cannot happen).
            Axis::Int { lo, hi } => (
                "i64".into(),
                format!(
                    "{{ if !({lo}i64..={hi}i64).contains(&{v}) {{ return Err(rt::Error::Domain {{ what: format!(\"{{}} is outside table {table}\", {v}) }}); }} (({v} as i128) - ({lo}i128)) as usize }}"
                ),
                v.to_string(),
            ),
        }
    }

    pub(super) fn key_col_id(&self, tables: &[usize], col: &str) -> usize {
        let mut m = self.key_cols.borrow_mut();
        let n = m.len();
        *m.entry((tables.to_vec(), col.to_string())).or_insert(n)
    }

    pub(super) fn key_col_fn(&self, id: usize, tables: &[usize], col: &str) -> String {
        let t0 = &self.sys.tables[tables[0]];
        let cty = t0
            .columns
            .iter()
            .find(|(n, _)| n == col)
            .map(|(_, t)| t.clone())
            .unwrap_or(Ty::Error);
        let ret = self.static_ty(&cty);
        let arms: Vec<String> = tables
            .iter()
            .map(|&t| {
                format!(
                    "{t} => {}.get(k.row as usize).map(|r| r.{}),",
                    upper(&self.sys.tables[t].name),
                    raw_ident(col)
                )
            })
            .collect();
        let names: Vec<&str> = tables.iter().map(|&t| self.sys.tables[t].name.as_str()).collect();
        format!(
            "/// Column `{col}` of a row of {}.\n#[inline(always)]\nfn key_col_{id}(k: rt::Key) -> Result<{ret}, rt::Error> {{ match k.table {{ {} _ => None }}.ok_or_else(|| rt::Error::Internal {{ message: format!(\"{{}} is not a row of {}\", k.name) }}) }}",
            names.join(" | "),
            arms.join(" "),
            names.join(" | ")
        )
    }

    pub(super) fn flatten_suffix(&self, tables: &[usize], column: &str) -> String {
        // A column that is itself optional, read through an optional key, is flattened to one level.
        let t0 = &self.sys.tables[tables[0]];
        match t0.columns.iter().find(|(n, _)| n == column) {
            Some((_, Ty::Opt(_))) => ".flatten()".into(),
            _ => String::new(),
        }
    }
}

/// A value read from a static table row, as the expression type (static text becomes `rt::Text`).
pub(super) fn from_static(code: &str, t: &Ty) -> String {
    match t {
        Ty::Text => format!("rt::Text::Static({code})"),
        Ty::Opt(i) if **i == Ty::Text => format!("({code}).map(rt::Text::Static)"),
        Ty::List(i) if **i == Ty::Text => format!("({code}).iter().map(|s| rt::Text::Static(*s)).collect::<Vec<_>>()"),
        _ => code.to_string(),
    }
}
