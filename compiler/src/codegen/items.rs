//! The system's items: enums, records (with their range checks and `into_field`), the `Policy`
//! trait and the `keys` module.

use super::analysis::is_copy;
use super::registry::fields_of;
use super::{camel, lit, raw_ident, upper, Gen};
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    pub(super) fn enum_def(&self, e: &EnumDef) -> String {
        let name = camel(&e.name);
        let mut en = codegen::Enum::new(&name);
        en.vis("pub")
            .derive("Clone")
            .derive("Copy")
            .derive("Debug")
            .derive("PartialEq")
            .derive("Eq")
            .derive("PartialOrd")
            .derive("Ord")
            .derive("Hash")
            .derive("Default");
        en.doc(&format!("{} [{}]", if e.title.is_empty() { &e.name } else { &e.title }, e.cite));
        for (i, (v, doc)) in e.variants.iter().enumerate() {
            let var = en.new_variant(camel(v));
            if i == 0 {
                var.annotation("#[default]");
            }
            if !doc.is_empty() {
                var.annotation(format!("/// {doc}"));
            }
        }
        let mut s = codegen::Scope::new();
        s.push_enum(en);
        let variants: Vec<String> = e.variants.iter().map(|(v, _)| lit(v)).collect();
        let from: Vec<String> = e
            .variants
            .iter()
            .enumerate()
            .map(|(i, (v, _))| format!("{i} => Some({name}::{}),", camel(v)))
            .collect();
        let idx: Vec<String> = e
            .variants
            .iter()
            .enumerate()
            .map(|(i, (v, _))| format!("{name}::{} => {i},", camel(v)))
            .collect();
        format!(
            "{}\nimpl rt::EnumType for {name} {{\n const TYPE_NAME: &'static str = {};\n const VARIANTS: &'static [&'static str] = &[{}];\n fn from_index(i: usize) -> Option<Self> {{ match i {{ {} _ => None }} }}\n fn index(self) -> usize {{ match self {{ {} }} }}\n}}\npub static ENUM_{}: rt::EnumInfo = rt::EnumInfo {{ name: {}, variants: &[{}] }};\n// Serialized and displayed as the variant's name in the rules (`{}`, ...).\nrt::rules_enum!({name});",
            s.to_string(),
            lit(&e.name),
            variants.join(", "),
            from.join(" "),
            idx.join(" "),
            upper(&e.name),
            lit(&e.name),
            variants.join(", "),
            e.variants.first().map(|(v, _)| v.as_str()).unwrap_or("")
        )
    }

    pub(super) fn policy_trait(&self) -> String {
        let mut methods = String::new();
        let mut defaults = String::new();
        for (rid, r) in self.sys.resolvers.iter().enumerate().filter(|(_, r)| r.policy) {
            let c = camel(&r.name);
            let call = if self.uses_policy[rid] {
                format!("{}_with(dice, trace, self, inp)", r.name)
            } else {
                format!("{}(dice, trace, inp)", raw_ident(&r.name))
            };
            let _ = writeln!(
                methods,
                "/// {} [{}]. Defaults to the rules' own policy.\nfn {n}<D: rt::Dice + ?Sized, T: rt::Trace>(&mut self, dice: &mut D, trace: &mut T, inp: &{c}Inputs) -> Result<{c}Outcome, rt::Error> {{ {call} }}",
                r.title,
                r.cite,
                n = raw_ident(&r.name)
            );
            // How the generated code consults the policy: with its inputs on loan. By default
            // they are copied for the method above; the rules' own policy reads the loan.
            let args = format!("RtArgs{c}{}", if r.inputs.iter().any(|p| !is_copy(&p.ty)) { "<'_>" } else { "" });
            let sig = format!(
                "fn rt_{}<D: rt::Dice + ?Sized, T: rt::Trace>(&mut self, dice: &mut D, trace: &mut T, args: &{args}) -> Result<{c}Outcome, rt::Error>",
                r.name
            );
            let _ = writeln!(
                methods,
                "#[doc(hidden)]\n{sig} {{ self.{n}(dice, trace, &args.to_inputs()) }}",
                n = raw_ident(&r.name)
            );
            let _ = writeln!(
                defaults,
                "{sig} {{ rt_body_{}(dice, trace, {}args) }}",
                r.name,
                if self.uses_policy[rid] { "self, " } else { "" }
            );
        }
        format!(
            "/// Decisions the book leaves to the players. Implement this trait to replace any of them in an\n/// application; every method defaults to the policy written in the rules.\npub trait Policy {{\n{methods}}}\n/// The rules' own policies.\npub struct DefaultPolicy;\nimpl Policy for DefaultPolicy {{\n{defaults}}}"
        )
    }

    pub(super) fn record_def(&self, r: &RecordDef) -> String {
        let name = camel(&r.name);
        let mut st = codegen::Struct::new(&name);
        st.vis("pub")
            .derive("Clone")
            .derive("Debug")
            .derive("PartialEq")
            .derive("Eq")
            .derive("PartialOrd")
            .derive("Ord")
            .derive("Hash");
        st.doc(&format!("{} [{}]", if r.title.is_empty() { &r.name } else { &r.title }, r.cite));
        for (f, t, _) in &r.fields {
            st.new_field(raw_ident(f), self.field_rty(t)).vis("pub");
        }
        let mut s = codegen::Scope::new();
        s.push_struct(st);
        let blank: Vec<String> = r
            .fields
            .iter()
            .map(|(f, t, b)| {
                let v = match (t, b) {
                    (Ty::Int, Some((lo, hi))) => format!("{}i64", (*lo).max((*hi).min(0))),
                    (Ty::List(_), _) => "rt::List::new()".to_string(),
                    _ => self.default_of(t),
                };
                format!("{}: {v}", raw_ident(f))
            })
            .collect();
        let vals: Vec<String> = r
            .fields
            .iter()
            .map(|(f, t, _)| format!("({}, {})", lit(f), self.to_value(&format!("self.{}", raw_ident(f)), t)))
            .collect();
        let reads: Vec<String> = r.fields.iter().map(|(f, t, _)| {
            let get = format!("fields.iter().find(|(k, _)| *k == {}).map(|(_, v)| v).ok_or_else(|| rt::Error::MissingInput {{ input: format!(\"{{}}.{}\", name), ty: {}.to_string() }})?", lit(f), f, lit(&self.ty_text(t)));
            format!("{}: {}", raw_ident(f), into_field(self.read_from(&get, &format!("{}.{f}", r.name), t), t))
        }).collect();
        let infos: Vec<String> = r
            .fields
            .iter()
            .map(|(f, t, b)| {
                format!(
                    "rt::FieldInfo {{ name: {}, ty: &{}, doc: \"\" }}",
                    lit(f),
                    self.inline_registry_ty(t, *b)
                )
            })
            .collect();
        format!(
            "{}\nimpl {name} {{\n /// A record with every field at its zero value (or nearest bound).\n pub fn blank() -> Self {{ {name} {{ {} }} }}\n pub fn to_value(&self) -> rt::Value {{ rt::Value::Record(vec![{}]) }}\n pub fn from_value(v: &rt::Value, name: &str) -> Result<Self, rt::Error> {{ let rt::Value::Record(fields) = v else {{ return Err(rt::Error::BadValue {{ input: name.to_string(), text: v.to_string(), expected: {}.to_string() }}); }}; Ok({name} {{ {} }}) }}\n}}\npub static RECORD_{}: rt::RecordInfo = rt::RecordInfo {{ name: {}, fields: &[{}] }};\n{}",
            s.to_string(),
            blank.join(", "),
            vals.join(", "),
            lit(&format!("a {} record", r.name)),
            reads.join(", "),
            upper(&r.name),
            lit(&r.name),
            infos.join(", "),
            serialize_via_value(&name)
        ) + &self.flatten_impl(&name, &fields_of(r.fields.iter().map(|(f, t, _)| (f, t))))
    }

    /// Run-time checks that bounded int fields stay within their declared range.
    pub(super) fn field_checks<'b>(&self, r: &RecordDef, vals: impl Iterator<Item = (&'b str, String)>) -> String {
        let mut code = String::new();
        for (n, v) in vals {
            if let Some((_, Ty::Int, Some((lo, hi)))) = r.fields.iter().find(|(f, _, _)| f == n) {
                let _ = write!(code, "rt::in_range({}, {v}, {lo}, {hi})?; ", lit(&format!("{}.{n}", r.name)));
            }
        }
        code
    }

    /// `keys`: a constant per row of every keyed table (`keys::PISTOLS_GHAZI_10_7`, the table's name
    /// and the key in capitals, other characters `_`; a name taken twice gets its row number), and
    /// `keys::parse`, a row by its table's name and its key or alias text.
    pub(super) fn keys_module(&self) -> String {
        let mut seen = std::collections::BTreeSet::new();
        let mut consts = String::new();
        for (tid, t) in self.sys.tables.iter().enumerate() {
            if !matches!(t.kind, TableKind::Keyed) {
                continue;
            }
            for (row, r) in t.rows.iter().enumerate() {
                let mut name = const_ident(&format!("{}_{}", t.name, r.label));
                if !seen.insert(name.clone()) {
                    let mut n = 1usize;
                    loop {
                        let cand = format!("{name}_{row}{}", if n > 1 { format!("_{n}") } else { String::new() });
                        if seen.insert(cand.clone()) {
                            name = cand;
                            break;
                        }
                        n += 1;
                    }
                }
                let _ = writeln!(
                    consts,
                    "/// {} in `{}`.\npub const {name}: rt::Key = rt::Key {{ table: {tid}, row: {row}, name: {} }};",
                    lit(&r.label),
                    t.name,
                    lit(&r.label)
                );
            }
        }
        format!(
            "/// The rows of the keyed tables as typed keys, for the inputs of type `key of …`.\npub mod keys {{\nuse super::rt;\n{consts}/// The row of the keyed table `table` whose key or alias is `text` (case and separators ignored);\n/// an unknown table or key is `rt::Error::Unknown` with the nearest choices.\npub fn parse(table: &str, text: &str) -> Result<rt::Key, rt::Error> {{ super::SYSTEM.key(table, text) }}\n}}"
        )
    }
}

/// `impl Serialize` for a generated type with `to_value`: the same JSON as the CLI's.
pub(super) fn serialize_via_value(ty: &str) -> String {
    format!("rt::serialize_via_value!({ty});")
}

/// A constant's name from rules text: ASCII letters and digits in capitals, every run of other
/// characters one `_`; a leading digit gets a `_` before it.
fn const_ident(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `code`, a value of type `t`, as a record's field holds it: a list (a `Vec`) becomes an
/// `rt::List`; any other value is as it is.
pub(super) fn into_field(code: String, t: &Ty) -> String {
    match t {
        Ty::List(_) => format!("rt::List::from({code})"),
        _ => code,
    }
}
