//! IR → Rust: one module per system with typed enums, table statics, resolver functions generic over
//! dice and trace, and a `SYSTEM` registry for the CLI. Output is deterministic and formatted.
//!
//! Generated code uses only `rulebook_runtime`'s public API and never panics: table rows are read
//! with `.get()`, integer arithmetic is plain only where `check` proved it cannot overflow.

use crate::ast::{Agg, BinOp, CmpOp};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A rules name as a Rust identifier: Rust keywords become raw identifiers (`mod` → `r#mod`), so
/// rules text may use any name the language allows.
pub fn raw_ident(s: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "box", "break", "const", "continue", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for",
        "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
        "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
        "abstract", "become",
    ];
    if KEYWORDS.contains(&s) {
        format!("r#{s}")
    } else {
        s.to_string()
    }
}

pub fn camel(s: &str) -> String {
    s.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn upper(s: &str) -> String {
    s.to_uppercase()
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

/// The generated code before formatting (for debugging the generator).
pub fn generate_unformatted(p: &Program) -> String {
    let mut scope = codegen::Scope::new();
    for sys in &p.systems {
        match Gen::new(sys).module() {
            Ok(m) => {
                scope.raw(&m);
            }
            Err(e) => return e,
        }
    }
    scope.to_string()
}

/// Generate the whole `rules.rs` for a program. `header` is the do-not-edit stamp.
pub fn generate(p: &Program, header: &str) -> Result<String, String> {
    let mut scope = codegen::Scope::new();
    for sys in &p.systems {
        let g = Gen::new(sys);
        let module = g.module()?;
        scope.raw(&module);
    }
    let names: Vec<String> = p.systems.iter().map(|s| format!("&{}::SYSTEM", raw_ident(&s.name))).collect();
    scope.raw(format!(
        "/// Every compiled rule system.\npub static SYSTEMS: &[&rulebook_runtime::SystemInfo] = &[{}];",
        names.join(", ")
    ));
    let code = scope.to_string();
    let file = syn::parse_file(&code).map_err(|e| format!("generated code does not parse ({e}); this is a compiler bug"))?;
    Ok(format!("{header}{}", prettyplease::unparse(&file)))
}

struct Gen<'a> {
    sys: &'a System,
    /// Per resolver: does it consult a policy, directly or through the resolvers it calls?
    uses_policy: Vec<bool>,
    key_cols: std::cell::RefCell<BTreeMap<(Vec<usize>, String), usize>>,
    specs: std::cell::RefCell<Vec<String>>,
    /// The locals of the resolver being written that are bound to a reference (an element of a
    /// list iterated in place): an expression reads them as `(*v)`, a place like `inp.x`.
    ref_locals: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// The locals declared `mut` that hold a list or a call's outcome: the ones a last use can
    /// move out of (`std::mem::take`) instead of copying.
    takeable: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// The `let` locals bound to a view, a `Vec<&T>` of references to the items of a list that
    /// nothing changes while the view is read (`let near = filter(f in fighters: ...)`): read
    /// only as a list to go through, never copied whole.
    view_locals: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// The `var` locals that start as a list input the body still reads (`var fs = fighters`),
    /// each with its input: a `Cow` that reads the input where it lies until the first change
    /// copies it (`lazy_copy`).
    lazy_locals: std::cell::RefCell<BTreeMap<String, String>>,
    /// The `let` locals written where they are read instead (`inlined_view`): a filtered or
    /// sorted view read once, by the statement right after it, as the list of an aggregate.
    inlined: std::cell::RefCell<BTreeMap<String, &'a Expr>>,
    /// What may still run after the statement being written: the rest of each enclosing block,
    /// and each enclosing loop's body (run again, except for the locals it declares afresh).
    later: std::cell::RefCell<Vec<Later<'a>>>,
    /// Per call in the resolver being written (by its local): the fields of the callee's outcome
    /// read after it, `None` when the outcome is read whole. Exact odds tell the callee's
    /// outcomes apart by these alone (`rt::memo_call`).
    call_reads: std::cell::RefCell<BTreeMap<String, Option<std::collections::BTreeSet<String>>>>,
    /// Per resolver: do exact odds branch over its outcomes where it is called (`rt::memo_call`)?
    branches: Vec<bool>,
    /// Calls written so far in this system: numbers its call sites (`rt::memo_call`).
    call_sites: std::cell::Cell<usize>,
    /// The `rt_call_<n>` functions of the calls of the resolver being written.
    site_fns: std::cell::RefCell<Vec<String>>,
    /// Outputs of the resolver being written that a top-level `set out = input` gives a list
    /// input's value, and that nothing reads back (`deferred_sets`): output → input. The copy is
    /// made only if no later `set` replaces it (`rt_keep_<output>`).
    deferred: std::cell::RefCell<BTreeMap<String, String>>,
    /// The rolls of the resolver being written read only through one range table
    /// (`ir::classed_rolls`): roll's local → table. Exact odds branch over its rows
    /// (`Dice::roll_classed`).
    classed: std::cell::RefCell<BTreeMap<String, usize>>,
    /// Per resolver: has it a forward pass (`ir::forward_passes`)?
    forward: Vec<bool>,
    /// Writing a forward pass (`rt_fwd_<name>`): a `return` hands the leaf to the sink, and no
    /// local is moved out (the rest of the body runs once per value of each roll before it).
    fwd: std::cell::Cell<bool>,
    /// The forward pass's `var` locals in scope, copied afresh for each value of a roll.
    fwd_vars: std::cell::RefCell<Vec<String>>,
    /// The labels of the forward pass's loops over values around the statement being written.
    fwd_loops: std::cell::RefCell<Vec<String>>,
    /// Loops over values written so far in the resolver's forward pass: names their labels.
    fwd_labels: std::cell::Cell<usize>,
    /// Writing a check (`ir::is_check`): its blocks belong to its group, which declares the
    /// failed `require`s (`violations`) before it and stops after it.
    checking: std::cell::Cell<bool>,
    /// Writing the body of a resolver that is not a policy (`rt_body_<name>`), which holds its
    /// `RtArgs…` to change: a list input read no more may be taken (`rt::Arg::take`), to be the
    /// body's own list or given to a callee.
    owns_args: std::cell::Cell<bool>,
    /// Views are being written for a loop whose body runs between their items (`Stmt::For`): a
    /// filter then keeps its items in a list first, as no closure may borrow what the body uses.
    eager_views: std::cell::Cell<bool>,
    /// The typed exact odds of each resolver, for the system's `odds` module.
    odds_fns: std::cell::RefCell<Vec<String>>,
    /// The resolver being written: the step limit's sites name it (`rt::Site`).
    current: std::cell::Cell<usize>,
}

impl<'a> Gen<'a> {
    fn new(sys: &'a System) -> Self {
        Gen {
            sys,
            uses_policy: crate::ir::uses_policy(sys),
            key_cols: Default::default(),
            specs: Default::default(),
            ref_locals: Default::default(),
            takeable: Default::default(),
            view_locals: Default::default(),
            lazy_locals: Default::default(),
            inlined: Default::default(),
            later: Default::default(),
            call_reads: Default::default(),
            branches: crate::ir::branches_over_calls(sys),
            call_sites: Default::default(),
            site_fns: Default::default(),
            deferred: Default::default(),
            eager_views: Default::default(),
            classed: Default::default(),
            forward: crate::ir::forward_passes(sys),
            fwd: Default::default(),
            fwd_vars: Default::default(),
            fwd_loops: Default::default(),
            fwd_labels: Default::default(),
            owns_args: Default::default(),
            checking: Default::default(),
            odds_fns: Default::default(),
            current: Default::default(),
        }
    }

    fn module(&self) -> Result<String, String> {
        let sys = self.sys;
        let mut m = codegen::Scope::new();
        m.raw("use rulebook_runtime as rt;");
        for e in &sys.enums {
            m.raw(self.enum_def(e));
        }
        for r in &sys.records {
            m.raw(self.record_def(r));
        }
        for (tid, t) in sys.tables.iter().enumerate() {
            m.raw(self.table_def(tid, t));
        }
        for (rid, r) in sys.resolvers.iter().enumerate() {
            m.raw(&self.resolver_def(rid, r)?);
        }
        if sys.resolvers.iter().any(|r| r.policy) {
            m.raw(self.policy_trait());
        }
        // Accessors and dice specs are collected while generating bodies.
        for ((tables, col), id) in self.key_cols.borrow().iter() {
            m.raw(self.key_col_fn(*id, tables, col));
        }
        for s in self.specs.borrow().iter() {
            m.raw(s);
        }
        m.raw(format!(
            "/// Exact odds of each resolver of the system as its typed outcomes: the same distribution as\n/// `odds` gives, worked out by the resolver's forward pass where it has one.\npub mod odds {{\nuse super::*;\n{}\n}}",
            self.odds_fns.borrow().concat()
        ));
        m.raw(self.registry());
        m.raw(self.keys_module());
        let doc = format!("//! {} — compiled from `rules-src/{}/`.", sys.title, sys.name);
        Ok(format!(
            "#[allow(dead_code, unused_labels, unused_variables, unused_mut, unused_assignments, unreachable_patterns, unused_parens, clippy::all, reason = \"generated code: labels, bindings and match arms follow the rules text one to one\")]\npub mod {} {{\n{doc}\n{}\n}}",
            raw_ident(&sys.name),
            m.to_string()
        ))
    }

    // ------------------------------------------------------------ types
    fn rty(&self, t: &Ty) -> String {
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
    fn static_ty(&self, t: &Ty) -> String {
        match t {
            Ty::List(i) => format!("&'static [{}]", self.static_ty(i)),
            Ty::Opt(i) => format!("Option<{}>", self.static_ty(i)),
            Ty::Text => "&'static str".into(),
            other => self.rty(other),
        }
    }

    fn default_of(&self, t: &Ty) -> String {
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

    fn konst(&self, c: &Const, t: &Ty, in_static: bool) -> String {
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

    /// A `String` expression for a message with `{value}` parts (`require`, `note`).
    fn message(&self, parts: &[MsgPart]) -> String {
        let mut fmt = String::new();
        let mut args = Vec::new();
        for p in parts {
            match p {
                MsgPart::Text(t) => fmt.push_str(&t.replace('{', "{{").replace('}', "}}")),
                MsgPart::Value(e) => {
                    fmt.push_str("{}");
                    args.push(self.to_value(&self.expr(e), &e.ty));
                }
            }
        }
        if args.is_empty() {
            format!("{}.to_string()", lit(&fmt))
        } else {
            format!("format!({}, {})", lit(&fmt), args.join(", "))
        }
    }

    /// Rust code converting `code` (of type `t`) into an `rt::Value`.
    fn to_value(&self, code: &str, t: &Ty) -> String {
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
    fn flatten_impl(&self, name: &str, fields: &[(String, String, Ty)]) -> String {
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

    // ------------------------------------------------------------ enums
    fn enum_def(&self, e: &EnumDef) -> String {
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
            "{}\nimpl rt::EnumType for {name} {{\n const TYPE_NAME: &'static str = {};\n const VARIANTS: &'static [&'static str] = &[{}];\n fn from_index(i: usize) -> Option<Self> {{ match i {{ {} _ => None }} }}\n fn index(self) -> usize {{ match self {{ {} }} }}\n}}\npub static ENUM_{}: rt::EnumInfo = rt::EnumInfo {{ name: {}, variants: &[{}] }};\n/// Serialized as the variant's name in the rules (`{}`, ...), as `rulebook roll --json` prints it.\nimpl rt::serde::Serialize for {name} {{ fn serialize<RtSerializer: rt::serde::Serializer>(&self, serializer: RtSerializer) -> Result<RtSerializer::Ok, RtSerializer::Error> {{ serializer.serialize_str(rt::EnumType::name(*self)) }} }}",
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

    fn policy_trait(&self) -> String {
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

    // ------------------------------------------------------------ records
    fn record_def(&self, r: &RecordDef) -> String {
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
    fn field_checks<'b>(&self, r: &RecordDef, vals: impl Iterator<Item = (&'b str, String)>) -> String {
        let mut code = String::new();
        for (n, v) in vals {
            if let Some((_, Ty::Int, Some((lo, hi)))) = r.fields.iter().find(|(f, _, _)| f == n) {
                let _ = write!(code, "rt::in_range({}, {v}, {lo}, {hi})?; ", lit(&format!("{}.{n}", r.name)));
            }
        }
        code
    }

    /// A registry type written inline as a `&'static` constant expression (record fields).
    fn inline_registry_ty(&self, t: &Ty, bounds: Option<(i64, i64)>) -> String {
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
    fn read_from(&self, v: &str, name: &str, t: &Ty) -> String {
        let n = lit(name);
        match t {
            Ty::Opt(i) => format!("match {v} {{ rt::Value::None => None, x => Some({}) }}", self.read_from("x", name, i)),
            Ty::List(i) => format!("match {v} {{ rt::Value::List(xs) => xs.iter().map(|x| -> Result<{}, rt::Error> {{ Ok({}) }}).collect::<Result<Vec<_>, _>>()?, x => return Err(rt::Error::BadValue {{ input: {n}.to_string(), text: x.to_string(), expected: \"a list\".to_string() }}) }}", self.rty(i), self.read_from("x", name, i)),
            Ty::Rec(r) => format!("{}::from_value({v}, {n})?", camel(&self.sys.records[*r].name)),
            _ => self.read_value(v, name, t),
        }
    }

    // ------------------------------------------------------------ tables
    fn table_def(&self, tid: usize, t: &TableDef) -> String {
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
            return out;
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
        let select = match t.kind {
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
        };
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

    fn key_col_id(&self, tables: &[usize], col: &str) -> usize {
        let mut m = self.key_cols.borrow_mut();
        let n = m.len();
        *m.entry((tables.to_vec(), col.to_string())).or_insert(n)
    }

    fn key_col_fn(&self, id: usize, tables: &[usize], col: &str) -> String {
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

    // ------------------------------------------------------------ resolvers
    fn resolver_def(&self, rid: usize, r: &'a ResolverDef) -> Result<String, String> {
        self.current.set(rid);
        // Local names are unique within a resolver, not across resolvers.
        self.ref_locals.borrow_mut().clear();
        self.view_locals.borrow_mut().clear();
        self.lazy_locals.borrow_mut().clear();
        self.inlined.borrow_mut().clear();
        self.takeable.borrow_mut().clear();
        *self.deferred.borrow_mut() = deferred_sets(&r.body);
        *self.classed.borrow_mut() = crate::ir::classed_rolls(self.sys, &r.body);
        *self.call_reads.borrow_mut() = crate::ir::call_reads(&r.body);
        let cname = camel(&r.name);
        let mut out = String::new();
        // Inputs struct.
        let mut ins = codegen::Struct::new(&format!("{cname}Inputs"));
        ins.vis("pub").derive("Clone").derive("Debug").derive("PartialEq");
        // A step's states are compared and ordered in its typed chain, a callee's inputs in the
        // table of its outcomes that exact odds keep (`rt::memo_call`).
        if self.chainable(r) || self.memoizable(rid) {
            ins.derive("Eq").derive("PartialOrd").derive("Ord");
        }
        // A chain's states are hashed (`rt::chain_typed`).
        if self.chainable(r) {
            ins.derive("Hash");
        }
        ins.doc(&format!(
            "Inputs of `{}` ({}): `new` takes the inputs without a default, `with_…` sets any other.",
            r.name, r.title
        ));
        for p in &r.inputs {
            let f = ins.new_field(raw_ident(&p.name), self.rty(&p.ty)).vis("pub");
            let doc = if p.doc.is_empty() { p.name.clone() } else { p.doc.clone() };
            f.doc(&doc);
        }
        let mut outs = codegen::Struct::new(&format!("{cname}Outcome"));
        outs.vis("pub")
            .derive("Clone")
            .derive("Debug")
            .derive("PartialEq")
            .derive("Eq")
            .derive("PartialOrd")
            .derive("Ord")
            .derive("Hash")
            .doc(&format!("Outcome of `{}` ({}).", r.name, r.title));
        for p in &r.outputs {
            let f = outs.new_field(raw_ident(&p.name), self.rty(&p.ty)).vis("pub");
            let doc = if p.doc.is_empty() { p.name.clone() } else { p.doc.clone() };
            f.doc(&doc);
        }
        let mut s = codegen::Scope::new();
        s.push_struct(ins);
        s.push_struct(outs);
        out.push_str(&s.to_string());
        // from_values / to_value.
        // An input left out of the map takes its declared default, as `bind_inputs` gives it.
        let reads: Vec<String> = r
            .inputs
            .iter()
            .map(|p| match &p.default {
                Some(d) => format!(
                    "{}: match m.get({}) {{ None => {}, Some(_) => {} }},",
                    raw_ident(&p.name),
                    lit(&p.name),
                    self.konst(d, &p.ty, false),
                    self.read_input(&p.name, &p.ty)
                ),
                None => format!("{}: {},", raw_ident(&p.name), self.read_input(&p.name, &p.ty)),
            })
            .collect();
        out.push_str(&self.inputs_api(rid, r, &reads));
        let fields: Vec<String> = r
            .outputs
            .iter()
            .map(|p| {
                format!(
                    "({}, {})",
                    lit(&p.name),
                    self.to_value(&format!("self.{}", raw_ident(&p.name)), &p.ty)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "impl {cname}Outcome {{ pub fn to_value(&self) -> rt::Value {{ rt::Value::Record(vec![{}]) }} }}\n{}\n{}",
            fields.join(", "),
            serialize_via_value(&format!("{cname}Outcome")),
            self.flatten_impl(&format!("{cname}Outcome"), &fields_of(r.outputs.iter().map(|p| (&p.name, &p.ty))))
        );
        // The resolver: a call is a step (`rt::steps`), of a resolver that loops or calls.
        let mut body = self.call_step(r);
        let _ = writeln!(body, "trace.enter({}, {}, {});", lit(&r.name), lit(&r.title), lit(&r.cite));
        let mut checks = String::new();
        for p in &r.inputs {
            if let (Some((lo, hi)), Ty::Int) = (p.bounds, &p.ty) {
                let _ = writeln!(checks, "rt::in_range({}, inp.{}, {lo}, {hi})?;", lit(&p.name), raw_ident(&p.name));
            }
            if let (Some((lo, hi)), Ty::Dec) = (p.bounds, &p.ty) {
                let _ = writeln!(
                    checks,
                    "rt::dec_in_range({}, inp.{}, {lo}, {hi})?;",
                    lit(&p.name),
                    raw_ident(&p.name)
                );
            }
        }
        let inits: Vec<String> = r
            .outputs
            .iter()
            .map(|p| {
                format!(
                    "{}: {},",
                    raw_ident(&p.name),
                    match &p.default {
                        Some(d) => self.konst(d, &p.ty, false),
                        None => self.default_of(&p.ty),
                    }
                )
            })
            .collect();
        let _ = writeln!(checks, "let mut out = {cname}Outcome {{ {} }};", inits.join(" "));
        for f in self.deferred.borrow().keys() {
            let _ = writeln!(checks, "let mut rt_keep_{f} = false;");
        }
        // The inputs checked, the outcome and what the body keeps made: both passes start so.
        body.push_str(&checks);
        body.push_str("'body: {\n");
        self.owns_args.set(!r.policy);
        self.block(&r.body, &mut body);
        self.owns_args.set(false);
        body.push_str("}\n");
        self.outcome_end(&mut body, !r.policy);
        let _ = writeln!(body, "trace.exit({});", lit(&r.name));
        body.push_str("Ok(out)");
        let uses_policy = self.uses_policy[rid];
        let fn_name = if uses_policy {
            format!("{}_with", r.name)
        } else {
            raw_ident(&r.name)
        };
        // The body takes its inputs as `RtArgs…`: the `Copy` ones by value, the others by
        // reference, so that a resolver calling another lends it a list instead of copying it.
        let lifetime = r.inputs.iter().any(|p| !is_copy(&p.ty));
        let args_ty = format!("RtArgs{cname}{}", if lifetime { "<'a>" } else { "" });
        let arg_fields: Vec<String> = r
            .inputs
            .iter()
            .map(|p| {
                if is_copy(&p.ty) {
                    format!("{}: {},", raw_ident(&p.name), self.rty(&p.ty))
                } else if let Ty::List(i) = &p.ty {
                    // Read as a slice: the caller lends a list it holds (`Vec`) or a record's
                    // (`rt::List`), or gives one it reads no more (`rt::Arg`).
                    format!("{}: rt::Arg<'a, {}>,", raw_ident(&p.name), self.rty(i))
                } else {
                    format!("{}: &'a {},", raw_ident(&p.name), self.rty(&p.ty))
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "/// The inputs of `{}` as its body reads them (the generated code's own; applications use `{cname}Inputs`).\n#[doc(hidden)]\npub struct {args_ty} {{ {} }}",
            r.name,
            arg_fields
                .iter()
                .map(|f| format!("pub {f}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        if r.policy {
            // An application's policy takes the owned inputs.
            let copy = per_input(r, |n| format!("{n}: self.{n}"), |n| format!("{n}: self.{n}.to_owned()"));
            let _ = writeln!(
                out,
                "impl RtArgs{cname}{} {{ fn to_inputs(&self) -> {cname}Inputs {{ {cname}Inputs {{ {} }} }} }}",
                if lifetime { "<'_>" } else { "" },
                copy.join(", ")
            );
        }
        let lend = lend_inputs(r, "inp");
        let body_fn = format!("rt_body_{}", r.name);
        let mut f = codegen::Function::new(&fn_name);
        f.vis("pub")
            .doc(format!("{} [{}]\n\nSource: {}:{}", r.title, r.cite, r.source, r.line))
            .generic("D: rt::Dice + ?Sized")
            .generic("T: rt::Trace");
        if uses_policy {
            f.generic("P: Policy + ?Sized");
        }
        f.arg("dice", "&mut D").arg("trace", "&mut T");
        if uses_policy {
            f.arg("policy", "&mut P");
        }
        f.arg("inp", format!("&{cname}Inputs"))
            .ret(format!("Result<{cname}Outcome, rt::Error>"))
            // A resolution starts here: no steps taken yet (`rt::steps`).
            .line("rt::steps::begin();")
            .line(format!(
                "{body_fn}(dice, trace, {}&{}RtArgs{cname} {{ {} }})",
                if uses_policy { "policy, " } else { "" },
                if r.policy { "" } else { "mut " },
                lend.join(", ")
            ));
        let mut b = codegen::Function::new(&body_fn);
        b.generic("D: rt::Dice + ?Sized").generic("T: rt::Trace");
        if uses_policy {
            b.generic("P: Policy + ?Sized");
        }
        b.arg("dice", "&mut D").arg("trace", "&mut T");
        if uses_policy {
            b.arg("policy", "&mut P");
        }
        // A policy's body reads its loan (an application's policy gets owned inputs); any other
        // holds its arguments to change, to take a list input it reads no more.
        b.arg(
            "inp",
            format!(
                "&{}RtArgs{cname}{}",
                if r.policy { "" } else { "mut " },
                if lifetime { "<'_>" } else { "" }
            ),
        )
        .ret(format!("Result<{cname}Outcome, rt::Error>"))
        .line(body);
        if uses_policy {
            // The plain entry point decides as the rules' own policies do.
            let _ = writeln!(
                out,
                "/// {} [{}], deciding with the rules' default policies (see [`Policy`]).\npub fn {rn}<D: rt::Dice + ?Sized, T: rt::Trace>(dice: &mut D, trace: &mut T, inp: &{cname}Inputs) -> Result<{cname}Outcome, rt::Error> {{ {n}_with(dice, trace, &mut DefaultPolicy, inp) }}",
                r.title,
                r.cite,
                n = r.name,
                rn = raw_ident(&r.name)
            );
        }
        let mut s = codegen::Scope::new();
        s.push_fn(f);
        s.push_fn(b);
        out.push_str(&s.to_string());
        out.push_str(&self.forward_def(rid, r, &checks, &lend));
        for f in self.site_fns.borrow_mut().drain(..) {
            out.push_str(&f);
        }
        let _ = writeln!(
            out,
            "\nrt::compiled_resolver!({cname}Inputs, {cname}Outcome, {rn}, odds::{rn});",
            rn = raw_ident(&r.name)
        );
        if self.chainable(r) {
            out.push_str(&self.chain_fn(r));
        }
        let _ = rid;
        Ok(out)
    }

    /// The resolver's forward pass (`rt_fwd_<name>`, when it has one: `ir::forward_passes`) and
    /// its typed exact odds in the system's `odds` module, by the forward pass or else by replay.
    /// `checks` starts the body (inputs checked, outcome made), `lend` makes its `RtArgs…` of the
    /// typed inputs `inp`.
    fn forward_def(&self, rid: usize, r: &'a ResolverDef, checks: &str, lend: &[String]) -> String {
        let cname = camel(&r.name);
        let rn = raw_ident(&r.name);
        let doc = format!(
            "/// Exact odds of `{}` ({}) [{}]: every distinct outcome with its exact probability, as `rt::enumerate` of\n/// the resolver gives them.\n",
            r.name, r.title, r.cite
        );
        if !self.forward.get(rid).copied().unwrap_or(false) {
            self.odds_fns.borrow_mut().push(format!(
                "{doc}pub fn {rn}(inp: &{cname}Inputs) -> Result<rt::Distribution<{cname}Outcome>, rt::Error> {{ rt::enumerate(|dice_| super::{rn}(dice_, &mut rt::NoTrace, inp)) }}\n"
            ));
            return String::new();
        }
        // The body again, as a forward pass: locals named afresh, nothing moved out.
        self.ref_locals.borrow_mut().clear();
        self.view_locals.borrow_mut().clear();
        self.lazy_locals.borrow_mut().clear();
        self.inlined.borrow_mut().clear();
        self.takeable.borrow_mut().clear();
        self.fwd_vars.borrow_mut().clear();
        self.fwd_loops.borrow_mut().clear();
        self.fwd_labels.set(0);
        self.fwd.set(true);
        let mut body = self.call_step(r);
        body.push_str(checks);
        self.fwd_block(&r.body, &[], &mut body);
        body.push_str("Ok(())");
        self.fwd.set(false);
        let lifetime = if r.inputs.iter().any(|p| !is_copy(&p.ty)) { "<'_>" } else { "" };
        self.odds_fns.borrow_mut().push(format!(
            "{doc}pub fn {rn}(inp: &{cname}Inputs) -> Result<rt::Distribution<{cname}Outcome>, rt::Error> {{ rt::enumerate_forward(|e_, s_| super::rt_fwd_{n}(e_, &mut rt::NoTrace, &RtArgs{cname} {{ {} }}, rt::Fw::one(), s_), |dice_| super::{rn}(dice_, &mut rt::NoTrace, inp)) }}\n",
            lend.join(", "),
            n = r.name
        ));
        format!(
            "/// The forward pass of `{n}` for exact odds (`rt::enumerate_forward`): each leaf's outcome and weight go to `rt_sink`.\n#[doc(hidden)]\npub fn rt_fwd_{n}<T: rt::Trace>(rt_e: &mut rt::Enumerator, trace: &mut T, inp: &RtArgs{cname}{lifetime}, rt_w: rt::Fw, rt_sink: &mut rt::Sink<'_, {cname}Outcome>) -> Result<(), rt::Error> {{\n{body}\n}}\n",
            n = r.name
        )
    }

    /// A resolver written as the step of a procedure: some outputs carry the next round's inputs
    /// (same name, same type) and a yes/no output can end the rounds. Its typed chain
    /// (`chain_…`) walks states as its own inputs struct; any other resolver's `odds --until`
    /// walks dynamic values, with the same answer.
    /// Can exact odds branch over this resolver's outcomes where another calls it
    /// (`ir::branches_over_calls`)?
    fn memoizable(&self, rid: usize) -> bool {
        self.branches.get(rid).copied().unwrap_or(false)
    }

    fn chainable(&self, r: &ResolverDef) -> bool {
        let mut carried = false;
        for p in &r.inputs {
            if let Some(o) = r.outputs.iter().find(|o| o.name == p.name) {
                if self.rty(&o.ty) != self.rty(&p.ty) {
                    return false;
                }
                carried = true;
            }
        }
        carried && r.outputs.iter().any(|o| o.ty == Ty::Bool)
    }

    /// `chain_<name>`: the typed chain of a step (see `chainable`), `None` for an `until` that is
    /// not one of its yes/no outputs (the dynamic chain then says why).
    fn chain_fn(&self, r: &ResolverDef) -> String {
        let cname = camel(&r.name);
        let arms: Vec<String> = r
            .outputs
            .iter()
            .filter(|o| o.ty == Ty::Bool)
            .map(|o| format!("{} => |o| o.{},", lit(&o.name), raw_ident(&o.name)))
            .collect();
        // An input named like an output is carried from round to round; the others are the
        // start's in every state, so states are told apart by the carried ones alone.
        let carried = |name: &str| r.outputs.iter().any(|o| o.name == name);
        let fields: Vec<String> = r
            .inputs
            .iter()
            .map(|p| {
                let n = raw_ident(&p.name);
                let from = if carried(&p.name) { "o" } else { "s" };
                if is_copy(&p.ty) {
                    format!("{n}: {from}.{n}")
                } else {
                    format!("{n}: {from}.{n}.clone()")
                }
            })
            .collect();
        let varying: Vec<String> = r.inputs.iter().filter(|p| carried(&p.name)).map(|p| raw_ident(&p.name)).collect();
        let hash_of = |from: &str| -> String {
            let parts: String = varying
                .iter()
                .map(|n| format!("std::hash::Hash::hash(&{from}.{n}, &mut h_); "))
                .collect();
            format!("{{ let mut h_ = rt::state_hasher(); {parts}std::hash::Hasher::finish(&h_) }}")
        };
        let same_as = |from: &str| -> String {
            let parts: Vec<String> = varying.iter().map(|n| format!("{from}.{n} == t.{n}")).collect();
            if parts.is_empty() {
                "true".to_string()
            } else {
                parts.join(" && ")
            }
        };
        format!(
            "fn chain_{n}(inputs_: &rt::Inputs, until_: &str, max_rounds_: u32) -> Option<Result<rt::Chain, rt::Error>> {{ \
             let ended_: fn(&{cname}Outcome) -> bool = match until_ {{ {} _ => return None }}; \
             let step_ = rt::ChainStep::<{cname}Inputs, {cname}Outcome> {{ ended: ended_, \
             next: |s, o| {cname}Inputs {{ {} }}, \
             hash: |s| {}, next_hash: |_s, o| {}, \
             same: |s, t| {}, next_is: |_s, o, t| {} }}; \
             Some({cname}Inputs::from_values(inputs_).and_then(|start_| rt::chain_typed(start_, max_rounds_, &mut |s_| odds::{rn}(s_), &step_, |o| o.to_value()))) }}\n",
            arms.join(" "),
            fields.join(", "),
            hash_of("s"),
            hash_of("o"),
            same_as("s"),
            same_as("o"),
            n = r.name,
            rn = raw_ident(&r.name)
        )
    }

    /// The application's side of a resolver's inputs: `from_values` (a bound map; absent inputs
    /// take their defaults), `new` (the inputs without a default are its arguments, the others
    /// take their defaults), a `with_…` setter per input, `parse` (text as `--set` gives it, with
    /// "did you mean") and `to_values`; `Default` when every input has a default.
    fn inputs_api(&self, rid: usize, r: &ResolverDef, reads: &[String]) -> String {
        let cname = camel(&r.name);
        let ty = format!("{cname}Inputs");
        let mut o = String::new();
        let required: Vec<&Param> = r.inputs.iter().filter(|p| p.default.is_none()).collect();
        let args: Vec<String> = required
            .iter()
            .map(|p| format!("{}: {}", raw_ident(&p.name), self.rty(&p.ty)))
            .collect();
        let inits: Vec<String> = r
            .inputs
            .iter()
            .map(|p| match &p.default {
                Some(d) => format!("{}: {}", raw_ident(&p.name), self.konst(d, &p.ty, false)),
                None => raw_ident(&p.name),
            })
            .collect();
        let new_doc = if required.is_empty() {
            "Every input at its default.".to_string()
        } else {
            let names: Vec<String> = required.iter().map(|p| format!("`{}` ({})", p.name, self.ty_text(&p.ty))).collect();
            format!(
                "The inputs without a default, {}; every other input at its default (change one with its `with_…` setter).",
                names.join(", ")
            )
        };
        let _ = writeln!(
            o,
            "\nimpl {ty} {{\n/// Typed inputs from dynamic values (`rt::bind_inputs` gives them); an input the map leaves out\n/// takes its default, and one without a default is `rt::Error::MissingInput`.\npub fn from_values(m: &rt::Inputs) -> Result<Self, rt::Error> {{ Ok({ty} {{ {} }}) }}\n/// {new_doc}\npub fn new({}) -> Self {{ {ty} {{ {} }} }}",
            reads.join(" "),
            args.join(", "),
            inits.join(", ")
        );
        for p in &r.inputs {
            let what = if p.doc.is_empty() { String::new() } else { format!(": {}", p.doc) };
            let default = match &p.default {
                Some(d) => format!(" (default `{}`)", self.const_text(d)),
                None => String::new(),
            };
            let cite = if p.cite.is_empty() {
                String::new()
            } else {
                format!(" [{}]", p.cite)
            };
            let _ = writeln!(
                o,
                "/// Sets `{n}`{what}{default}{cite}.\npub fn with_{n}(mut self, value: {t}) -> Self {{ self.{f} = value; self }}",
                n = p.name,
                t = self.rty(&p.ty),
                f = raw_ident(&p.name)
            );
        }
        let vals: Vec<String> = r
            .inputs
            .iter()
            .map(|p| {
                format!(
                    "m.insert({}.to_string(), {});",
                    lit(&p.name),
                    self.to_value(&format!("self.{}", raw_ident(&p.name)), &p.ty)
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "/// Inputs from text, as `rulebook roll --set NAME=TEXT` takes them: keys by name or alias\n/// (case and separators ignored), enums by variant, lists comma-separated; every input not given\n/// takes its default. Unknown names and keys are `rt::Error::Unknown` with the nearest choices.\npub fn parse(sets: &[(&str, &str)]) -> Result<Self, rt::Error> {{ rt::compiled::parse(&SYSTEM, {rid}, sets) }}\n/// Inputs from YAML text, a mapping of input names to values (as `rulebook roll --input FILE.yaml`\n/// reads them); every input not given takes its default.\npub fn from_yaml(yaml: &str) -> Result<Self, rt::Error> {{ rt::compiled::from_yaml(&SYSTEM, {rid}, yaml) }}\n/// The inputs as dynamic values (what `from_values` reads back).\npub fn to_values(&self) -> rt::Inputs {{ let mut m = rt::Inputs::new(); {} m }}\n}}",
            vals.join(" "),
        );
        if required.is_empty() {
            let _ = writeln!(o, "impl Default for {ty} {{ fn default() -> Self {{ Self::new() }} }}");
        }
        o
    }

    /// `keys`: a constant per row of every keyed table (`keys::PISTOLS_GHAZI_10_7`, the table's name
    /// and the key in capitals, other characters `_`; a name taken twice gets its row number), and
    /// `keys::parse`, a row by its table's name and its key or alias text.
    fn keys_module(&self) -> String {
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

    fn read_input(&self, name: &str, t: &Ty) -> String {
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

    fn stmt(&self, s: &'a Stmt, o: &mut String) {
        match s {
            Stmt::Let {
                var,
                name,
                ty,
                value,
                cite,
                mods,
                clamp,
            } => {
                if mods.is_empty() && clamp.is_none() && cite.is_none() && self.inlined_view(var, value) {
                    self.inlined.borrow_mut().insert(var.clone(), value);
                    return;
                }
                if mods.is_empty() && clamp.is_none() && self.viewable(var, value) {
                    if let Some(items) = self.ref_items(value) {
                        let elem = match ty {
                            Ty::List(t) => self.rty(t),
                            _ => String::from("_"),
                        };
                        let _ = writeln!(o, "let {var}: Vec<&{elem}> = ({items}).collect();");
                        self.view_locals.borrow_mut().insert(var.clone());
                        if cite.is_some() {
                            self.trace_value(o, "bind", lit(name), lit(cite.as_deref().unwrap_or("")), self.to_value(var, ty));
                        }
                        return;
                    }
                }
                let v = self.expr(value);
                if mods.is_empty() && clamp.is_none() && !is_copy(ty) && is_place(value) && self.lendable_root(value) {
                    // A name for a part of the inputs (or of a list read in place), which nothing
                    // can change while the resolver runs: a reference, not a copy.
                    // A list as a slice: the place may be a `Vec` or a record's `rt::List`.
                    let view = match ty {
                        Ty::List(i) => format!("[{}]", self.rty(i)),
                        t => self.rty(t),
                    };
                    let _ = writeln!(o, "let {var}: &{view} = &{v};");
                    self.ref_locals.borrow_mut().insert(var.clone());
                } else if mods.is_empty() && clamp.is_none() {
                    let list = matches!(ty, Ty::List(_));
                    let _ = writeln!(
                        o,
                        "let {}{var}: {} = {};",
                        if list { "mut " } else { "" },
                        self.rty(ty),
                        self.value(value)
                    );
                    if list {
                        self.takeable.borrow_mut().insert(var.clone());
                    }
                } else {
                    let _ = writeln!(o, "let mut {var}: {} = {v};", self.rty(ty));
                    // The base value is shown only when some modifier actually changes it.
                    let base = format!(
                        "if !{var}_shown {{ {var}_shown = true; trace.event(rt::Event::Let {{ name: {}.to_string(), value: {}, cite: {}.to_string() }}); }}",
                        lit(&format!("{name} (base)")),
                        self.to_value(&format!("{var}_base"), ty),
                        lit(cite.as_deref().unwrap_or(""))
                    );
                    if !mods.is_empty() {
                        let _ = writeln!(o, "let {var}_base = {var}; let mut {var}_shown = false;");
                    }
                    for m in mods {
                        self.modifier(m, var, ty, &base, o);
                    }
                    if let Some((lo, hi)) = clamp {
                        let wrap = |b: i64| {
                            if *ty == Ty::Dec {
                                format!("rt::Dec::from_int({b})")
                            } else {
                                format!("{b}i64")
                            }
                        };
                        if let Some(l) = lo {
                            let _ = writeln!(o, "if {var} < {} {{ {var} = {}; }}", wrap(*l), wrap(*l));
                        }
                        if let Some(h) = hi {
                            let _ = writeln!(o, "if {var} > {} {{ {var} = {}; }}", wrap(*h), wrap(*h));
                        }
                    }
                }
                if cite.is_some() || !mods.is_empty() {
                    self.trace_value(o, "bind", lit(name), lit(cite.as_deref().unwrap_or("")), self.to_value(var, ty));
                }
            }
            Stmt::Var {
                var,
                name,
                ty,
                value,
                cite,
            } => {
                match (self.lazy_copy(value), ty) {
                    (Some(input), Ty::List(item)) => {
                        let _ = writeln!(
                            o,
                            "let mut {var}: std::borrow::Cow<'_, [{}]> = std::borrow::Cow::Borrowed(&*inp.{});",
                            self.rty(item),
                            raw_ident(&input)
                        );
                        self.lazy_locals.borrow_mut().insert(var.clone(), input);
                    }
                    _ => {
                        let _ = writeln!(o, "let mut {var}: {} = {};", self.rty(ty), self.value(value));
                    }
                }
                self.takeable.borrow_mut().insert(var.clone());
                self.trace_let(o, name, var, ty, cite);
            }
            Stmt::Assign {
                var,
                name,
                ty,
                value,
                cite,
            } => {
                if let Some(code) = self.update_in_place(var, value) {
                    o.push_str(&code);
                } else if let Some(code) = self.append_in_place(var, value) {
                    o.push_str(&code);
                } else if let Some(code) = self.moved_update(var, value) {
                    o.push_str(&code);
                } else {
                    let _ = writeln!(o, "{var} = {};", self.new_value(var, &self.value(value)));
                }
                // A new value for a `var` reads as an assignment, not as a second `let`.
                if let Some(c) = cite {
                    self.trace_value(o, "assign", lit(name), lit(c), self.to_value(var, ty));
                }
            }
            Stmt::Roll { var, label, dice, cite } => {
                let spec = self.spec(dice, label);
                // Dice with a per-die modifier and floor also trace each face as counted; an
                // opposed roll traces each throw's two totals, and its notation with the sides'
                // modifiers worked out.
                let opposed = matches!(dice.read, Read::Opposed { .. });
                // A roll read only through a table: exact odds branch over the table's rows.
                let throw = |spec: &str| match self.classed_rows(var) {
                    Some(rows) => format!(
                        "if T::ENABLED {{ dice.roll_for(&{spec}, {l})? }} else {{ dice.roll_classed(&{spec}, {l}, {rows})? }}",
                        l = lit(label)
                    ),
                    None => format!("dice.roll_for(&{spec}, {})?", lit(label)),
                };
                let (adjusted, notation) = if matches!(dice.read, Read::SumFloor { .. }) || opposed {
                    let _ = writeln!(o, "let {var}_spec: rt::DiceSpec = {spec};");
                    let _ = writeln!(o, "let {var}: i64 = {};", throw(&format!("{var}_spec")));
                    let notation = if opposed {
                        format!("{var}_spec.notation()")
                    } else {
                        lit(&dice.notation)
                    };
                    (format!("{var}_spec.adjusted_faces(dice.last_faces())"), notation)
                } else {
                    let _ = writeln!(o, "let {var}: i64 = {};", throw(&spec));
                    ("Vec::new()".to_string(), lit(&dice.notation))
                };
                let _ = writeln!(o, "if T::ENABLED {{ trace.event(rt::Event::Roll {{ label: {}.to_string(), dice: {notation}.to_string(), faces: dice.last_faces().to_vec(), adjusted: {adjusted}, value: {var}, cite: {}.to_string() }}); }}", lit(label), lit(cite));
            }
            Stmt::Check {
                var,
                left,
                op,
                right,
                left_text,
                right_text,
                cite,
            } => {
                let (l, r) = (self.expr(left), self.expr(right));
                let _ = writeln!(o, "let {var}_l = {l}; let {var}_r = {r};");
                let _ = writeln!(o, "let {var}: bool = {var}_l {} {var}_r;", op.symbol());
                let _ = writeln!(
                    o,
                    "if T::ENABLED {{ trace.event(rt::Event::Compare {{ left: {}.to_string(), left_value: {}, op: {}.to_string(), right: {}.to_string(), right_value: {}, result: {var}, cite: {}.to_string() }}); }}",
                    lit(left_text),
                    self.to_value(&format!("{var}_l"), &left.ty),
                    lit(op.symbol()),
                    lit(right_text),
                    self.to_value(&format!("{var}_r"), &right.ty),
                    lit(cite)
                );
            }
            Stmt::Set { field, value, cite } => {
                let target = format!("out.{}", raw_ident(field));
                let deferred = self.deferred.borrow().get(field).cloned();
                if let Some(input) = deferred {
                    if matches!(&value.kind, ExprKind::Input(i) if *i == input) {
                        // The output is its input until a later `set`: copied at the end if so.
                        let _ = writeln!(o, "rt_keep_{field} = true;");
                        self.trace_value(
                            o,
                            "set",
                            lit(field),
                            lit(cite),
                            self.to_value(&format!("(*inp.{})", raw_ident(&input)), &value.ty),
                        );
                        return;
                    }
                    let _ = writeln!(o, "rt_keep_{field} = false;");
                }
                if let Some(code) = self.moved_update(&target, value) {
                    o.push_str(&code);
                } else {
                    let _ = writeln!(o, "{target} = {};", self.value(value));
                }
                self.trace_value(
                    o,
                    "set",
                    lit(field),
                    lit(cite),
                    self.to_value(&format!("out.{}", raw_ident(field)), &value.ty),
                );
            }
            Stmt::If { arms, otherwise } => self.if_code(arms, otherwise, false, o, &|b, o| self.block(b, o)),
            Stmt::Match { scrutinee, arms } => self.match_code(scrutinee, arms, o, &|b, o| self.block(b, o)),
            Stmt::Call { var, resolver, args, cite } => {
                let callee = &self.sys.resolvers[*resolver];
                // A policy goes through the `Policy` trait's hidden `rt_` method: the rules' own
                // policy reads the loan, an application's gets owned inputs.
                let fields = self.call_args(var, callee, args, o);
                let callee_fn = if callee.policy {
                    format!("policy.rt_{}", callee.name)
                } else {
                    format!("rt_body_{}", callee.name)
                };
                let args_ty = format!("RtArgs{}", camel(&callee.name));
                let policy_arg = if !callee.policy && self.uses_policy[*resolver] {
                    "policy, "
                } else {
                    ""
                };
                let args = format!("{args_ty} {{ {} }}", fields.join(", "));
                // A body that is not a policy's holds its arguments to change (`owns_args`).
                let (mut_, pass) = if callee.policy { ("", "&") } else { ("mut ", "&mut ") };
                if self.memoizable(*resolver) {
                    // Under exact odds the call branches over the callee's outcomes, told apart
                    // by the fields read after it, each worked out once per inputs.
                    let cname = camel(&callee.name);
                    // The call itself is a function of its own, outside the generic body: one copy
                    // of it whatever the dice and the trace (debug builds compile every copy).
                    let (n, lifetime, run) = self.call_site(var, *resolver, "rt::memo_call_fwd(e, ", "rt::memo_call(e, ");
                    self.site_fns.borrow_mut().push(format!(
                        "fn rt_call_{n}(e: &mut rt::Enumerator, a: &RtArgs{cname}{lifetime}) -> Option<Result<{cname}Outcome, rt::Error>> {{ {run} }}\n"
                    ));
                    let _ = writeln!(
                        o,
                        "let {mut_}{var}_args = {args};\nlet mut {var} = match if T::ENABLED {{ None }} else {{ match rt::enumerator(dice) {{ Some(e) => rt_call_{n}(e, &{var}_args), None => None }} }} {{ Some(r) => r?, None => {callee_fn}(dice, trace, {pass}{var}_args)? }};"
                    );
                } else {
                    let _ = writeln!(o, "let mut {var} = {callee_fn}(dice, trace, {policy_arg}{pass}{args})?;");
                }
                self.takeable.borrow_mut().insert(var.clone());
                let _ = cite;
            }
            Stmt::Require { cond, message, cite } => {
                let msg = self.message(message);
                let _ = writeln!(
                    o,
                    "if !({}) {{ violations.get_or_insert_with(Vec::new).push(rt::Violation {{ cite: {}.to_string(), message: {msg} }}); }}",
                    self.expr(cond),
                    lit(cite)
                );
            }
            Stmt::Note { text, cite } => {
                let _ = writeln!(
                    o,
                    "if T::ENABLED {{ trace.event(rt::Event::Note {{ text: {}, cite: {}.to_string() }}); }}",
                    self.message(text),
                    lit(cite)
                );
            }
            Stmt::Return if self.fwd.get() => {
                self.fwd_leaf(o);
                match self.fwd_loops.borrow().last() {
                    Some(l) => {
                        let _ = writeln!(o, "continue '{l};");
                    }
                    None => o.push_str("return Ok(());\n"),
                }
            }
            Stmt::Return => o.push_str("break 'body;\n"),
            Stmt::Break => o.push_str("break;\n"),
            Stmt::Repeat { times, body, at } => {
                let _ = writeln!(o, "for _ in 0..{times}i64 {{");
                self.loop_body(body, at, o);
                o.push_str("}\n");
            }
            Stmt::For { var, list, body, at } => {
                // The list is read once, when the loop starts: the body may change the variable it
                // came from. A list the body cannot change (an input, a local it never assigns) is
                // iterated in place; a list computed for the loop is consumed; any other is copied.
                let elem_copy = matches!(&list.ty, Ty::List(t) if is_copy(t));
                let in_place = match &list.kind {
                    ExprKind::Input(_) => true,
                    ExprKind::Local(l) => !assigns(body, l),
                    _ => false,
                };
                // A filtered or sorted view of lists the body does not change: references to them.
                let unchanged = !locals_of(list).iter().any(|v| assigns(body, v));
                if unchanged && !self.fwd.get() {
                    if let Some((item, items, cond)) = self.filter_as_it_goes(list) {
                        // Each item tested as the loop comes to it: the condition reads nothing the
                        // body changes, so it holds of the same items as a list made first would.
                        self.ref_locals.borrow_mut().insert(var.clone());
                        let _ = writeln!(o, "for {item} in {items} {{ if !({cond}) {{ continue; }} let {var} = {item};");
                        self.loop_body(body, at, o);
                        o.push_str("}\n");
                        return;
                    }
                }
                let view = if unchanged {
                    let eager = self.eager_views.replace(true);
                    let v = self.ref_items(list);
                    self.eager_views.set(eager);
                    v
                } else {
                    None
                };
                if let Some(items) = view {
                    self.ref_locals.borrow_mut().insert(var.clone());
                    let _ = writeln!(o, "for {var} in {items} {{");
                    self.loop_body(body, at, o);
                    o.push_str("}\n");
                    return;
                }
                // A filter of a place the body changes, its items copied as the loop starts: in a
                // `rt::Few`, which keeps none or one without allocating.
                if let ExprKind::Agg {
                    kind: Agg::Filter,
                    var: fvar,
                    list: inner,
                    body: cond,
                } = &list.kind
                {
                    let inner = self.resolve(inner);
                    if is_place(inner) && matches!(&inner.ty, Ty::List(t) if !is_copy(t)) {
                        let items = format!("({}){}", self.expr(inner), self.place_iter(inner));
                        self.ref_locals.borrow_mut().insert(fvar.clone());
                        let c = self.expr(cond);
                        // The loop reads the copies where they lie (`var` a reference), in a local
                        // of their own: a unit moved out of the `Few` at each turn, or the `Few`
                        // moved out of a block, was a large copy.
                        self.ref_locals.borrow_mut().insert(var.clone());
                        let copy = self.copy_read_fields(fvar, var, inner, body);
                        let _ = writeln!(
                            o,
                            "{{ let mut {var}_few = rt::Few::None;\nfor {fvar} in {items} {{ if {c} {{ {var}_few.push({copy}); }} }}\nfor {var} in {var}_few.as_slice() {{"
                        );
                        self.loop_body(body, at, o);
                        o.push_str("} }\n");
                        return;
                    }
                }
                let l = self.expr(list);
                if in_place && elem_copy {
                    let _ = writeln!(o, "for {var} in ({l}).iter().copied() {{");
                } else if in_place {
                    self.ref_locals.borrow_mut().insert(var.clone());
                    let _ = writeln!(o, "for {var} in ({l}){} {{", self.place_iter(list));
                } else if is_owned_temp(list) {
                    let _ = writeln!(o, "for {var} in ({l}) {{");
                } else {
                    let _ = writeln!(o, "for {var} in ({l}).to_vec() {{");
                }
                self.loop_body(body, at, o);
                o.push_str("}\n");
            }
        }
    }

    /// The copy of the item `item` (a reference into `list`, a list of records) that a loop over
    /// a filter of `list` keeps as `var`: the whole record, or, where the body reads `var` only
    /// field by field, the record with each list, text or optional field it never reads left
    /// empty (no count taken on a shared list, nothing copied that nothing reads).
    fn copy_read_fields(&self, item: &str, var: &str, list: &Expr, body: &[Stmt]) -> String {
        let whole = format!("{item}.clone()");
        let Ty::List(elem) = &list.ty else { return whole };
        let Ty::Rec(ri) = **elem else { return whole };
        let Some(read) = fields_read(body, var) else { return whole };
        let r = &self.sys.records[ri];
        let left_empty = |n: &String, t: &Ty| !read.contains(n) && matches!(t, Ty::List(_) | Ty::Text | Ty::Opt(_)) && !is_copy(t);
        if !r.fields.iter().any(|(n, t, _)| left_empty(n, t)) {
            return whole;
        }
        let inits: Vec<String> = r
            .fields
            .iter()
            .map(|(n, t, _)| {
                let f = raw_ident(n);
                let value = match t {
                    _ if left_empty(n, t) => match t {
                        Ty::List(_) => "rt::List::new()".to_string(),
                        Ty::Text => "rt::Text::Static(\"\")".to_string(),
                        _ => "None".to_string(),
                    },
                    // A list field is shared, not copied item by item (`rt::List`).
                    Ty::List(_) => format!("{item}.{f}.clone()"),
                    t => self.owned(&format!("{item}.{f}"), t),
                };
                format!("{f}: {value}")
            })
            .collect();
        format!("{} {{ {} }}", camel(&r.name), inits.join(", "))
    }

    /// The arguments of the call bound to `var`, evaluated before it (the call borrows `dice` and
    /// `trace` itself), as the fields of the callee's `RtArgs…`. A resolver's body takes what is
    /// not `Copy` by reference: a place (a local, an input, a field of one) is lent as it is,
    /// anything else is made first.
    fn call_args(&self, var: &str, callee: &ResolverDef, args: &[(String, Expr)], o: &mut String) -> Vec<String> {
        // A list the caller reads no more (its own list input, or a list in a local) is given to
        // a callee that is not a policy: moved, not lent, so the callee may take it for its own.
        // It is taken last, after the other arguments are made, those that may borrow it (a view)
        // as copies.
        let given = if callee.policy {
            None
        } else {
            args.iter().position(|(n, e)| {
                let param_ty = callee.inputs.iter().find(|p| &p.name == n).map(|p| &p.ty);
                let others_read = |reads: &dyn Fn(&Expr) -> bool| args.iter().any(|(m, x)| m != n && reads(x));
                matches!(param_ty, Some(Ty::List(_)))
                    && param_ty == Some(&e.ty)
                    && match &e.kind {
                        ExprKind::Input(i) => !others_read(&|x| x.mentions_input(i)) && self.input_dead(i),
                        ExprKind::Local(v) => !others_read(&|x| expr_reads(x, v, None)) && self.local_dead_to_give(v),
                        _ => false,
                    }
            })
        };
        let views = self.views();
        let mut fields = Vec::new();
        for (i, (n, e)) in args.iter().enumerate() {
            let param_ty = callee.inputs.iter().find(|p| &p.name == n).map(|p| &p.ty);
            if given == Some(i) {
                fields.push(format!("{}: {var}_a{i}", raw_ident(n)));
                continue;
            }
            if is_copy(&e.ty) {
                let code = self.owned_expr(e);
                let _ = writeln!(o, "let {var}_a{i} = {code};");
            } else if given.is_some() && views.iter().any(|v| expr_reads(e, v, None)) {
                let code = self.owned_expr(e);
                let _ = writeln!(o, "let {var}_a{i}_own = {code};\nlet {var}_a{i} = &{var}_a{i}_own;");
            } else if is_place(e) && param_ty == Some(&e.ty) {
                let _ = writeln!(o, "let {var}_a{i} = &{};", self.expr(e));
            } else {
                let code = self.owned_expr(e);
                let _ = writeln!(o, "let {var}_a{i} = &{code};");
            }
            if matches!(param_ty, Some(Ty::List(_))) {
                fields.push(format!("{}: rt::Arg::Lent({var}_a{i})", raw_ident(n)));
            } else {
                fields.push(format!("{}: {var}_a{i}", raw_ident(n)));
            }
        }
        if let Some((i, (_, e))) = given.and_then(|g| args.get(g).map(|a| (g, a))) {
            let list = match &e.kind {
                ExprKind::Input(x) => format!("inp.{}.take()", raw_ident(x)),
                ExprKind::Local(v) => self.take_local(v),
                _ => format!("std::mem::take(&mut {})", self.expr(e)),
            };
            let _ = writeln!(o, "let {var}_a{i} = rt::Arg::Given({list});");
        }
        fields
    }

    /// A new call site of the resolver `resolver`, bound to `var`: its number, the lifetime of
    /// the `RtArgs…` its site function takes (`a`), and the runtime call that works the callee's
    /// classes out there: `{forward}n, inputs, project, the callee's forward pass)` for a callee
    /// with one, else `{replayed}n, inputs, project, the callee under the enumerating dice)`.
    fn call_site(&self, var: &str, resolver: usize, forward: &str, replayed: &str) -> (usize, &'static str, String) {
        let callee = &self.sys.resolvers[resolver];
        let cname = camel(&callee.name);
        let n = self.call_sites.get();
        self.call_sites.set(n + 1);
        let inputs = per_input(callee, |f| format!("{f}: a.{f}"), |f| format!("{f}: a.{f}.to_owned()"));
        let project = self.call_project(var, callee);
        let lifetime = if callee.inputs.iter().any(|p| !is_copy(&p.ty)) {
            "<'_>"
        } else {
            ""
        };
        let run = if self.forward.get(resolver).copied().unwrap_or(false) {
            let lend = lend_inputs(callee, "i");
            format!(
                "{forward}{n}, || {cname}Inputs {{ {} }}, |o: &{cname}Outcome| {project}, |e, i, s| rt_fwd_{}(e, &mut rt::NoTrace, &RtArgs{cname} {{ {} }}, rt::Fw::one(), s))",
                inputs.join(", "),
                callee.name,
                lend.join(", ")
            )
        } else {
            format!(
                "{replayed}{n}, || {cname}Inputs {{ {} }}, |o: &{cname}Outcome| {project}, |e, i| {}(e, &mut rt::NoTrace, i))",
                inputs.join(", "),
                raw_ident(&callee.name)
            )
        };
        (n, lifetime, run)
    }

    /// What the caller reads of the outcome `o` of the call bound to `var`: exact odds tell the
    /// callee's outcomes apart by it, and order its classes by it. The fields go in the order
    /// the callee declares its outputs (the first is usually what the caller's own outcome sorts
    /// by first, such as the hits of a damage roll): the caller's leaves then come out nearly in
    /// order, and the distribution's sort has little to move. The order changes no answer.
    fn call_project(&self, var: &str, callee: &ResolverDef) -> String {
        match self.call_reads.borrow().get(var) {
            Some(Some(fields)) => {
                let mut fields: Vec<&String> = fields.iter().collect();
                fields.sort_by_key(|f| callee.outputs.iter().position(|p| &p.name == *f).unwrap_or(usize::MAX));
                let fs: Vec<String> = fields.iter().map(|f| format!("o.{}.clone(), ", raw_ident(f))).collect();
                format!("({})", fs.concat())
            }
            _ => "o.clone()".to_string(),
        }
    }

    /// An `if`, each arm's statements written by `body`; the `else` too when there is one or
    /// `always_else` asks (a forward pass puts the rest of the body in it).
    fn if_code(
        &self,
        arms: &'a [(Expr, Vec<Stmt>)],
        otherwise: &'a [Stmt],
        always_else: bool,
        o: &mut String,
        body: &dyn Fn(&'a [Stmt], &mut String),
    ) {
        for (i, (c, b)) in arms.iter().enumerate() {
            let _ = writeln!(o, "{}if {} {{", if i == 0 { "" } else { " else " }, self.expr(c));
            body(b, o);
            o.push('}');
        }
        if !otherwise.is_empty() || always_else {
            o.push_str(" else {\n");
            body(otherwise, o);
            o.push('}');
        }
        o.push('\n');
    }

    /// A `match`, each arm's statements written by `body`, and a last `_` arm (when the patterns
    /// leave values out) written by `body` of no statements.
    fn match_code(&self, scrutinee: &Expr, arms: &'a [(Vec<Pattern>, Vec<Stmt>)], o: &mut String, body: &dyn Fn(&'a [Stmt], &mut String)) {
        if scrutinee.ty == Ty::Dec {
            // A decimal is matched with guards: `scrut if lo <= scrut && scrut <= hi`.
            let _ = writeln!(o, "match {} {{", self.expr(scrutinee));
            for (pats, b) in arms {
                let conds: Vec<String> = pats
                    .iter()
                    .map(|p| match p {
                        Pattern::DecRange(a, b) => {
                            let mut c = Vec::new();
                            if let Some((n, d)) = a {
                                c.push(format!("rt::Dec::raw({n}, {d}) <= scrut"));
                            }
                            if let Some((n, d)) = b {
                                c.push(format!("scrut <= rt::Dec::raw({n}, {d})"));
                            }
                            if c.is_empty() {
                                "true".to_string()
                            } else {
                                format!("({})", c.join(" && "))
                            }
                        }
                        _ => "true".to_string(),
                    })
                    .collect();
                let _ = writeln!(o, "scrut if {} => {{", conds.join(" || "));
                body(b, o);
                o.push_str("}\n");
            }
            o.push_str("_ => {");
            body(&[], o);
            o.push_str("}\n}\n");
            return;
        }
        let _ = writeln!(o, "match {} {{", self.expr(scrutinee));
        let mut has_wild = false;
        for (pats, b) in arms {
            let ps: Vec<String> = pats
                .iter()
                .map(|p| match p {
                    Pattern::Wild => {
                        has_wild = true;
                        "_".to_string()
                    }
                    Pattern::Range(a, b) => match (a, b) {
                        (Some(a), Some(b)) if a == b => format!("{a}"),
                        (Some(a), Some(b)) => format!("{a}..={b}"),
                        (None, Some(b)) => format!("..={b}"),
                        (Some(a), None) => format!("{a}.."),
                        (None, None) => "_".into(),
                    },
                    Pattern::Variant(e, v) => {
                        format!("{}::{}", camel(&self.sys.enums[*e].name), camel(&self.sys.enums[*e].variants[*v].0))
                    }
                    // Decimals are matched above, with guards.
                    Pattern::DecRange(..) => "_".into(),
                })
                .collect();
            let _ = writeln!(o, "{} => {{", ps.join(" | "));
            body(b, o);
            o.push_str("}\n");
        }
        if !has_wild {
            o.push_str("_ => {");
            body(&[], o);
            o.push_str("}\n");
        }
        o.push_str("}\n");
    }

    // ------------------------------------------------------------ forward pass

    /// Does the forward pass branch at `s`: a roll, a call, or a statement with one inside?
    fn fwd_branches(s: &Stmt) -> bool {
        match s {
            Stmt::Roll { .. } | Stmt::Call { .. } => true,
            Stmt::If { .. } | Stmt::Match { .. } => s.blocks().iter().any(|b| b.iter().any(Self::fwd_branches)),
            _ => false,
        }
    }

    /// The forward pass of `stmts`, then of each block of `cont` in turn (what follows them in
    /// the blocks around), then the leaf. At a roll or call the rest goes inside its loop over
    /// values; at an `if` or `match` with one inside, into each arm (and an `else` or `_` arm
    /// made for it).
    fn fwd_block(&self, stmts: &'a [Stmt], cont: &[&'a [Stmt]], o: &mut String) {
        let scope = self.fwd_vars.borrow().len();
        let mut ended = false;
        for (i, s) in stmts.iter().enumerate() {
            if Self::fwd_branches(s) {
                let mut next: Vec<&'a [Stmt]> = vec![&stmts[i + 1..]];
                next.extend_from_slice(cont);
                self.fwd_stmt(s, &next, o);
                ended = true;
                break;
            }
            // What may still run after `s`: the rest of this block and every block of `cont`
            // (a view of a list must not outlive a change to it, `viewable`).
            let depth = self.later.borrow().len();
            {
                let mut later = self.later.borrow_mut();
                for b in cont.iter().rev().copied().chain(std::iter::once(&stmts[i + 1..])) {
                    later.push(Later {
                        stmts: b,
                        fresh: Vec::new(),
                        last: false,
                        exits: false,
                        is_loop: false,
                    });
                }
            }
            self.grouped(stmts, i, o);
            self.later.borrow_mut().truncate(depth);
            if let Stmt::Var { var, .. } = s {
                self.fwd_vars.borrow_mut().push(var.clone());
            }
            if matches!(s, Stmt::Return) {
                // The leaf is handed on: nothing after it runs.
                ended = true;
                break;
            }
        }
        if !ended {
            match cont.split_first() {
                Some((first, rest)) => self.fwd_block(first, rest, o),
                None => self.fwd_leaf(o),
            }
        }
        self.fwd_vars.borrow_mut().truncate(scope);
    }

    /// A statement of the forward pass that branches (`fwd_branches`), `next` what follows it.
    fn fwd_stmt(&self, s: &'a Stmt, next: &[&'a [Stmt]], o: &mut String) {
        let rest = |b: &'a [Stmt], o: &mut String| {
            let mut c: Vec<&'a [Stmt]> = vec![b];
            c.extend_from_slice(next);
            self.fwd_block(c[0], &c[1..], o);
        };
        match s {
            Stmt::Roll { var, label, dice, .. } => {
                let spec = self.spec(dice, label);
                let rows = match self.classed_rows(var) {
                    Some(rows) => format!("Some({rows})"),
                    None => "None".to_string(),
                };
                let _ = writeln!(
                    o,
                    "let {var}_d = rt_e.fwd_dice(&{spec}, {rows})?;\nlet {var}_s = rt_w.split({var}_d.0.len());"
                );
                let label = self.fwd_loop();
                let _ = writeln!(
                    o,
                    "'{label}: for (rt_i, &({var}, rt_c)) in {var}_d.0.iter().enumerate() {{ let rt_w = rt_w.roll(rt_c, {var}_d.1, {var}_d.0.len(), rt_i, {var}_s);"
                );
                self.fwd_iteration(&label, o, &|o| rest(&[], o));
            }
            Stmt::Call { var, resolver, args, .. } => {
                let callee = &self.sys.resolvers[*resolver];
                let cname = camel(&callee.name);
                let fields = self.call_args(var, callee, args, o);
                let (n, lifetime, run) = self.call_site(var, *resolver, "e.fwd_call(", "e.fwd_call_replayed(");
                self.site_fns.borrow_mut().push(format!(
                    "fn rt_fcall_{n}(e: &mut rt::Enumerator, a: &RtArgs{cname}{lifetime}) -> Result<u32, rt::Error> {{ {run} }}\n"
                ));
                let _ = writeln!(
                    o,
                    "let {var}_args = RtArgs{cname} {{ {} }};\nlet {var}_ix = rt_fcall_{n}(rt_e, &{var}_args)?;\nlet {var}_n = rt_e.call_classes({var}_ix);\nlet {var}_s = rt_w.split({var}_n);",
                    fields.join(", ")
                );
                let label = self.fwd_loop();
                let _ = writeln!(
                    o,
                    "'{label}: for rt_k in 0..{var}_n {{ let (mut {var}, rt_w) = rt_e.call_class::<{cname}Outcome>({var}_ix, rt_k, &rt_w, {var}_s)?;"
                );
                self.fwd_iteration(&label, o, &|o| rest(&[], o));
            }
            Stmt::If { arms, otherwise } => self.if_code(arms, otherwise, true, o, &rest),
            Stmt::Match { scrutinee, arms } => self.match_code(scrutinee, arms, o, &rest),
            // Only the statements above branch.
            _ => self.stmt(s, o),
        }
    }

    /// A new label for a loop over values.
    fn fwd_loop(&self) -> String {
        let n = self.fwd_labels.get();
        self.fwd_labels.set(n + 1);
        format!("rt_b{n}")
    }

    /// The body of a loop over values, opened by the caller: what the body changes (the outcome,
    /// the `var` locals) starts each value as it was before the loop.
    fn fwd_iteration(&self, label: &str, o: &mut String, body: &dyn Fn(&mut String)) {
        o.push_str("let mut out = out.clone();\n");
        for f in self.deferred.borrow().keys() {
            let _ = writeln!(o, "let mut rt_keep_{f} = rt_keep_{f};");
        }
        for v in self.fwd_vars.borrow().iter() {
            let _ = writeln!(o, "let mut {v} = {v}.clone();");
        }
        self.fwd_loops.borrow_mut().push(label.to_string());
        body(o);
        self.fwd_loops.borrow_mut().pop();
        o.push_str("}\n");
    }

    /// The end of a path of the forward pass: the outcome, as the resolver's body returns it, and
    /// the path's weight go to the sink.
    fn fwd_leaf(&self, o: &mut String) {
        self.outcome_end(o, false);
        o.push_str("rt_sink.leaf(out, rt_w)?;\n");
    }

    /// The end of the resolver's body, in both passes: an output still holding its input's value
    /// gets it now, once. A body that holds its arguments
    /// (`owned`: not a policy's, not a forward pass, whose leaves share them) takes the input
    /// (`rt::Arg::take`: a given list is moved, not copied; a battle step hands its army on so)
    /// unless another output keeps the same input too.
    fn outcome_end(&self, o: &mut String, owned: bool) {
        let deferred = self.deferred.borrow();
        for (f, i) in deferred.iter() {
            let alone = deferred.values().filter(|x| *x == i).count() == 1;
            let value = if owned && alone {
                format!("inp.{}.take()", raw_ident(i))
            } else {
                format!("(*inp.{}).to_vec()", raw_ident(i))
            };
            let _ = writeln!(o, "if rt_keep_{f} {{ out.{} = {value}; }}", raw_ident(f));
        }
    }

    /// The rows of the range table that alone reads the roll bound to `var` (`ir::classed_rolls`),
    /// as a slice literal: exact odds branch over them.
    fn classed_rows(&self, var: &str) -> Option<String> {
        let classed = self.classed.borrow();
        let t = classed.get(var).and_then(|t| self.sys.tables.get(*t))?;
        let rows: Vec<String> = t.rows.iter().map(|r| format!("({}i64, {}i64)", r.range.0, r.range.1)).collect();
        Some(format!("&[{}]", rows.join(", ")))
    }

    /// `xs = map(x in xs: if c then x with (f: v) else x)` (what `xs = update(x in xs where c:
    /// ...)` is) written as a loop that changes the matching items of `xs` in place, setting only
    /// the fields that change, instead of building a new list. The same for several arms
    /// (`if ... else if ... else x`) and for a body that is a `with` on every item. It applies only
    /// when the conditions and new values do not read `xs` itself (they would see it half changed);
    /// values are all computed, and checked, before any field changes, as the copy would.
    fn update_in_place(&self, var: &str, value: &Expr) -> Option<String> {
        let ExprKind::Agg {
            kind: Agg::Map,
            var: x,
            list,
            body,
        } = &value.kind
        else {
            return None;
        };
        if !matches!(&list.kind, ExprKind::Local(l) if l == var) || !matches!(&list.ty, Ty::List(t) if matches!(**t, Ty::Rec(_))) {
            return None;
        }
        if body.mentions_local(var) {
            return None;
        }
        let arms: Vec<(Option<&Expr>, &Expr)> = match &body.kind {
            ExprKind::If(arms, otherwise) if matches!(&otherwise.kind, ExprKind::Local(o) if o == x) => {
                arms.iter().map(|(c, v)| (Some(c), v)).collect()
            }
            ExprKind::With { base, .. } if matches!(&base.kind, ExprKind::Local(b) if b == x) => vec![(None, &**body)],
            _ => return None,
        };
        self.ref_locals.borrow_mut().insert(x.clone());
        let mut o = String::new();
        let _ = writeln!(o, "for {x}_mut in {}.iter_mut() {{", self.changed(var));
        // Which arm applies, read from the item as it is.
        let mut pick = String::new();
        for (i, (c, _)) in arms.iter().enumerate() {
            match c {
                Some(c) => {
                    let _ = write!(pick, "{}if {} {{ {i}usize }}", if i == 0 { "" } else { " else " }, self.expr(c));
                }
                None => {
                    let _ = write!(pick, "{i}usize");
                }
            }
        }
        if arms.iter().any(|(c, _)| c.is_some()) {
            pick.push_str(" else { usize::MAX }");
        }
        let _ = writeln!(o, "let {x}_arm: usize = {{ let {x} = &*{x}_mut; {pick} }};");
        let _ = writeln!(o, "match {x}_arm {{");
        for (i, (_, v)) in arms.iter().enumerate() {
            let _ = writeln!(o, "{i}usize => {{");
            match &v.kind {
                ExprKind::With { base, rec, updates } if matches!(&base.kind, ExprKind::Local(b) if b == x) => {
                    // Every new value first (reading the item as it is), then every field.
                    let mut vals = String::new();
                    let mut sets = Vec::new();
                    self.with_leaves(x, &[], *rec, updates, &mut vals, &mut sets);
                    let names: Vec<&str> = sets.iter().map(|(_, u, _, _)| u.as_str()).collect();
                    let _ = writeln!(
                        o,
                        "let ({},) = {{ let {x} = &*{x}_mut; {vals} ({},) }};",
                        names.join(", "),
                        names.join(", ")
                    );
                    for (path, u, extend, list) in &sets {
                        if *extend {
                            let _ = writeln!(
                                o,
                                "if let Some(more) = {u} {{ {x}_mut.{path}.extend(more); rt::list_room({x}_mut.{path}.len())?; }}"
                            );
                        } else if *list {
                            let _ = writeln!(o, "{x}_mut.{path} = rt::List::from({u});");
                        } else {
                            let _ = writeln!(o, "{x}_mut.{path} = {u};");
                        }
                    }
                }
                _ => {
                    let _ = writeln!(o, "let {x}_new = {{ let {x} = &*{x}_mut; {} }};", self.owned_expr(v));
                    let _ = writeln!(o, "*{x}_mut = {x}_new;");
                }
            }
            o.push_str(
                "}
",
            );
        }
        o.push_str(
            "_ => {}
}
}
",
        );
        Some(o)
    }

    /// `xs = xs + more` as `xs.extend(more)`, when `more` does not read `xs`.
    fn append_in_place(&self, var: &str, value: &Expr) -> Option<String> {
        let ExprKind::Bin(BinOp::Add, a, b) = &value.kind else {
            return None;
        };
        if !matches!(value.ty, Ty::List(_)) || !matches!(&a.kind, ExprKind::Local(l) if l == var) || b.mentions_local(var) {
            return None;
        }
        if let ExprKind::List(items) = &b.kind {
            // `xs = xs + [a, b]`: every new item first (as the list literal would), then pushed,
            // without a list for them.
            let mut code = String::from("{ ");
            for (i, x) in items.iter().enumerate() {
                let _ = write!(code, "let a{i} = {}; ", self.owned_expr(x));
            }
            for i in 0..items.len() {
                let _ = write!(code, "{}.push(a{i}); ", self.changed(var));
            }
            // A list grows no longer than `rt::MAX_LIST_LEN`.
            let _ = write!(code, "rt::list_room({var}.len())?; ");
            code.push_str("}\n");
            return Some(code);
        }
        let y = self.expr(b);
        let more = if is_fresh(b) { y } else { format!("({y}).iter().cloned()") };
        Some(format!("{}.extend({more});\nrt::list_room({var}.len())?;\n", self.changed(var)))
    }

    /// The fields a `with` on the item `x` (at `path`) sets, flattening a nested `f: x.f with (...)`
    /// into the fields it sets: each value's `let` (and the record's range checks, as the copy
    /// would do them) goes to `vals`, each `(path, value variable, extend, list)` to `sets`. A list
    /// field that only grows (`f: x.f + more`, or `f: if c then x.f + more else x.f`) is extended
    /// where it is (`extend`: the variable holds `Some(more)` or `None`), not built anew.
    fn with_leaves(
        &self,
        x: &str,
        path: &[&str],
        rec: usize,
        updates: &[(String, Expr)],
        vals: &mut String,
        sets: &mut Vec<(String, String, bool, bool)>,
    ) {
        let r = &self.sys.records[rec];
        let mut level = Vec::new();
        for (n, e) in updates {
            let mut inner = path.to_vec();
            inner.push(n);
            if let ExprKind::With {
                base,
                rec: r2,
                updates: u2,
            } = &e.kind
            {
                if field_path(base, x).is_some_and(|p| p == inner) {
                    self.with_leaves(x, &inner, *r2, u2, vals, sets);
                    continue;
                }
            }
            let u = format!("{x}_u{}", sets.len());
            let place = inner.iter().map(|f| raw_ident(f)).collect::<Vec<_>>().join(".");
            if let Some((cond, more)) = self.grows(x, &inner, e) {
                // A list literal (`x.f + [a]`) is added as an array: no list is allocated for it.
                let (more, ty) = match &more.kind {
                    ExprKind::List(items) => {
                        let items: Vec<String> = items.iter().map(|i| self.owned_expr(i)).collect();
                        (format!("[{}]", items.join(", ")), format!("[_; {}]", items.len()))
                    }
                    _ => (self.owned_expr(more), "Vec<_>".to_string()),
                };
                let code = match cond {
                    Some(c) => format!("if {} {{ Some({more}) }} else {{ None }}", self.expr(c)),
                    None => format!("Some({more})"),
                };
                let _ = write!(vals, "let {u}: Option<{ty}> = {code}; ");
                sets.push((place, u, true, true));
                continue;
            }
            if matches!(&e.kind, ExprKind::List(items) if items.is_empty()) {
                // A list field emptied (`attackers: []`, each unit at each Battle Round's end):
                // the empty `rt::List`, no list made for it first.
                let _ = write!(vals, "let {u} = rt::List::new(); ");
                level.push((n.as_str(), u.clone()));
                sets.push((place, u, false, false));
                continue;
            }
            let _ = write!(vals, "let {u} = {}; ", self.owned_expr(e));
            level.push((n.as_str(), u.clone()));
            sets.push((place, u, false, matches!(e.ty, Ty::List(_))));
        }
        vals.push_str(&self.field_checks(r, level.into_iter()));
    }

    /// Is `e`, the new value of the list field at `path` of the item `x`, that field grown:
    /// `x.f + more` (no condition) or `if c then x.f + more else x.f`? Then the condition and what
    /// is added, which must not read the field itself.
    fn grows<'e>(&self, x: &str, path: &[&str], e: &'e Expr) -> Option<(Option<&'e Expr>, &'e Expr)> {
        if !matches!(e.ty, Ty::List(_)) {
            return None;
        }
        let is_field = |f: &Expr| field_path(f, x).is_some_and(|p| p == path);
        let added = |v: &'e Expr| match &v.kind {
            ExprKind::Bin(BinOp::Add, a, b) if is_field(a) && !expr_reads(b, x, Some(path[0])) => Some(&**b),
            _ => None,
        };
        match &e.kind {
            ExprKind::If(arms, otherwise) if arms.len() == 1 && is_field(otherwise) => {
                let (c, v) = &arms[0];
                Some((Some(c), added(v)?))
            }
            _ => Some((None, added(e)?)),
        }
    }

    /// The Rust type of a record's field: a list is an `rt::List` (shared when the record is
    /// copied), any other type as `rty` gives it.
    fn field_rty(&self, t: &Ty) -> String {
        match t {
            Ty::List(i) => format!("rt::List<{}>", self.rty(i)),
            other => self.rty(other),
        }
    }

    /// The owned value of an expression: a place (a local, an input, a field) is copied, a value
    /// the expression builds (a record, a list, a lookup) is used as it is.
    fn owned_expr(&self, e: &Expr) -> String {
        let code = self.expr(e);
        if is_copy(&e.ty) || !is_fresh(e) {
            self.owned(&code, &e.ty)
        } else {
            code
        }
    }

    /// An owned copy of a value expression (inputs and fields are read in place).
    fn owned(&self, code: &str, ty: &Ty) -> String {
        match ty {
            Ty::List(_) => format!("({code}).to_vec()"),
            t if is_copy(t) => code.to_string(),
            _ => format!("({code}).clone()"),
        }
    }

    /// A trace event with a value (`rt::Trace::set`, `bind` or `assign`): `value` is computed
    /// only when tracing.
    /// `name` and `cite` are string literals.
    fn trace_value(&self, o: &mut String, method: &str, name: String, cite: String, value: String) {
        let _ = writeln!(o, "trace.{method}({name}, {cite}, || {value});");
    }

    /// A cited `var` shows its first value in the trace.
    fn trace_let(&self, o: &mut String, name: &str, var: &str, ty: &Ty, cite: &Option<String>) {
        if let Some(c) = cite {
            self.trace_value(o, "bind", lit(name), lit(c), self.to_value(var, ty));
        }
    }

    fn block(&self, stmts: &'a [Stmt], o: &mut String) {
        for (i, _) in stmts.iter().enumerate() {
            // A `return` further on in this block ends the resolver there: nothing after it, here
            // or in the blocks around, runs.
            let rest = &stmts[i + 1..];
            // A `break` further on ends the loop around: the rest of its body does not run again.
            let later = match rest.iter().position(|x| matches!(x, Stmt::Return | Stmt::Break)) {
                Some(j) => Later {
                    stmts: &rest[..j],
                    fresh: Vec::new(),
                    last: matches!(rest.get(j), Some(Stmt::Return)),
                    exits: matches!(rest.get(j), Some(Stmt::Break)),
                    is_loop: false,
                },
                None => Later {
                    stmts: rest,
                    fresh: Vec::new(),
                    last: false,
                    exits: false,
                    is_loop: false,
                },
            };
            self.later.borrow_mut().push(later);
            self.grouped(stmts, i, o);
            self.later.borrow_mut().pop();
        }
    }

    /// `stmts[i]`, in its group of checks (`ir::is_check`) when it is one and not inside another:
    /// the group's first check declares its failed `require`s, and after its last they stop the
    /// resolution (`docs/dsl.md`, "`require`").
    fn grouped(&self, stmts: &'a [Stmt], i: usize, o: &mut String) {
        let s = &stmts[i];
        let group = !self.checking.get() && is_check(s);
        if group && (i == 0 || !is_check(&stmts[i - 1])) {
            o.push_str("let mut violations: Option<Vec<rt::Violation>> = None;\n");
        }
        self.checking.set(self.checking.get() || group);
        self.stmt(s, o);
        if group {
            self.checking.set(false);
            if ends_checks(s, stmts.get(i + 1)) {
                o.push_str("if let Some(violations) = violations { return Err(rt::Error::Rejected { violations }); }\n");
            }
        }
    }

    /// Is this place part of an input, or of an item read in place (a reference local)? Nothing
    /// changes those while the resolver runs.
    fn lendable_root(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Input(_) => true,
            ExprKind::Local(v) => self.ref_locals.borrow().contains(v),
            ExprKind::Field(b, _) => self.lendable_root(b),
            _ => false,
        }
    }

    /// A loop's body: after any statement of it, the whole body may run again.
    fn loop_body(&self, body: &'a [Stmt], at: &str, o: &mut String) {
        // Each turn is a step (`rt::steps`), at the loop (`at`) whose body this is.
        o.push_str(&self.step_at("Loop", at));
        let mut fresh = Vec::new();
        for s in body {
            s.declares(&mut fresh);
        }
        self.later.borrow_mut().push(Later {
            stmts: body,
            fresh,
            last: false,
            exits: false,
            is_loop: true,
        });
        self.block(body, o);
        self.later.borrow_mut().pop();
    }

    /// The step a call of `r` takes (`ir::takes_steps`), or nothing.
    fn call_step(&self, r: &ResolverDef) -> String {
        if crate::ir::takes_steps(&r.body) {
            self.step_at("Call", &r.at)
        } else {
            String::new()
        }
    }

    /// A step of the resolution (`rt::steps::take`) at `at`, a loop or a call of the resolver being
    /// written.
    fn step_at(&self, kind: &str, at: &str) -> String {
        let r = &self.sys.resolvers[self.current.get()];
        format!(
            "rt::steps::take(&rt::Site {{ kind: rt::SiteKind::{kind}, at: {}, system: {}, resolver: {} }})?;\n",
            lit(at),
            lit(&self.sys.name),
            lit(&r.name)
        )
    }

    /// Nothing that may still run reads `v` (or, with a field, `v.field`).
    fn dead(&self, v: &str, field: Option<&str>) -> bool {
        if self.fwd.get() {
            return false;
        }
        for l in self.later.borrow().iter().rev() {
            let fresh = l.fresh.iter().any(|f| f == v);
            if !fresh && l.stmts.iter().any(|s| stmt_reads(s, v, field)) {
                return false;
            }
            if l.last {
                break;
            }
        }
        true
    }

    /// The list input `name` may be taken (`rt::Arg::take`) here: the body holds its arguments
    /// (`owns_args`, never in a forward pass) and nothing that may still run reads the input, nor
    /// any view (a local that may borrow it). An input an output keeps until a later `set`
    /// (`Gen::deferred`) is taken only right before that `set`, which then replaces it.
    fn input_dead(&self, name: &str) -> bool {
        if self.fwd.get() || !self.owns_args.get() {
            return false;
        }
        let kept: Vec<String> = self
            .deferred
            .borrow()
            .iter()
            .filter(|(_, i)| i.as_str() == name)
            .map(|(o, _)| o.clone())
            .collect();
        if kept.len() > 1 {
            return false;
        }
        if let Some(out) = kept.first() {
            // A later `set` of the output in this block, nothing before it able to leave the
            // block (a `return`, or a `break` of the loop around), replaces the input it kept.
            let replaced = self.later.borrow().last().is_some_and(|l| {
                l.stmts
                    .iter()
                    .take_while(|s| !may_leave(s))
                    .any(|s| matches!(s, Stmt::Set { field, .. } if field == out))
            });
            if !replaced {
                return false;
            }
        }
        self.unread_later(&|st| stmt_reads_input(st, name), None)
    }

    /// The list in the local `v` may be moved out here: nothing that may still run reads it
    /// before a new value replaces it (an assignment at the top of a block that runs next), nor
    /// any view (a local that may borrow it).
    fn local_dead_to_give(&self, v: &str) -> bool {
        if self.fwd.get() || !self.takeable.borrow().contains(v) {
            return false;
        }
        self.unread_later(
            &|st| stmt_reads(st, v, None) && !matches!(st, Stmt::Assign { var, value, .. } if var == v && !expr_reads(value, v, None)),
            Some(v),
        )
    }

    /// `var fs = fighters` where the body still reads the input `fighters` afterwards (else the
    /// input is taken): the input, for `fs` to read where it lies until something changes `fs`
    /// (a `Cow`). A battle's Command Phase copied its army this way, to change it in a rare case.
    fn lazy_copy(&self, value: &Expr) -> Option<String> {
        let ExprKind::Input(i) = &value.kind else {
            return None;
        };
        let copied = matches!(&value.ty, Ty::List(t) if !is_copy(t));
        (copied && !self.fwd.get() && !self.input_dead(i)).then(|| i.clone())
    }

    /// The local `v` to change in place: a lazy copy (`lazy_copy`) is copied now if it still
    /// reads its input.
    fn changed(&self, v: &str) -> String {
        if self.lazy_locals.borrow().contains_key(v) {
            format!("{v}.to_mut()")
        } else {
            v.to_string()
        }
    }

    /// `code`, a new list, as the value of the place `target`: a lazy copy holds it in its `Cow`.
    fn new_value(&self, target: &str, code: &str) -> String {
        if self.lazy_locals.borrow().contains_key(target) {
            format!("std::borrow::Cow::Owned({code})")
        } else {
            code.to_string()
        }
    }

    /// The list in the local `v`, moved out (nothing reads it afterwards). A lazy copy that still
    /// reads its input takes the input instead where the body reads that no more (given, it is
    /// moved), else copies it.
    fn take_local(&self, v: &str) -> String {
        let Some(input) = self.lazy_locals.borrow().get(v).cloned() else {
            return format!("std::mem::take(&mut {v})");
        };
        let (pat, unchanged) = if self.input_dead_beside(&input, v) {
            ("_", format!("inp.{}.take()", raw_ident(&input)))
        } else {
            ("rt_input", "rt_input.to_vec()".to_string())
        };
        format!("match std::mem::take(&mut {v}) {{ std::borrow::Cow::Owned(rt_list) => rt_list, std::borrow::Cow::Borrowed({pat}) => {unchanged} }}")
    }

    /// `input_dead`, not counting the lazy copy `v` (being moved out, it borrows nothing after).
    fn input_dead_beside(&self, input: &str, v: &str) -> bool {
        let kept = self.lazy_locals.borrow_mut().remove(v);
        let dead = self.input_dead(input);
        if let Some(k) = kept {
            self.lazy_locals.borrow_mut().insert(v.to_string(), k);
        }
        dead
    }

    /// The locals that may borrow a list (references to items read in place, and views).
    fn views(&self) -> Vec<String> {
        self.ref_locals
            .borrow()
            .iter()
            .chain(self.view_locals.borrow().iter())
            .chain(self.lazy_locals.borrow().keys())
            .cloned()
            .collect()
    }

    /// Does no statement that may still run satisfy `reads`, nor read a view? Walks `later` as
    /// `dead` does; a block that ends in `break` skips the rest of its loop's body. With `local`,
    /// an assignment to it at the top of a block ends the walk (its old value is never read), and
    /// a loop body that declares it afresh does not read the old one.
    fn unread_later(&self, reads: &dyn Fn(&Stmt) -> bool, local: Option<&str>) -> bool {
        let views = self.views();
        let mut skip_loop = false;
        for l in self.later.borrow().iter().rev() {
            if skip_loop {
                skip_loop = !l.is_loop;
                continue;
            }
            if local.is_some_and(|v| l.fresh.iter().any(|f| f == v)) {
                continue;
            }
            for st in l.stmts {
                if reads(st) || views.iter().any(|v| stmt_reads(st, v, None)) {
                    return false;
                }
                if local.is_some_and(|v| matches!(st, Stmt::Assign { var, .. } if var == v)) {
                    return true;
                }
            }
            if l.last {
                break;
            }
            skip_loop = l.exits;
        }
        true
    }

    /// `target = map(x in src: ...)`, an update of the items of `src`, a list in a local that
    /// nothing reads afterwards: `src` changed in place (`update_in_place`) and then moved to
    /// `target` (an output field, or another local), instead of a copy of every item.
    fn moved_update(&self, target: &str, value: &Expr) -> Option<String> {
        let ExprKind::Agg { kind: Agg::Map, list, .. } = &value.kind else {
            return None;
        };
        let ExprKind::Local(src) = &list.kind else {
            return None;
        };
        if target == src || !self.takeable.borrow().contains(src) || !self.dead(src, None) {
            return None;
        }
        let code = self.update_in_place(src, value)?;
        Some(format!("{code}{target} = {};\n", self.new_value(target, &self.take_local(src))))
    }

    /// A value for a `let`, `var`, assignment or `set`: a list in a local (or in a call's outcome)
    /// that nothing may read afterwards is moved out, not copied.
    fn value(&self, e: &Expr) -> String {
        let dead = |v: &str, field: Option<&str>| self.dead(v, field);
        if matches!(e.ty, Ty::List(_)) {
            match &e.kind {
                ExprKind::Local(v) if self.takeable.borrow().contains(v) && dead(v, None) => return self.take_local(v),
                // A list input read no more: the list given (no copy), or a copy of the lent one.
                ExprKind::Input(i) if self.input_dead(i) => return format!("inp.{}.take()", raw_ident(i)),
                ExprKind::Field(b, f) if matches!(b.ty, Ty::Outcome(_)) => {
                    if let ExprKind::Local(v) = &b.kind {
                        if self.takeable.borrow().contains(v) && dead(v, Some(f)) {
                            return format!("std::mem::take(&mut {v}.{})", raw_ident(f));
                        }
                    }
                }
                _ => {}
            }
        }
        self.owned_expr(e)
    }

    fn modifier(&self, m: &Mod, var: &str, ty: &Ty, base: &str, o: &mut String) {
        match m {
            Mod::One { value, name, when, cite } => {
                let v = self.num_as(value, ty);
                let apply = format!(
                    "let m: {rt} = {v}; {add}\nif T::ENABLED && m != {zero} {{ {base} trace.event(rt::Event::Modifier {{ name: {n}.to_string(), value: {mv}, cite: {c}.to_string() }}); }}",
                    rt = self.rty(ty),
                    add = self.add_assign(var, "m", ty),
                    zero = if *ty == Ty::Dec { "rt::Dec::ZERO" } else { "0" },
                    n = lit(name),
                    mv = self.to_value("m", ty),
                    c = lit(cite)
                );
                match when {
                    Some(w) => {
                        let _ = writeln!(o, "if {} {{ {apply} }}", self.expr(w));
                    }
                    None => {
                        let _ = writeln!(o, "{{ {apply} }}");
                    }
                }
            }
            Mod::Highest { name, mods } => {
                // Only the highest applicable modifier of the group counts.
                let _ = writeln!(o, "{{ let mut best: Option<({}, &'static str, &'static str)> = None;", self.rty(ty));
                for m in mods {
                    if let Mod::One { value, name, when, cite } = m {
                        let cond = when.as_ref().map(|w| self.expr(w)).unwrap_or_else(|| "true".into());
                        let _ = writeln!(
                            o,
                            "if {cond} {{ let m = {}; if best.map_or(true, |b| m > b.0) {{ best = Some((m, {}, {})); }} }}",
                            self.num_as(value, ty),
                            lit(name),
                            lit(cite)
                        );
                    }
                }
                let _ = writeln!(
                    o,
                    "if let Some((m, n, c)) = best {{ {} if T::ENABLED {{ {base} trace.event(rt::Event::Modifier {{ name: format!(\"{{}} ({})\", n), value: {}, cite: c.to_string() }}); }} }} }}",
                    self.add_assign(var, "m", ty),
                    name.replace('{', "{{").replace('}', "}}"),
                    self.to_value("m", ty)
                );
            }
        }
    }

    fn add_assign(&self, var: &str, m: &str, ty: &Ty) -> String {
        if *ty == Ty::Dec {
            format!("{var} = {var}.checked_add({m})?;")
        } else {
            format!("{var} = {var}.checked_add({m}).ok_or_else(|| rt::Error::Overflow)?;")
        }
    }

    fn num_as(&self, e: &Expr, ty: &Ty) -> String {
        if *ty == Ty::Dec && e.ty == Ty::Int {
            format!("rt::Dec::from_int({})", self.expr(e))
        } else {
            self.expr(e)
        }
    }

    /// `label` names the roll in the error for a dice count outside 0..=65535.
    fn spec(&self, d: &Dice, label: &str) -> String {
        let read = match &d.read {
            Read::Sum => "rt::Read::Sum".to_string(),
            Read::KeepHighest(k) => format!("rt::Read::KeepHighest({k})"),
            Read::KeepLowest(k) => format!("rt::Read::KeepLowest({k})"),
            Read::Flux => "rt::Read::Flux".into(),
            Read::BadFlux => "rt::Read::BadFlux".into(),
            Read::Percentile => "rt::Read::Percentile".into(),
            Read::Explode(depth) => format!("rt::Read::Explode({depth})"),
            Read::SumFloor { per_die, floor } => format!(
                "rt::Read::SumFloor {{ per_die: i8::try_from({}).map_err(|_| rt::Error::Overflow)?, floor: {floor} }}",
                self.expr(per_die)
            ),
            Read::Opposed { first_mod, second_mod, .. } => {
                let side_mod = |m: &Expr| match m.kind {
                    ExprKind::Const(Const::Int(v)) => format!("{v}"),
                    _ => format!("i32::try_from({}).map_err(|_| rt::Error::Overflow)?", self.expr(m)),
                };
                format!(
                    "rt::Read::Opposed {{ first: first_count, first_mod: {}, second_mod: {} }}",
                    side_mod(first_mod),
                    side_mod(second_mod)
                )
            }
        };
        // A computed reroll range is evaluated after the count and the read, as the fields are written.
        let reroll = match (d.const_reroll(), &d.reroll) {
            (Some(Some((a, b))), _) => format!("Some(({a}, {b}))"),
            (Some(None), _) | (None, None) => "None".into(),
            (None, Some((a, b))) => format!("Some(({}, {}))", self.expr(a), self.expr(b)),
        };
        let count_of = |e: &Expr| {
            match &e.kind {
            ExprKind::Const(Const::Int(n)) => format!("{n}"),
            _ => format!(
                "{{ let n: i64 = {}; u16::try_from(n).map_err(|_| rt::Error::Domain {{ what: format!(\"dice count {{}} is {{}} in roll `{{}}` ({{}})\", n, if n < 0 {{ \"negative\" }} else {{ \"too large\" }}, {}, {}) }})? }}",
                self.expr(e),
                lit(label),
                lit(&d.notation)
            ),
        }
        };
        let count = count_of(&d.count);
        let body = format!(
            "rt::DiceSpec {{ count: {}, sides: {}, zero_based: {}, read: {read}, reroll: {reroll} }}",
            if matches!(d.read, Read::Opposed { .. }) {
                "first_count.checked_add(second_count).ok_or(rt::Error::Overflow)?"
            } else {
                &count
            },
            d.sides,
            d.zero_based
        );
        // An opposed roll counts both sides' dice: each side's count first, then the spec.
        if let Read::Opposed { second, .. } = &d.read {
            return format!(
                "{{ let first_count: u16 = {count}; let second_count: u16 = {}; {body} }}",
                count_of(second)
            );
        }
        if body.contains('?') || d.const_reroll().is_none() {
            return format!("({body})");
        }
        let mut specs = self.specs.borrow_mut();
        let text = |i: usize| format!("const SPEC_{i}: rt::DiceSpec = {body};");
        if let Some(i) = (0..specs.len()).find(|&i| specs[i] == text(i)) {
            return format!("SPEC_{i}");
        }
        let i = specs.len();
        specs.push(text(i));
        format!("SPEC_{i}")
    }

    // ------------------------------------------------------------ expressions
    fn plain_int(&self, e: &Expr) -> bool {
        e.iv.known && e.iv.fits_i64()
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(c) => self.konst(c, &e.ty, false),
            ExprKind::Local(v) => {
                if let Some(inl) = self.inlined.borrow().get(v).copied() {
                    return self.expr(inl);
                }
                // A lazy copy (a `Cow`) reads as the slice it holds, as a list input does: it
                // compares with any other list.
                if self.ref_locals.borrow().contains(v) || self.lazy_locals.borrow().contains_key(v) {
                    format!("(*{v})")
                } else {
                    v.clone()
                }
            }
            // The body reads its arguments (`RtArgs…`), where an input that is not `Copy` is a
            // reference to the caller's value.
            ExprKind::Input(n) => {
                if is_copy(&e.ty) {
                    format!("inp.{}", raw_ident(n))
                } else {
                    format!("(*inp.{})", raw_ident(n))
                }
            }
            ExprKind::Output(n) => format!("out.{}", raw_ident(n)),
            ExprKind::KeyCol {
                key,
                tables,
                column,
                optional,
            } => {
                let id = self.key_col_id(tables, column);
                if *optional {
                    let code = format!(
                        "(match {} {{ Some(k) => Some(key_col_{id}(k)?), None => None }}){}",
                        self.expr(key),
                        self.flatten_suffix(tables, column)
                    );
                    from_static(&code, &e.ty)
                } else {
                    from_static(&format!("key_col_{id}({})?", self.expr(key)), &e.ty)
                }
            }
            ExprKind::KeyName { key, optional } => {
                if *optional {
                    format!("({}).map(|k| rt::Text::Static(k.name))", self.expr(key))
                } else {
                    format!("rt::Text::Static(({}).name)", self.expr(key))
                }
            }
            ExprKind::Field(b, f) => {
                if let Ty::Opt(inner) = &b.ty {
                    // A field of a record that may be none is itself none then.
                    let field_ty = match &e.ty {
                        Ty::Opt(x) => (**x).clone(),
                        x => x.clone(),
                    };
                    let inner_code = self.owned(&format!("r.{}", raw_ident(f)), &field_ty);
                    let nested_opt = matches!(&**inner, Ty::Rec(ri) if self.sys.records[*ri].fields.iter().any(|(n, t, _)| n == f && matches!(t, Ty::Opt(_))));
                    // Read through a reference to the record where one can be had: only the field
                    // is copied, not the record (and the records it is in).
                    if let Some(r) = self.opt_ref(b) {
                        let step = if nested_opt { "and_then" } else { "map" };
                        return format!("({r}).{step}(|r| {inner_code})");
                    }
                    return if nested_opt {
                        format!("({}).as_ref().and_then(|r| {inner_code})", self.expr(b))
                    } else {
                        format!("({}).as_ref().map(|r| {inner_code})", self.expr(b))
                    };
                }
                let code = format!("{}.{}", self.expr(b), raw_ident(f));
                if matches!(b.ty, Ty::Row(_)) {
                    from_static(&code, &e.ty)
                } else {
                    code
                }
            }
            ExprKind::Lookup { table, args } => {
                let t = &self.sys.tables[*table];
                // Arguments are evaluated first: one of them may itself look up a table (and use `trace`).
                let lets: Vec<String> = args
                    .iter()
                    .enumerate()
                    .map(|(i, x)| format!("let a{i} = {};", self.expr(x)))
                    .collect();
                let names: Vec<String> = (0..args.len()).map(|i| format!("a{i}")).collect();
                let code = format!("{{ {} lookup_{}(trace, {})? }}", lets.join(" "), t.name, names.join(", "));
                if t.result.is_some() {
                    from_static(&code, &e.ty)
                } else {
                    code
                }
            }
            ExprKind::Func(f, args) => {
                let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
                let is_dec = args.first().is_some_and(|x| x.ty == Ty::Dec);
                match f {
                    Func::Floor => {
                        if is_dec {
                            format!("({}).floor()", a[0])
                        } else {
                            a[0].clone()
                        }
                    }
                    Func::Ceil => {
                        if is_dec {
                            format!("({}).ceil()", a[0])
                        } else {
                            a[0].clone()
                        }
                    }
                    Func::Round => {
                        if is_dec {
                            format!("({}).round_half_up()", a[0])
                        } else {
                            a[0].clone()
                        }
                    }
                    Func::Abs => {
                        if is_dec {
                            format!("{{ let a = {}; if a < rt::Dec::ZERO {{ a.checked_neg()? }} else {{ a }} }}", a[0])
                        } else {
                            format!("({}).checked_abs().ok_or_else(|| rt::Error::Overflow)?", a[0])
                        }
                    }
                    Func::Sqrt => format!("rt::isqrt({})?", a[0]),
                    Func::SqrtPlaces(p) => format!("rt::dec_sqrt({}, {p})?", a[0]),
                    Func::Len => format!("(({}).len() as i64)", a[0]),
                    Func::Min => a.iter().skip(1).fold(a[0].clone(), |acc, x| format!("std::cmp::min({acc}, {x})")),
                    Func::Max => a.iter().skip(1).fold(a[0].clone(), |acc, x| format!("std::cmp::max({acc}, {x})")),
                    Func::Clamp => format!(
                        "std::cmp::min(std::cmp::max({}, {}), std::cmp::max({}, {}))",
                        a[0], a[1], a[1], a[2]
                    ),
                }
            }
            ExprKind::Agg { kind, var, list, body } => {
                // Over the items of a place, or of a filtered or sorted view of one: references.
                if let Some(items) = self.ref_items(list) {
                    self.ref_locals.borrow_mut().insert(var.clone());
                    return self.agg_code(*kind, var, &items, body, &format!("{var}.clone()"));
                }
                let l = self.expr(list);
                let elem = match &list.ty {
                    Ty::List(t) => (**t).clone(),
                    _ => Ty::Error,
                };
                // Copy elements are iterated by value, others in place by reference (cloned only
                // when kept).
                let it = if is_copy(&elem) {
                    ".iter().copied()"
                } else {
                    self.ref_locals.borrow_mut().insert(var.clone());
                    self.place_iter(list)
                };
                let keep = if is_copy(&elem) { var.clone() } else { format!("{var}.clone()") };
                self.agg_code(*kind, var, &format!("({l}){it}"), body, &keep)
            }
            ExprKind::Neg(x) => {
                if x.ty == Ty::Dec {
                    format!("({}).checked_neg()?", self.expr(x))
                } else if self.plain_int(x) && self.plain_int(e) {
                    format!("(-({}))", self.expr(x))
                } else {
                    format!("({}).checked_neg().ok_or_else(|| rt::Error::Overflow)?", self.expr(x))
                }
            }
            ExprKind::Not(x) => format!("(!({}))", self.expr(x)),
            ExprKind::Bin(op, a, b) => self.bin(*op, a, b, e),
            ExprKind::Cmp(op, a, b) => {
                // An optional value against a value that is not (made optional, `Some(...)`):
                // compared by reference, without copying the value.
                if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    fn some_of(e: &Expr) -> Option<&Expr> {
                        match &e.kind {
                            ExprKind::Some(x) if !is_copy(&x.ty) => Some(x),
                            _ => None,
                        }
                    }
                    let pair = match (some_of(a), some_of(b)) {
                        (None, Some(y)) if matches!(a.ty, Ty::Opt(_)) => Some((&**a, y)),
                        (Some(x), None) if matches!(b.ty, Ty::Opt(_)) => Some((&**b, x)),
                        _ => None,
                    };
                    if let Some((opt, val)) = pair {
                        let (o, v) = (self.expr(opt), self.expr(val));
                        return format!("((({o}).as_ref()) {} (Some(&{v})))", op.symbol());
                    }
                }
                let (x, y) = (self.expr(a), self.expr(b));
                match (&a.ty, &b.ty, op) {
                    (Ty::Opt(_), _, CmpOp::Eq | CmpOp::Ne) | (_, Ty::Opt(_), CmpOp::Eq | CmpOp::Ne) => {
                        format!("(({x}) {} ({y}))", op.symbol())
                    }
                    (Ty::Key(_), Ty::Key(_), CmpOp::Eq) => format!("rt_key_eq({x}, {y})"),
                    (Ty::Key(_), Ty::Key(_), CmpOp::Ne) => format!("(!rt_key_eq({x}, {y}))"),
                    _ => format!("(({x}) {} ({y}))", op.symbol()),
                }
            }
            ExprKind::In(x, list) => {
                let xs = self.expr(x);
                let ls = self.expr(list);
                match &x.ty {
                    Ty::Opt(_) => {
                        format!("(match {xs} {{ Some(v) => ({ls}).contains(&v), None => false }})")
                    }
                    _ => format!("({ls}).contains(&{xs})"),
                }
            }
            ExprKind::Is(x, tables) => {
                let ids: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
                match &x.ty {
                    Ty::Opt(_) => format!(
                        "(match {} {{ Some(k) => matches!(k.table, {}), None => false }})",
                        self.expr(x),
                        ids.join(" | ")
                    ),
                    _ => format!("matches!(({}).table, {})", self.expr(x), ids.join(" | ")),
                }
            }
            ExprKind::If(arms, otherwise) => {
                let mut s = String::new();
                for (i, (c, v)) in arms.iter().enumerate() {
                    let _ = write!(
                        s,
                        "{}if {} {{ {} }}",
                        if i == 0 { "" } else { " else " },
                        self.expr(c),
                        self.owned_expr(v)
                    );
                }
                let _ = write!(s, " else {{ {} }}", self.owned_expr(otherwise));
                format!("({s})")
            }
            ExprKind::ToDec(x) => format!("rt::Dec::from_int({})", self.expr(x)),
            ExprKind::Construct { rec, fields } => {
                let r = &self.sys.records[*rec];
                let mut code = String::from("{ ");
                for (i, (_, x)) in fields.iter().enumerate() {
                    let _ = write!(code, "let f{i} = {}; ", self.owned_expr(x));
                }
                code.push_str(&self.field_checks(r, fields.iter().enumerate().map(|(i, (n, _))| (n.as_str(), format!("f{i}")))));
                let inits: Vec<String> = fields
                    .iter()
                    .enumerate()
                    .map(|(i, (n, x))| format!("{}: {}", raw_ident(n), into_field(format!("f{i}"), &x.ty)))
                    .collect();
                let _ = write!(code, "{} {{ {} }} }}", camel(&r.name), inits.join(", "));
                code
            }
            ExprKind::With { base, rec, updates } => {
                let r = &self.sys.records[*rec];
                // Every new value is computed from the old record before any field changes.
                let mut code = String::from("{ ");
                for (i, (_, x)) in updates.iter().enumerate() {
                    let _ = write!(code, "let u{i} = {}; ", self.owned_expr(x));
                }
                code.push_str(&self.field_checks(r, updates.iter().enumerate().map(|(i, (n, _))| (n.as_str(), format!("u{i}")))));
                if !is_fresh(base) && !is_copy(&base.ty) {
                    // A record read in place: copy only the fields that keep their value.
                    let _ = write!(code, "let rt_base = &{}; ", self.expr(base));
                    let inits: Vec<String> = r
                        .fields
                        .iter()
                        .map(|(n, t, _)| match updates.iter().position(|(u, _)| u == n) {
                            Some(i) => format!("{}: {}", raw_ident(n), into_field(format!("u{i}"), t)),
                            // A list field is shared, not copied item by item (`rt::List`).
                            None if matches!(t, Ty::List(_)) => format!("{}: rt_base.{}.clone()", raw_ident(n), raw_ident(n)),
                            None => format!("{}: {}", raw_ident(n), self.owned(&format!("rt_base.{}", raw_ident(n)), t)),
                        })
                        .collect();
                    let _ = write!(code, "{} {{ {} }} }}", camel(&r.name), inits.join(", "));
                    return code;
                }
                let _ = write!(code, "let mut r = {}; ", self.owned_expr(base));
                for (i, (n, x)) in updates.iter().enumerate() {
                    let _ = write!(code, "r.{} = {}; ", raw_ident(n), into_field(format!("u{i}"), &x.ty));
                }
                code.push_str("r }");
                code
            }
            ExprKind::Some(x) => format!("Some({})", self.owned_expr(x)),
            ExprKind::List(items) => format!("vec![{}]", items.iter().map(|x| self.owned_expr(x)).collect::<Vec<_>>().join(", ")),
        }
    }

    /// An aggregate over `items`, an iterator expression; `keep` is an item's owned copy.
    fn agg_code(&self, kind: Agg, var: &str, items: &str, body: &Expr, keep: &str) -> String {
        let dec = body.ty == Ty::Dec;
        let b = self.expr(body);
        match kind {
            Agg::Map => {
                let pushed = if is_fresh(body) { b.clone() } else { self.owned(&b, &body.ty) };
                // As many items as the list has: one allocation.
                return format!("{{ match {items} {{ rt_items => {{ let mut acc = Vec::with_capacity(rt::room(&rt_items)); for {var} in rt_items {{ acc.push({pushed}); }} acc }} }} }}");
            }
            Agg::Filter => {
                // Room for every item (up to 64) at the first one kept; none kept, no allocation.
                return format!("{{ match {items} {{ rt_items => {{ let rt_room = rt::room(&rt_items).min(64); let mut acc = Vec::new(); for {var} in rt_items {{ if {b} {{ if acc.capacity() == 0 {{ acc.reserve_exact(rt_room); }} acc.push({keep}); }} }} acc }} }} }}");
            }
            Agg::First => {
                return format!("{{ let mut acc = None; for {var} in {items} {{ if {b} {{ acc = Some({keep}); break; }} }} acc }}")
            }
            Agg::Sort | Agg::SortDesc => {
                let cmp = if matches!(kind, Agg::Sort) {
                    "a.0.cmp(&b.0)"
                } else {
                    "b.0.cmp(&a.0)"
                };
                // Items read by reference are sorted as references and copied once, in order: a
                // large item (a unit) moved at every step of the sort was a large copy.
                let take = if keep == var { "x" } else { "x.clone()" };
                return format!("{{ match {items} {{ rt_items => {{ let mut keyed = Vec::with_capacity(rt::room(&rt_items)); for {var} in rt_items {{ keyed.push(({b}, {var})); }} keyed.sort_by(|a, b| {cmp}); keyed.into_iter().map(|(_, x)| {take}).collect::<Vec<_>>() }} }} }}");
            }
            _ => {}
        }
        match kind {
            Agg::Sum => {
                if dec {
                    format!("{{ let mut acc = rt::Dec::ZERO; for {var} in {items} {{ acc = acc.checked_add({b})?; }} acc }}")
                } else {
                    format!("{{ let mut acc: i64 = 0; for {var} in {items} {{ acc = acc.checked_add({b}).ok_or_else(|| rt::Error::Overflow)?; }} acc }}")
                }
            }
            Agg::Product => {
                if dec {
                    format!("{{ let mut acc = rt::Dec::ONE; for {var} in {items} {{ acc = acc.checked_mul({b})?; }} acc }}")
                } else {
                    format!("{{ let mut acc: i64 = 1; for {var} in {items} {{ acc = acc.checked_mul({b}).ok_or_else(|| rt::Error::Overflow)?; }} acc }}")
                }
            }
            Agg::Count => {
                format!("{{ let mut acc: i64 = 0; for {var} in {items} {{ if {b} {{ acc += 1; }} }} acc }}")
            }
            Agg::Any => {
                format!("{{ let mut acc = false; for {var} in {items} {{ if {b} {{ acc = true; break; }} }} acc }}")
            }
            Agg::All => format!("{{ let mut acc = true; for {var} in {items} {{ if !({b}) {{ acc = false; break; }} }} acc }}"),
            Agg::Map | Agg::Filter | Agg::First | Agg::Sort | Agg::SortDesc => String::new(),
            Agg::Max | Agg::Min => {
                let (zero, cmp) = (
                    if dec { "rt::Dec::ZERO" } else { "0i64" },
                    if matches!(kind, Agg::Max) { ">" } else { "<" },
                );
                format!("{{ let mut acc = None; for {var} in {items} {{ let x = {b}; if acc.map_or(true, |a| x {cmp} a) {{ acc = Some(x); }} }} acc.unwrap_or({zero}) }}")
            }
        }
    }

    /// How to go through the items of a list place by reference: a view local holds references
    /// already.
    fn place_iter(&self, list: &Expr) -> &'static str {
        match &list.kind {
            ExprKind::Local(v) if self.view_locals.borrow().contains(v) => ".iter().copied()",
            _ => ".iter()",
        }
    }

    /// The expression a local written in place stands for (`inlined`), followed through; any
    /// other expression as it is.
    fn resolve<'e>(&self, e: &'e Expr) -> &'e Expr
    where
        'a: 'e,
    {
        let mut e = e;
        while let ExprKind::Local(v) = &e.kind {
            match self.inlined.borrow().get(v).copied() {
                Some(x) => e = x,
                None => break,
            }
        }
        e
    }

    /// The locals an expression reads, through the locals written in place (`inlined`).
    fn roots(&self, e: &Expr) -> Vec<String> {
        let mut out = Vec::new();
        for v in locals_of(e) {
            match self.inlined.borrow().get(v).copied() {
                Some(x) => out.extend(self.roots(x)),
                None => out.push(v.to_string()),
            }
        }
        out
    }

    /// Can `let var = value` be written where it is read instead (`inlined`)? The value is a view
    /// (`viewable`), outside a forward pass; the statement right after is a `let` or `set` that
    /// reads `var` once, as the first thing it works out (`spine_reads`): the list of an aggregate
    /// (or of one inside it), a field of such an aggregate, the left of `??`. Nothing else may
    /// read it. The value is then worked out at the same moment and as often as before, so traces
    /// and errors are unchanged, and no list of references is made for it: `first(sort(...))`
    /// becomes one pass (`first_of_sorted`).
    fn inlined_view(&self, var: &str, value: &Expr) -> bool {
        if self.fwd.get() || !self.viewable(var, value) {
            return false;
        }
        let later = self.later.borrow();
        let Some(rest) = later.last().map(|l| l.stmts) else {
            return false;
        };
        let Some((next, after)) = rest.split_first() else {
            return false;
        };
        let value = match next {
            Stmt::Let { value, .. } | Stmt::Set { value, .. } => value,
            _ => return false,
        };
        if !spine_reads(value, var) || reads_count(value, var) != 1 || after.iter().any(|s| stmt_reads(s, var, None)) {
            return false;
        }
        // Outer blocks cannot name a local of this one; a loop around runs the `let` again first.
        true
    }

    /// Can `let var = value` bind a view (see `view_locals`)? The value is a filtered or sorted
    /// view of records in lists nothing assigns while it may be read, and everything that may
    /// still run reads `var` only as a list to go through (an aggregate's or a loop's list, or
    /// `len`).
    fn viewable(&self, var: &str, value: &Expr) -> bool {
        let ExprKind::Agg { kind, list, .. } = &value.kind else {
            return false;
        };
        if !matches!(kind, Agg::Filter | Agg::Sort | Agg::SortDesc) || !matches!(&list.ty, Ty::List(t) if matches!(**t, Ty::Rec(_))) {
            return false;
        }
        // A list a last read may move out (`takeable`) must not be read again at all: the move
        // would not see that the view still borrows it.
        let roots = self.roots(value);
        let takeable = self.takeable.borrow();
        for l in self.later.borrow().iter().rev() {
            for st in l.stmts {
                let changes = |r: &String| assigns(std::slice::from_ref(st), r) || (takeable.contains(r) && stmt_reads(st, r, None));
                if roots.iter().any(changes) || !stmt_views_only(st, var) {
                    return false;
                }
            }
        }
        true
    }

    /// `Option<&T>` code for an expression of type `T?`, `T` a record, that can be read in place:
    /// `first(...)` over a place or a view of one, or a record field of such a value
    /// (`first(x in fs: ...).u`). None for anything else.
    fn opt_ref(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Agg {
                kind: Agg::First,
                var,
                list,
                body,
            } => {
                if !matches!(&list.ty, Ty::List(t) if matches!(**t, Ty::Rec(_))) {
                    return None;
                }
                let fused = self.first_of_sorted(var, list, body);
                if let Some((code, true)) = fused {
                    return Some(code);
                }
                let items = self.items_in_place(list)?;
                self.ref_locals.borrow_mut().insert(var.clone());
                let b = self.expr(body);
                let plain = format!("{{ let mut acc = None; for {var} in {items} {{ if {b} {{ acc = Some({var}); break; }} }} acc }}");
                Some(match fused {
                    // Not tracing, the one pass first; should it fail, the plain way gives the
                    // error (or the answer) the rules' order of work gives.
                    Some((fast, _)) => format!(
                        "{{ let rt_fast = if T::ENABLED {{ None }} else {{ (|| Ok::<_, rt::Error>({fast}))().ok() }}; match rt_fast {{ Some(r) => r, None => {plain} }} }}"
                    ),
                    None => plain,
                })
            }
            ExprKind::Field(b, f) if matches!(&e.ty, Ty::Opt(t) if matches!(**t, Ty::Rec(_))) => {
                let Ty::Opt(inner) = &b.ty else {
                    return None;
                };
                let Ty::Rec(ri) = &**inner else {
                    return None;
                };
                let r = self.opt_ref(b)?;
                let optional = self.sys.records[*ri]
                    .fields
                    .iter()
                    .any(|(n, t, _)| n == f && matches!(t, Ty::Opt(_)));
                Some(if optional {
                    format!("({r}).and_then(|r| r.{}.as_ref())", raw_ident(f))
                } else {
                    format!("({r}).map(|r| &r.{})", raw_ident(f))
                })
            }
            _ => None,
        }
    }

    /// `first(x in sort(y in ys: key): cond)` (or `sort_desc`) in one pass, without sorting: the
    /// item with the least (greatest) key among those meeting `cond`, the earliest of equal keys
    /// as the stable sort would put first. Sorts of sorts compare by their keys together, the
    /// last sort's first (`sort(sort(xs: k1): k2)` orders by k2, then k1, then place), and
    /// filters under the sorts are tested in the same pass: `first(sort(sort(filter(...))))` makes
    /// no list at all.
    ///
    /// The pass works out every filter condition, every key and `cond` for every item, in the
    /// list's order. With the boolean `true`, that is the order the rules' own evaluation takes
    /// for everything that can fail or trace (`cannot_fail`): at most one of the filters'
    /// conditions and the first sort's key can, and nothing else. With `false`, the caller runs the pass only when
    /// not tracing, and goes the plain way if it fails: the plain way works out no more than the
    /// pass, so a pass that succeeds gives its answer.
    fn first_of_sorted(&self, var: &str, list: &Expr, cond: &Expr) -> Option<(String, bool)> {
        // The sorts, the last one first, then the filters under them, the last one first.
        let mut sorts: Vec<(bool, &str, &Expr)> = Vec::new();
        let mut cur = self.resolve(list);
        while let ExprKind::Agg {
            kind: kind @ (Agg::Sort | Agg::SortDesc),
            var: svar,
            list: inner,
            body: key,
        } = &cur.kind
        {
            sorts.push((matches!(kind, Agg::SortDesc), svar, key));
            cur = self.resolve(inner);
        }
        if sorts.is_empty() {
            return None;
        }
        let mut filters: Vec<(&str, &Expr)> = Vec::new();
        while let ExprKind::Agg {
            kind: Agg::Filter,
            var: fvar,
            list: inner,
            body: keep,
        } = &cur.kind
        {
            if matches!(&inner.ty, Ty::List(t) if is_copy(t)) {
                break;
            }
            filters.push((fvar, keep));
            cur = self.resolve(inner);
        }
        let items = self.items_in_place(cur)?;
        let first_stage = filters.iter().map(|(_, c)| *c).chain(sorts.last().map(|(_, _, k)| *k));
        let exact = cannot_fail(cond)
            && sorts[..sorts.len() - 1].iter().all(|(_, _, k)| cannot_fail(k))
            && first_stage.filter(|e| !cannot_fail(e)).count() <= 1;
        let mut body = String::new();
        for (fvar, keep) in filters.iter().rev() {
            self.ref_locals.borrow_mut().insert(fvar.to_string());
            let c = self.expr(keep);
            let _ = write!(body, "let {fvar} = rt_x; if !({c}) {{ continue; }} ");
        }
        let mut keys = Vec::new();
        for (i, (desc, svar, key)) in sorts.iter().rev().enumerate() {
            self.ref_locals.borrow_mut().insert(svar.to_string());
            let k = self.expr(key);
            let _ = write!(body, "let {svar} = rt_x; let rt_k{i} = {k}; ");
            keys.push(if *desc {
                format!("std::cmp::Reverse(rt_k{i})")
            } else {
                format!("rt_k{i}")
            });
        }
        keys.reverse();
        let key = if keys.len() == 1 {
            keys.remove(0)
        } else {
            format!("({})", keys.join(", "))
        };
        self.ref_locals.borrow_mut().insert(var.to_string());
        let c = self.expr(cond);
        Some((
            format!(
                "{{ let mut rt_best: Option<(_, &_)> = None; for rt_x in {items} {{ {body}let rt_key = {key}; let {var} = rt_x; if {c} && rt_best.as_ref().is_none_or(|(b, _)| rt_key < *b) {{ rt_best = Some((rt_key, {var})); }} }} rt_best.map(|(_, x)| x) }}"
            ),
            exact,
        ))
    }

    /// References to the items of a list that is a place or a view of one (`ref_items`), as an
    /// iterator expression.
    fn items_in_place(&self, list: &Expr) -> Option<String> {
        let list = self.resolve(list);
        if is_place(list) {
            Some(format!("({}){}", self.expr(list), self.place_iter(list)))
        } else {
            self.ref_items(list)
        }
    }

    /// A loop's `filter(x in list: cond)` of a place (or of a view of one) whose condition can
    /// neither fail nor trace nor read an output, as the item's local, the items to go through
    /// (views inside it made as lists first) and the condition; `None` for any other list. The
    /// caller checks that the loop's body changes no local the list reads.
    fn filter_as_it_goes(&self, list: &Expr) -> Option<(String, String, String)> {
        let ExprKind::Agg {
            kind: Agg::Filter,
            var,
            list: inner,
            body: cond,
        } = &list.kind
        else {
            return None;
        };
        if matches!(&inner.ty, Ty::List(t) if is_copy(t)) || !cannot_fail(cond) || reads_output(cond) {
            return None;
        }
        let eager = self.eager_views.replace(true);
        let items = self.items_in_place(inner);
        self.eager_views.set(eager);
        let items = items?;
        self.ref_locals.borrow_mut().insert(var.clone());
        Some((var.clone(), items, self.expr(cond)))
    }

    /// References to the items of a filtered or sorted view (`filter(...)`, `sort(...)`) of a
    /// place or of another such view, as an iterator expression: an aggregate or loop over it
    /// reads the items where they are instead of copying each.
    fn ref_items(&self, list: &Expr) -> Option<String> {
        let list = self.resolve(list);
        let ExprKind::Agg {
            kind,
            var,
            list: inner,
            body,
        } = &list.kind
        else {
            return None;
        };
        if !matches!(kind, Agg::Filter | Agg::Sort | Agg::SortDesc) || matches!(&inner.ty, Ty::List(t) if is_copy(t)) {
            return None;
        }
        let items = self.items_in_place(inner)?;
        self.ref_locals.borrow_mut().insert(var.clone());
        let b = self.expr(body);
        Some(match kind {
            // A condition that can neither fail nor trace, read by an aggregate that takes the
            // items at once: tested as each item comes, with no list of them made first.
            Agg::Filter if cannot_fail(body) && !self.eager_views.get() => {
                format!("({items}).filter(|rt_item| {{ let {var}: &_ = *rt_item; {b} }})")
            }
            Agg::Filter => {
                format!("{{ let mut acc: Vec<&_> = Vec::new(); for {var} in {items} {{ if {b} {{ acc.push({var}); }} }} acc }}.into_iter()")
            }
            // A key that can neither fail nor trace: no list made for items in order already.
            _ if cannot_fail(body) => format!("rt::sorted_view({items}, |{var}| {b}, {})", matches!(kind, Agg::SortDesc)),
            _ => {
                let cmp = if matches!(kind, Agg::Sort) {
                    "a.0.cmp(&b.0)"
                } else {
                    "b.0.cmp(&a.0)"
                };
                format!("{{ let rt_items = {items}; let mut keyed: Vec<(_, &_)> = Vec::with_capacity(rt::room(&rt_items)); for {var} in rt_items {{ keyed.push(({b}, {var})); }} keyed.sort_by(|a, b| {cmp}); keyed.into_iter().map(|(_, x)| x) }}")
            }
        })
    }

    fn flatten_suffix(&self, tables: &[usize], column: &str) -> String {
        // A column that is itself optional, read through an optional key, is flattened to one level.
        let t0 = &self.sys.tables[tables[0]];
        match t0.columns.iter().find(|(n, _)| n == column) {
            Some((_, Ty::Opt(_))) => ".flatten()".into(),
            _ => String::new(),
        }
    }

    fn bin(&self, op: BinOp, a: &Expr, b: &Expr, e: &Expr) -> String {
        let (x, y) = (self.expr(a), self.expr(b));
        match op {
            BinOp::And => format!("({x} && {y})"),
            BinOp::Or => format!("({x} || {y})"),
            // The fallback is evaluated only when needed (`docs/dsl.md`, "Optional values"): a
            // `match`, not `unwrap_or`, and not a closure, since the fallback may return an error
            // from the resolver; by reference where the value is not `Copy`, so a value inside an
            // input or record is cloned, not moved.
            BinOp::Coalesce => {
                let copy = is_copy(&e.ty);
                let v = if copy { "v" } else { "v.clone()" };
                let (some, fallback) = if matches!(b.ty, Ty::Opt(_)) {
                    // Both optional: the first that is set.
                    (format!("Some({v})"), self.owned(&y, &b.ty))
                } else if e.ty == Ty::Dec && a.ty == Ty::Opt(Box::new(Ty::Int)) {
                    // `int? ?? decimal`: the whole number, when set, as an exact decimal.
                    (format!("rt::Dec::from_int({v})"), y)
                } else {
                    (v.to_string(), self.owned(&y, &e.ty))
                };
                let scrutinee = if copy { x } else { format!("&{x}") };
                format!("(match {scrutinee} {{ Some(v) => {some}, None => {fallback} }})")
            }
            BinOp::Add if matches!(e.ty, Ty::List(_)) => {
                // Lists built for the sum are taken as they are; lists in places are copied.
                let first = if is_fresh(a) { x } else { format!("({x}).to_vec()") };
                let more = if is_fresh(b) { y } else { format!("({y}).iter().cloned()") };
                format!("{{ let mut v = {first}; v.extend({more}); rt::list_room(v.len())?; v }}")
            }
            _ if e.ty == Ty::Dec => {
                let m = match op {
                    BinOp::Add => "checked_add",
                    BinOp::Sub => "checked_sub",
                    BinOp::Mul => "checked_mul",
                    _ => "checked_div",
                };
                format!("({x}).{m}({y})?")
            }
            _ => {
                let plain = self.plain_int(a) && self.plain_int(b) && self.plain_int(e);
                let (sym, m) = match op {
                    BinOp::Add => ("+", "checked_add"),
                    BinOp::Sub => ("-", "checked_sub"),
                    BinOp::Mul => ("*", "checked_mul"),
                    _ => ("%", "checked_rem_euclid"),
                };
                if plain && op != BinOp::Rem {
                    format!("({x} {sym} {y})")
                } else if op == BinOp::Rem {
                    format!("rt::rem({x}, {y})?")
                } else {
                    format!("({x}).{m}({y}).ok_or_else(|| rt::Error::Overflow)?")
                }
            }
        }
    }

    // ------------------------------------------------------------ registry
    fn registry(&self) -> String {
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
            let ins: Vec<String> = r
                .inputs
                .iter()
                .map(|p| {
                    let ty = self.registry_ty(&p.ty, p.bounds, &mut statics);
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
                    let ty = self.registry_ty(&p.ty, None, &mut statics);
                    format!("rt::FieldInfo {{ name: {}, ty: &{ty}, doc: {} }}", lit(&p.name), lit(&p.doc))
                })
                .collect();
            resolvers.push(format!(
                "rt::ResolverInfo {{ name: {n}, title: {}, cite: {}, doc: {}, inputs: &[{}], outputs: &[{}], exec: rt::compiled::<{}Inputs>({}) }}",
                lit(&r.title),
                lit(&r.cite),
                lit(&format!("{}:{}", r.source, r.line)),
                ins.join(", "),
                outs.join(", "),
                camel(&r.name),
                if self.chainable(r) { format!("Some(chain_{})", r.name) } else { "None".to_string() },
                n = lit(&r.name)
            ));
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

    fn ty_text(&self, t: &Ty) -> String {
        self.sys.ty_text(t)
    }

    fn const_text(&self, c: &Const) -> String {
        self.sys.const_text(c)
    }
}

/// A value read from a static table row, as the expression type (static text becomes `rt::Text`).
fn from_static(code: &str, t: &Ty) -> String {
    match t {
        Ty::Text => format!("rt::Text::Static({code})"),
        Ty::Opt(i) if **i == Ty::Text => format!("({code}).map(rt::Text::Static)"),
        Ty::List(i) if **i == Ty::Text => format!("({code}).iter().map(|s| rt::Text::Static(*s)).collect::<Vec<_>>()"),
        _ => code.to_string(),
    }
}

/// Is this expression's code a value built for it (a record, a list, a choice between owned
/// values), rather than a place or a table's static data, which must be copied to be kept?
fn is_fresh(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Construct { .. } | ExprKind::With { .. } | ExprKind::List(_) | ExprKind::If(..) | ExprKind::Some(_) => true,
        ExprKind::Agg { kind, .. } => matches!(kind, Agg::Map | Agg::Filter | Agg::Sort | Agg::SortDesc | Agg::First),
        ExprKind::Bin(BinOp::Add, _, _) => matches!(e.ty, Ty::List(_)),
        ExprKind::Bin(BinOp::Coalesce, _, _) => true,
        // A field of a record that may be none: `.as_ref().map(|r| r.f.clone())`.
        ExprKind::Field(b, _) => matches!(b.ty, Ty::Opt(_)),
        _ => false,
    }
}

/// Is this expression's code a place (a local, an input, a field of one), which can be lent?
fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Input(_) => true,
        ExprKind::Field(b, _) => matches!(b.ty, Ty::Rec(_) | Ty::Outcome(_)) && is_place(b),
        _ => false,
    }
}

/// Can the statement end the block it is in early: a `return` anywhere inside, or a `break` not
/// inside a loop of its own?
fn may_leave(s: &Stmt) -> bool {
    fn returns(s: &Stmt) -> bool {
        matches!(s, Stmt::Return) || s.blocks().iter().any(|b| b.iter().any(returns))
    }
    match s {
        Stmt::Return | Stmt::Break => true,
        Stmt::For { .. } | Stmt::Repeat { .. } => returns(s),
        _ => s.blocks().iter().any(|b| b.iter().any(may_leave)),
    }
}

/// What may still run after a statement (`Gen::later`): statements, the locals they declare
/// afresh (a loop body's, on its next run), and whether nothing runs after them (a `return`).
struct Later<'a> {
    stmts: &'a [Stmt],
    fresh: Vec<String>,
    last: bool,
    /// A `break` follows `stmts`: the loop around ends there (its body does not run again).
    exits: bool,
    /// The body of a loop, which may run again.
    is_loop: bool,
}

/// Does the statement (or any inside it) read the local `var`, or, given `field`, read that field
/// of it or the whole of it (reading another field does not count)? Assigning it counts too.
/// The outputs `Gen::deferred` holds for a resolver's body: each set at the top level of the
/// body to a list input (`set fighters = fighters`), always to the same input, and read back by no
/// expression. Such an output is written as a flag: the input is copied into it at the end only
/// if no other `set` has replaced it by then, which saves the copy on every path that does.
fn deferred_sets(body: &[Stmt]) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, Option<String>> = BTreeMap::new();
    for s in body {
        if let Stmt::Set { field, value, .. } = s {
            if let (ExprKind::Input(i), Ty::List(_)) = (&value.kind, &value.ty) {
                let slot = found.entry(field.clone()).or_insert_with(|| Some(i.clone()));
                if slot.as_deref() != Some(i.as_str()) {
                    *slot = None;
                }
            }
        }
    }
    let mut todo: Vec<&Stmt> = body.iter().collect();
    while let Some(s) = todo.pop() {
        let mut exprs = s.exprs();
        while let Some(e) = exprs.pop() {
            if let ExprKind::Output(f) = &e.kind {
                found.remove(f);
            }
            exprs.extend(e.children());
        }
        for b in s.blocks() {
            todo.extend(b.iter());
        }
    }
    found.into_iter().filter_map(|(f, i)| Some((f, i?))).collect()
}

/// Can this expression neither fail nor write to the trace: made only of values, fields,
/// comparisons, `and`, `or`, `not` and `is`? (No lookup, arithmetic, call or record built.)
fn cannot_fail(e: &Expr) -> bool {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        let ok = matches!(
            &x.kind,
            ExprKind::Const(_)
                | ExprKind::Local(_)
                | ExprKind::Input(_)
                | ExprKind::Output(_)
                | ExprKind::Field(..)
                | ExprKind::Cmp(..)
                | ExprKind::Bin(BinOp::And | BinOp::Or, ..)
                | ExprKind::Not(_)
                | ExprKind::Is(..)
        );
        if !ok {
            return false;
        }
        todo.extend(x.children());
    }
    true
}

/// The fields of the local `var` that `body` reads, when it reads `var` only field by field
/// (`var.f`); `None` when it reads or assigns `var` whole anywhere.
fn fields_read(body: &[Stmt], var: &str) -> Option<BTreeSet<String>> {
    fn in_expr(e: &Expr, var: &str, read: &mut BTreeSet<String>) -> bool {
        let mut todo = vec![e];
        while let Some(x) = todo.pop() {
            match &x.kind {
                ExprKind::Local(v) if v == var => return false,
                ExprKind::Field(b, g) if matches!(&b.kind, ExprKind::Local(v) if v == var) => {
                    read.insert(g.clone());
                }
                _ => todo.extend(x.children()),
            }
        }
        true
    }
    fn in_stmt(s: &Stmt, var: &str, read: &mut BTreeSet<String>) -> bool {
        !matches!(s, Stmt::Assign { var: v, .. } if v == var)
            && s.exprs().iter().all(|e| in_expr(e, var, read))
            && s.blocks().iter().all(|b| b.iter().all(|x| in_stmt(x, var, read)))
    }
    let mut read = BTreeSet::new();
    body.iter().all(|s| in_stmt(s, var, &mut read)).then_some(read)
}

fn stmt_reads(s: &Stmt, var: &str, field: Option<&str>) -> bool {
    if matches!(s, Stmt::Assign { var: v, .. } if v == var) {
        return true;
    }
    s.exprs().iter().any(|e| expr_reads(e, var, field)) || s.blocks().iter().any(|b| b.iter().any(|x| stmt_reads(x, var, field)))
}

/// Does the statement (or any inside it) read the input `name`?
fn stmt_reads_input(s: &Stmt, name: &str) -> bool {
    s.exprs().iter().any(|e| e.mentions_input(name)) || s.blocks().iter().any(|b| b.iter().any(|x| stmt_reads_input(x, name)))
}

fn expr_reads(e: &Expr, var: &str, field: Option<&str>) -> bool {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        match &x.kind {
            ExprKind::Local(v) if v == var => return true,
            ExprKind::Field(b, g) if matches!(&b.kind, ExprKind::Local(v) if v == var) && field.is_some_and(|f| f != g) => {}
            _ => todo.extend(x.children()),
        }
    }
    false
}

/// The fields of `r`'s `RtArgs…` lent from its inputs `{from}.…` (a `…Inputs`): the `Copy` ones
/// by value, a list as `rt::Arg::Lent`, the others by reference.
fn lend_inputs(r: &ResolverDef, from: &str) -> Vec<String> {
    r.inputs
        .iter()
        .map(|p| {
            let n = raw_ident(&p.name);
            if is_copy(&p.ty) {
                format!("{n}: {from}.{n}")
            } else if matches!(p.ty, Ty::List(_)) {
                format!("{n}: rt::Arg::Lent(&{from}.{n})")
            } else {
                format!("{n}: &{from}.{n}")
            }
        })
        .collect()
}

/// One text per input of `r`, from its Rust name: `copy` for a `Copy` input, `other` for the rest.
fn per_input(r: &ResolverDef, copy: impl Fn(&str) -> String, other: impl Fn(&str) -> String) -> Vec<String> {
    r.inputs
        .iter()
        .map(|p| {
            let n = raw_ident(&p.name);
            if is_copy(&p.ty) {
                copy(&n)
            } else {
                other(&n)
            }
        })
        .collect()
}

/// Does the statement (and every one inside it) read the local `var` only as a list to go through:
/// the list of an aggregate or of a loop, or the argument of `len`?
fn stmt_views_only(s: &Stmt, var: &str) -> bool {
    if matches!(s, Stmt::Assign { var: v, .. } if v == var) {
        return false;
    }
    if let Stmt::For { list, body, .. } = s {
        let list_ok = matches!(&list.kind, ExprKind::Local(v) if v == var) || expr_views_only(list, var);
        return list_ok && body.iter().all(|x| stmt_views_only(x, var));
    }
    s.exprs().iter().all(|e| expr_views_only(e, var)) && s.blocks().iter().all(|b| b.iter().all(|x| stmt_views_only(x, var)))
}

fn expr_views_only(e: &Expr, var: &str) -> bool {
    let is_var = |x: &Expr| matches!(&x.kind, ExprKind::Local(v) if v == var);
    match &e.kind {
        ExprKind::Local(v) => v != var,
        ExprKind::Agg { list, body, .. } => (is_var(list) || expr_views_only(list, var)) && expr_views_only(body, var),
        ExprKind::Func(Func::Len, args) if args.len() == 1 && is_var(&args[0]) => true,
        _ => e.children().iter().all(|x| expr_views_only(x, var)),
    }
}

/// Does the expression read any output of the resolver (which a `set` may change)?
fn reads_output(e: &Expr) -> bool {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if matches!(x.kind, ExprKind::Output(_)) {
            return true;
        }
        todo.extend(x.children());
    }
    false
}

/// Is `e` the local `var`, or does working it out start with reading `var`: the list of an
/// aggregate, a field of such a value, or the left of `??`?
fn spine_reads(e: &Expr, var: &str) -> bool {
    match &e.kind {
        ExprKind::Local(v) => v == var,
        ExprKind::Field(b, _) | ExprKind::Bin(BinOp::Coalesce, b, _) => spine_reads(b, var),
        ExprKind::Agg { list, .. } => spine_reads(list, var),
        _ => false,
    }
}

/// How many times the expression names the local `var`.
fn reads_count(e: &Expr, var: &str) -> usize {
    let mut n = 0;
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if matches!(&x.kind, ExprKind::Local(v) if v == var) {
            n += 1;
        }
        todo.extend(x.children());
    }
    n
}

/// Every local an expression reads.
fn locals_of(e: &Expr) -> Vec<&str> {
    let mut out = Vec::new();
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if let ExprKind::Local(v) = &x.kind {
            out.push(v.as_str());
        }
        todo.extend(x.children());
    }
    out
}

/// Does any statement of `stmts` (at any depth) assign the local `var`?
fn assigns(stmts: &[Stmt], var: &str) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Assign { var: v, .. } => v == var,
        Stmt::If { arms, otherwise } => arms.iter().any(|(_, b)| assigns(b, var)) || assigns(otherwise, var),
        Stmt::Match { arms, .. } => arms.iter().any(|(_, b)| assigns(b, var)),
        Stmt::Repeat { body, .. } | Stmt::For { body, .. } => assigns(body, var),
        _ => false,
    })
}

/// Is this expression's code a value built for it (a list it makes), not a place to copy from?
fn is_owned_temp(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Agg { kind, .. } => matches!(kind, Agg::Map | Agg::Filter | Agg::Sort | Agg::SortDesc),
        ExprKind::List(_) => true,
        ExprKind::Bin(BinOp::Add, _, _) => matches!(e.ty, Ty::List(_)),
        _ => false,
    }
}

/// The fields from the local `x` to this place (`x.u.status` is `[u, status]`), if it is one.
fn field_path<'e>(e: &'e Expr, x: &str) -> Option<Vec<&'e str>> {
    match &e.kind {
        ExprKind::Local(v) if v == x => Some(Vec::new()),
        ExprKind::Field(b, f) if !matches!(b.ty, Ty::Opt(_) | Ty::Row(_)) => {
            let mut p = field_path(b, x)?;
            p.push(f);
            Some(p)
        }
        _ => None,
    }
}

fn is_copy(t: &Ty) -> bool {
    match t {
        Ty::Int | Ty::Dec | Ty::Bool | Ty::Enum(_) | Ty::Key(_) | Ty::Row(_) => true,
        Ty::Opt(i) => is_copy(i),
        _ => false,
    }
}

/// The fields of a record-like type as `Gen::flatten_impl` takes them: name, access on `self`,
/// type.
fn fields_of<'a>(fields: impl Iterator<Item = (&'a String, &'a Ty)>) -> Vec<(String, String, Ty)> {
    fields
        .map(|(f, t)| (f.clone(), format!("self.{}", raw_ident(f)), t.clone()))
        .collect()
}

/// `impl Serialize` for a generated type with `to_value`: the same JSON as the CLI's.
fn serialize_via_value(ty: &str) -> String {
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
fn into_field(code: String, t: &Ty) -> String {
    match t {
        Ty::List(_) => format!("rt::List::from({code})"),
        _ => code,
    }
}
