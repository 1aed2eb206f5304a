//! The registry and dynamic values: the system's `SYSTEM` entry (tables, resolvers, their
//! input and output types as `rt::Ty` statics), `to_value`, `rt::Flatten` impls, and reading
//! typed values out of `rt::Value`s (`read_input`, `read_from`).

use super::analysis::is_copy;
use super::{camel, lit, raw_ident, upper, Gen};
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    /// Rust code converting `code` (of type `t`) into an `rt::Value`.
    pub(super) fn to_value(&self, code: &str, t: &Ty) -> String {
        match t {
            Ty::Int => format!("rt::Value::Int({code})"),
            Ty::Dec => format!("rt::Value::Dec({code})"),
            Ty::Bool => format!("rt::Value::Bool({code})"),
            Ty::Text => format!("rt::Value::Text(({code}).to_string())"),
            Ty::Enum(_) => format!("rt::Value::Enum(rt::EnumType::index({code}) as u16, rt::EnumType::name({code}))"),
            Ty::Key(_) => format!("rt::Value::Key({code})"),
            Ty::Opt(i) if is_copy(i) => format!("match {code} {{ Some(x) => {}, None => rt::Value::None }}", self.to_value("x", i)),
            Ty::Opt(i) if is_copy(i) => format!("match {code} {{ Some(x) => {}, None => rt::Value::None }}", self.to_value("x", i)),
            Ty::Opt(i) => format!("match &{code} {{ Some(x) => {}, None => rt::Value::None }}", self.to_value("x", i)),
            Ty::List(i) => format!(
                "rt::Value::List(({code}).iter().map(|x| {}).collect())",
                self.to_value("*x", i).replace("(*x).to_value()", "x.to_value()")
            ),
            Ty::Outcome(_) | Ty::Row(_) | Ty::Rec(_) => format!("({code}).to_value()"),
            _ => "rt::Value::None".into(),
        }
    }

    /// Rust statements handing the flattened events of `code` (of type `t`) to `f` (an
    /// `rt::Flat`): the events `rt::Flatten` gives of its `to_value`, without building it.
    fn flatten(&self, code: &str, t: &Ty) -> String {
        match t {
            Ty::Int => format!("f.int({code});"),
            Ty::Opt(i) if is_copy(i) => format!(
                "match {code} {{ Some(x) => {{ {} }} None => f.leaf(&rt::Value::None), }}",
                self.flatten("x", i)
            ),
            Ty::Opt(i) => format!(
                "match &{code} {{ Some(x) => {{ {} }} None => f.leaf(&rt::Value::None), }}",
                self.flatten("(*x)", i)
            ),
            Ty::List(i) => match self.flatten_item("(*x)", i) {
                Some(item) => format!("for x in ({code}).iter() {{ {item} }}"),
                None => String::new(),
            },
            Ty::Outcome(_) | Ty::Row(_) | Ty::Rec(_) => format!("rt::Flatten::flatten(&{code}, f);"),
            _ => format!("f.leaf(&{});", self.to_value(code, t)),
        }
    }

    /// `flatten` of a list item: records give their labelled entry; anything else nothing (None).
    fn flatten_item(&self, code: &str, t: &Ty) -> Option<String> {
        match t {
            Ty::Outcome(_) | Ty::Row(_) | Ty::Rec(_) => Some(format!("rt::Flatten::flatten_item(&{code}, f);")),
            Ty::Opt(i) => {
                let inner = self.flatten_item("(*y)", i)?;
                Some(format!("if let Some(y) = &{code} {{ {inner} }}"))
            }
            _ => None,
        }
    }

    /// `impl rt::Flatten` for a record-like type `name` with `fields` (field name, Rust access
    /// on `self`, type) in declaration order.
    pub(super) fn flatten_impl(&self, name: &str, fields: &[(String, String, Ty)]) -> String {
        // As an item: labelled by its first field when that is an enum or a text (or an optional
        // one, when it is there).
        let rest = |from: usize| -> String {
            fields[from..]
                .iter()
                .map(|(f, code, t)| match t {
                    Ty::Int => format!("f.int_field({}, {code});", lit(f)),
                    Ty::Dec | Ty::Bool | Ty::Enum(_) | Ty::Key(_) | Ty::Text => {
                        format!("f.leaf_field({}, &{});", lit(f), self.to_value(code, t))
                    }
                    _ => format!("f.key({}); {} f.up();", lit(f), self.flatten(code, t)),
                })
                .collect()
        };
        let item = match fields.first() {
            Some((_, code, Ty::Enum(_))) => format!("f.label(rt::Label::Enum(rt::EnumType::name({code}))); {} f.up();", rest(1)),
            Some((_, code, Ty::Text)) => format!("f.label(rt::Label::Text(&*{code})); {} f.up();", rest(1)),
            Some((_, code, Ty::Opt(i))) if matches!(**i, Ty::Enum(_)) => format!(
                "if let Some(l) = {code} {{ f.label(rt::Label::Enum(rt::EnumType::name(l))); {} f.up(); }}",
                rest(1)
            ),
            Some((_, code, Ty::Opt(i))) if matches!(**i, Ty::Text) => {
                format!("if let Some(l) = &{code} {{ f.label(rt::Label::Text(&**l)); {} f.up(); }}", rest(1))
            }
            _ => String::new(),
        };
        format!(
            "impl rt::Flatten for {name} {{ fn flatten<F: rt::Flat + ?Sized>(&self, f: &mut F) {{ {} }} fn flatten_item<F: rt::Flat + ?Sized>(&self, f: &mut F) {{ {item} }} }}",
            rest(0)
        )
    }

    /// A registry type as a `static` (one per distinct type of the inputs and outputs, `statics`
    /// holding their values in order), returning its name.
    fn registry_ty(&self, t: &Ty, bounds: Option<(i64, i64)>, statics: &mut Vec<String>) -> String {
        let value = self.inline_registry_ty(t, bounds);
        let i = statics.iter().position(|s| *s == value).unwrap_or_else(|| {
            statics.push(value);
            statics.len() - 1
        });
        format!("TY_{i}")
    }

    /// A registry type written inline as a `&'static` constant expression (record fields).
    pub(super) fn inline_registry_ty(&self, t: &Ty, bounds: Option<(i64, i64)>) -> String {
        match t {
            Ty::Int => {
                let bound = |b: i64| match b {
                    i64::MIN => "i64::MIN".to_string(),
                    i64::MAX => "i64::MAX".to_string(),
                    b => b.to_string(),
                };
                let (lo, hi) = bounds.unwrap_or((i64::MIN, i64::MAX));
                format!("rt::Ty::Int {{ min: {}, max: {} }}", bound(lo), bound(hi))
            }
            Ty::Dec => "rt::Ty::Dec".into(),
            Ty::Bool => "rt::Ty::Bool".into(),
            Ty::Text => "rt::Ty::Text".into(),
            Ty::Enum(e) => format!("rt::Ty::Enum(&ENUM_{})", upper(&self.sys.enums[*e].name)),
            Ty::Key(ts) => format!(
                "rt::Ty::Key(&[{}])",
                ts.iter().map(|t| format!("&TABLES[{t}]")).collect::<Vec<_>>().join(", ")
            ),
            Ty::Opt(i) => format!("rt::Ty::Opt(&{})", self.inline_registry_ty(i, bounds)),
            Ty::List(i) => format!("rt::Ty::List(&{})", self.inline_registry_ty(i, bounds)),
            Ty::Rec(r) => format!("rt::Ty::Struct(&RECORD_{})", upper(&self.sys.records[*r].name)),
            Ty::Outcome(r) => format!("rt::Ty::Record({})", lit(&self.sys.resolvers[*r].name)),
            Ty::Row(t) => format!("rt::Ty::Record({})", lit(&self.sys.tables[*t].name)),
            _ => "rt::Ty::Text".into(),
        }
    }

    /// Read a typed value out of the `&rt::Value` expression `v` (input binding).
    pub(super) fn read_from(&self, v: &str, name: &str, t: &Ty) -> String {
        let n = lit(name);
        match t {
            Ty::Opt(i) => format!("match {v} {{ rt::Value::None => None, x => Some({}) }}", self.read_from("x", name, i)),
            Ty::List(i) => format!("match {v} {{ rt::Value::List(xs) => xs.iter().map(|x| -> Result<{}, rt::Error> {{ Ok({}) }}).collect::<Result<Vec<_>, _>>()?, x => return Err(rt::Error::BadValue {{ input: {n}.to_string(), text: x.to_string(), expected: \"a list\".to_string() }}) }}", self.rty(i), self.read_from("x", name, i)),
            Ty::Rec(r) => format!("{}::from_value({v}, {n})?", camel(&self.sys.records[*r].name)),
            _ => self.read_value(v, name, t),
        }
    }

    pub(super) fn read_input(&self, name: &str, t: &Ty) -> String {
        let n = lit(name);
        match t {
            Ty::Int => format!("rt::get_int(m, {n})?"),
            Ty::Dec => format!("rt::get_dec(m, {n})?"),
            Ty::Bool => format!("rt::get_bool(m, {n})?"),
            Ty::Enum(_) => format!("rt::get_enum(m, {n})?"),
            Ty::Key(_) => format!("rt::get_key(m, {n})?"),
            Ty::Text => format!("rt::Text::from(rt::get_text(m, {n})?)"),
            Ty::Opt(i) => format!(
                "match m.get({n}) {{ None | Some(rt::Value::None) => None, Some(v) => Some({}) }}",
                self.read_from("v", name, i)
            ),
            Ty::List(i) => format!(
                "rt::get_list(m, {n})?.iter().map(|v| -> Result<{}, rt::Error> {{ Ok({}) }}).collect::<Result<Vec<_>, _>>()?",
                self.rty(i),
                self.read_from("v", name, i)
            ),
            Ty::Rec(r) => format!(
                "{}::from_value(m.get({n}).ok_or_else(|| rt::Error::MissingInput {{ input: {n}.to_string(), ty: {}.to_string() }})?, {n})?",
                camel(&self.sys.records[*r].name),
                lit(&self.sys.records[*r].name)
            ),
            _ => "Default::default()".into(),
        }
    }

    fn read_value(&self, v: &str, name: &str, t: &Ty) -> String {
        let n = lit(name);
        match t {
            Ty::Int => format!("rt::value_as_int({v}, {n})?"),
            Ty::Dec => format!("rt::value_as_dec({v}, {n})?"),
            Ty::Bool => format!("rt::value_as_bool({v}, {n})?"),
            Ty::Enum(_) => format!("rt::value_as_enum({v}, {n})?"),
            Ty::Key(_) => format!("rt::value_as_key({v}, {n})?"),
            Ty::Text => format!("rt::Text::from(rt::value_as_text({v}, {n})?)"),
            _ => "Default::default()".into(),
        }
    }

    pub(super) fn registry(&self) -> String {
        let sys = self.sys;
        let mut statics: Vec<String> = Vec::new();
        let mut out = String::new();
        let tables: Vec<String> = sys
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let kind = t.kind.label();
                let cols: Vec<String> = match &t.result {
                    Some(r) => vec![format!("(\"value\", {})", lit(&self.ty_text(r)))],
                    None => t.columns.iter().map(|(n, ct)| format!("({}, {})", lit(n), lit(&self.ty_text(ct)))).collect(),
                };
                let keys: Vec<String> = if matches!(t.kind, TableKind::Keyed) { t.rows.iter().map(|r| lit(&r.label)).collect() } else { Vec::new() };
                let aliases: Vec<String> = t.aliases.iter().map(|(a, r)| format!("({}, {r})", lit(a))).collect();
                format!(
                    "rt::TableInfo {{ id: {i}, name: {}, title: {}, cite: {}, kind: {}, columns: &[{}], keys: &[{}], aliases: &[{}], rows: {} }}",
                    lit(&t.name),
                    lit(&t.title),
                    lit(&t.cite),
                    lit(kind),
                    cols.join(", "),
                    keys.join(", "),
                    aliases.join(", "),
                    t.rows.len()
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "pub static TABLES: [rt::TableInfo; {}] = [{}];",
            tables.len(),
            tables.join(",\n")
        );
        let mut resolvers = Vec::new();
        for r in &sys.resolvers {
            resolvers.push(self.resolver_info(r, &mut statics));
        }
        for (i, value) in statics.iter().enumerate() {
            let _ = writeln!(out, "static TY_{i}: rt::Ty = {value};");
        }
        let enums: Vec<String> = sys.enums.iter().map(|e| format!("&ENUM_{}", upper(&e.name))).collect();
        let options: Vec<String> = sys
            .options
            .iter()
            .map(|o| {
                format!(
                    "rt::OptionInfo {{ name: {}, title: {}, cite: {} }}",
                    lit(&o.name),
                    lit(&o.title),
                    lit(&o.cite)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "/// The registry entry of this system.\npub static SYSTEM: rt::SystemInfo = rt::SystemInfo {{ name: {}, title: {}, cite_prefix: {}, resolvers: &[{}], tables: &TABLES, enums: &[{}], options: &[{}] }};",
            lit(&sys.name),
            lit(&sys.title),
            lit(&sys.cite_prefix),
            resolvers.join(",\n"),
            enums.join(", "),
            options.join(", ")
        );
        out.push_str("#[inline]\nfn rt_key_eq(a: rt::Key, b: rt::Key) -> bool { a.table == b.table && a.row == b.row }\n");
        out
    }

    /// A resolver's registry entry (`rt::ResolverInfo`), the types of its inputs and outputs as
    /// statics (`registry_ty`).
    fn resolver_info(&self, r: &ResolverDef, statics: &mut Vec<String>) -> String {
        let ins: Vec<String> = r
            .inputs
            .iter()
            .map(|p| {
                let ty = self.registry_ty(&p.ty, p.bounds, statics);
                let default = match &p.default {
                    Some(d) => format!("Some({})", lit(&self.const_text(d))),
                    None => "None".into(),
                };
                format!(
                    "rt::InputInfo {{ name: {}, ty: &{ty}, default: {default}, doc: {}, optional_rule: {}, cite: {} }}",
                    lit(&p.name),
                    lit(&p.doc),
                    p.is_option,
                    lit(&p.cite)
                )
            })
            .collect();
        let outs: Vec<String> = r
            .outputs
            .iter()
            .map(|p| {
                let ty = self.registry_ty(&p.ty, None, statics);
                format!("rt::FieldInfo {{ name: {}, ty: &{ty}, doc: {} }}", lit(&p.name), lit(&p.doc))
            })
            .collect();
        format!(
            "rt::ResolverInfo {{ name: {n}, title: {}, cite: {}, doc: {}, inputs: &[{}], outputs: &[{}], choices: &[{}], exec: rt::compiled::<{}Inputs>({}) }}",
            lit(&r.title),
            lit(&r.cite),
            lit(&format!("{}:{}", r.source, r.line)),
            ins.join(", "),
            outs.join(", "),
            r.inputs.iter().filter(|p| p.choice).map(|p| lit(&p.name)).collect::<Vec<_>>().join(", "),
            camel(&r.name),
            if self.chainable(r) { format!("Some(chain_{})", r.name) } else { "None".to_string() },
            n = lit(&r.name)
        )
    }
}

/// The fields of a record-like type as `Gen::flatten_impl` takes them: name, access on `self`,
/// type.
pub(super) fn fields_of<'a>(fields: impl Iterator<Item = (&'a String, &'a Ty)>) -> Vec<(String, String, Ty)> {
    fields
        .map(|(f, t)| (f.clone(), format!("self.{}", raw_ident(f)), t.clone()))
        .collect()
}
