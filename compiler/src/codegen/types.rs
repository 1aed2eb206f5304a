//! Rust types and constants for the IR's types and values: `rty` (and `static_ty`, `field_rty`),
//! zero values (`default_of`), constants (`konst`), and the type and constant texts of the rules.

use super::{camel, lit, Gen};
use crate::ir::*;

impl<'a> Gen<'a> {
    pub(super) fn rty(&self, t: &Ty) -> String {
        match t {
            Ty::Int => "i64".into(),
            Ty::Dec => "rt::Dec".into(),
            Ty::Bool => "bool".into(),
            Ty::Text => "rt::Text".into(),
            Ty::Enum(e) => camel(&self.sys.enums[*e].name),
            Ty::Key(_) => "rt::Key".into(),
            Ty::Opt(i) => format!("Option<{}>", self.rty(i)),
            Ty::List(i) => format!("Vec<{}>", self.rty(i)),
            Ty::Outcome(r) => format!("{}Outcome", camel(&self.sys.resolvers[*r].name)),
            Ty::Row(t) => format!("&'static {}Row", camel(&self.sys.tables[*t].name)),
            Ty::Rec(r) => camel(&self.sys.records[*r].name),
            Ty::NoneLit | Ty::EmptyList | Ty::Error => "()".into(),
        }
    }

    /// Type of a table cell in a static: lists become slices.
    pub(super) fn static_ty(&self, t: &Ty) -> String {
        match t {
            Ty::List(i) => format!("&'static [{}]", self.static_ty(i)),
            Ty::Opt(i) => format!("Option<{}>", self.static_ty(i)),
            Ty::Text => "&'static str".into(),
            other => self.rty(other),
        }
    }

    pub(super) fn default_of(&self, t: &Ty) -> String {
        match t {
            Ty::Int => "0".into(),
            Ty::Dec => "rt::Dec::ZERO".into(),
            Ty::Bool => "false".into(),
            Ty::Text => "rt::Text::Static(\"\")".into(),
            Ty::Enum(e) => format!("{}::{}", camel(&self.sys.enums[*e].name), camel(&self.sys.enums[*e].variants[0].0)),
            Ty::Key(_) => "rt::Key { table: 0, row: 0, name: \"\" }".into(),
            Ty::Opt(_) => "None".into(),
            Ty::List(_) => "Vec::new()".into(),
            Ty::Outcome(r) => format!("{}Outcome::default()", camel(&self.sys.resolvers[*r].name)),
            Ty::Rec(r) => format!("{}::blank()", camel(&self.sys.records[*r].name)),
            _ => "Default::default()".into(),
        }
    }

    pub(super) fn konst(&self, c: &Const, t: &Ty, in_static: bool) -> String {
        match (c, t) {
            (Const::None, Ty::Opt(_)) => "None".into(),
            (c, Ty::Opt(i)) => format!("Some({})", self.konst(c, i, in_static)),
            (Const::Int(v), Ty::Dec) => format!("rt::Dec::raw({v}, 1)"),
            (Const::Int(v), _) => format!("{v}i64"),
            (Const::Dec(n, d), _) => format!("rt::Dec::raw({n}, {d})"),
            (Const::Bool(b), _) => b.to_string(),
            (Const::Text(s), _) if in_static => lit(s),
            (Const::Text(s), _) => format!("rt::Text::Static({})", lit(s)),
            (Const::Enum(e, v), _) => format!("{}::{}", camel(&self.sys.enums[*e].name), camel(&self.sys.enums[*e].variants[*v].0)),
            (Const::Key { table, row, name }, _) => format!("rt::Key {{ table: {table}, row: {row}, name: {} }}", lit(name)),
            (Const::List(items), Ty::List(i)) => {
                let xs: Vec<String> = items.iter().map(|x| self.konst(x, i, in_static)).collect();
                if in_static {
                    format!("&[{}]", xs.join(", "))
                } else {
                    format!("vec![{}]", xs.join(", "))
                }
            }
            (Const::List(_), _) => "Vec::new()".into(),
            (Const::None, Ty::List(_)) => {
                if in_static {
                    "&[]".into()
                } else {
                    "Vec::new()".into()
                }
            }
            (Const::None, t) => self.default_of(t),
        }
    }

    /// The Rust type of a record's field: a list is an `rt::List` (shared when the record is
    /// copied), any other type as `rty` gives it.
    pub(super) fn field_rty(&self, t: &Ty) -> String {
        match t {
            Ty::List(i) => format!("rt::List<{}>", self.rty(i)),
            other => self.rty(other),
        }
    }

    pub(super) fn ty_text(&self, t: &Ty) -> String {
        self.sys.ty_text(t)
    }

    pub(super) fn const_text(&self, c: &Const) -> String {
        self.sys.const_text(c)
    }
}
