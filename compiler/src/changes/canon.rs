//! Canonical text of the checked IR, for comparing two versions of the rules: what a construct
//! means, without where it is written. Spans are left out (an edit above does not move the
//! rest), and every index is written as the name it stands for (`⟨table weapons⟩`, not table 3),
//! so adding a table or a resolver does not change the others. Constants appear as the values the
//! checker folded in, so editing a `const` changes every line that reads it.
//!
//! A resolver becomes a list of [`Line`]s, one per statement, per modifier and per input and
//! output, indented by nesting, which `changes` compares as sequences.

use crate::ast::Span;
use crate::ir::{
    Axis, Const, Dice, Expr, ExprKind, Mod, MsgPart, Param, Pattern, Read, ResolverDef, Stmt, System, TableDef, TableKind, Ty,
};
use std::fmt::Write as _;

/// One line of a resolver's canonical form.
#[derive(Clone, Debug)]
pub struct Line {
    /// What it means; two lines are the same when these are equal.
    pub canon: String,
    /// What it is, for people: `modifier "close range"`, `require`, `set hit`, `input range`.
    pub label: String,
    /// Where it is written (the first expression it evaluates), if anywhere.
    pub span: Option<Span>,
}

pub struct Canon<'a> {
    pub sys: &'a System,
}

/// A local as the rules name it: the checker's unique name `v_total_3` without its prefix and
/// its number, which counts the bindings before it (a `let` added above would renumber the rest).
fn local(v: &str) -> &str {
    let Some(rest) = v.strip_prefix("v_") else {
        return v;
    };
    match rest.rsplit_once('_') {
        Some((name, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => rest,
    }
}

impl Canon<'_> {
    fn table(&self, t: usize) -> String {
        format!("⟨table {}⟩", self.sys.tables.get(t).map_or("?", |t| t.name.as_str()))
    }

    fn enum_name(&self, e: usize) -> String {
        format!("⟨enum {}⟩", self.sys.enums.get(e).map_or("?", |e| e.name.as_str()))
    }

    fn variant(&self, e: usize, v: usize) -> String {
        let name = self
            .sys
            .enums
            .get(e)
            .and_then(|en| en.variants.get(v))
            .map_or("?", |(n, _)| n.as_str());
        format!("{}.{name}", self.enum_name(e))
    }

    fn axis(&self, a: &Axis) -> String {
        match a {
            Axis::Enum(e) => self.enum_name(*e),
            Axis::Int { lo, hi } => format!("{lo}..{hi}"),
        }
    }

    fn record(&self, r: usize) -> String {
        format!("⟨record {}⟩", self.sys.records.get(r).map_or("?", |r| r.name.as_str()))
    }

    /// The resolver a call names.
    pub fn resolver(&self, r: usize) -> String {
        format!("⟨call {}⟩", self.sys.resolvers.get(r).map_or("?", |r| r.name.as_str()))
    }

    pub fn ty(&self, t: &Ty) -> String {
        match t {
            Ty::Enum(e) => self.enum_name(*e),
            Ty::Key(ts) => format!("key({})", ts.iter().map(|t| self.table(*t)).collect::<Vec<_>>().join("|")),
            Ty::Opt(i) => format!("{}?", self.ty(i)),
            Ty::List(i) => format!("list {}", self.ty(i)),
            Ty::Outcome(r) => format!("outcome {}", self.resolver(*r)),
            Ty::Row(t) => format!("row {}", self.table(*t)),
            Ty::Rec(r) => self.record(*r),
            other => format!("{other:?}"),
        }
    }

    pub fn konst(&self, c: &Const) -> String {
        match c {
            Const::Enum(e, v) => self.variant(*e, *v),
            Const::Key { table, name, .. } => format!("{}[{name:?}]", self.table(*table)),
            Const::List(items) => format!("[{}]", items.iter().map(|i| self.konst(i)).collect::<Vec<_>>().join(", ")),
            other => format!("{other:?}"),
        }
    }

    fn list(&self, es: &[Expr]) -> String {
        es.iter().map(|e| self.expr(e)).collect::<Vec<_>>().join(", ")
    }

    fn fields(&self, fs: &[(String, Expr)]) -> String {
        fs.iter()
            .map(|(n, e)| format!("{n}: {}", self.expr(e)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(c) => self.konst(c),
            ExprKind::Local(v) => format!("local {}", local(v)),
            ExprKind::Input(v) => format!("input {v}"),
            ExprKind::Output(v) => format!("output {v}"),
            ExprKind::KeyCol {
                key,
                tables,
                column,
                optional,
            } => {
                let ts: Vec<String> = tables.iter().map(|t| self.table(*t)).collect();
                format!(
                    "({}).{column}{} of {}",
                    self.expr(key),
                    if *optional { "?" } else { "" },
                    ts.join("|")
                )
            }
            ExprKind::KeyName { key, optional } => format!("name{}({})", if *optional { "?" } else { "" }, self.expr(key)),
            ExprKind::Field(b, f) => format!("({}).{f}", self.expr(b)),
            ExprKind::Lookup { table, args } => format!("{}({})", self.table(*table), self.list(args)),
            ExprKind::Func(f, args) => format!("{f:?}({})", self.list(args)),
            ExprKind::Agg { kind, var, list, body } => format!("{kind:?}({} in {}: {})", local(var), self.expr(list), self.expr(body)),
            ExprKind::Neg(x) => format!("-({})", self.expr(x)),
            ExprKind::Not(x) => format!("not({})", self.expr(x)),
            ExprKind::Bin(op, a, b) => format!("({} {op:?} {})", self.expr(a), self.expr(b)),
            ExprKind::Cmp(op, a, b) => format!("({} {op:?} {})", self.expr(a), self.expr(b)),
            ExprKind::In(a, b) => format!("({} in {})", self.expr(a), self.expr(b)),
            ExprKind::Is(a, vs) => {
                let vs: Vec<String> = vs.iter().map(|v| format!("#{v}")).collect();
                format!("({} is {} {})", self.expr(a), self.ty(&a.ty), vs.join("|"))
            }
            ExprKind::If(arms, other) => {
                let mut s = String::from("if(");
                for (c, v) in arms {
                    let _ = write!(s, "{} => {}; ", self.expr(c), self.expr(v));
                }
                let _ = write!(s, "else {})", self.expr(other));
                s
            }
            ExprKind::ToDec(x) => format!("dec({})", self.expr(x)),
            ExprKind::Construct { rec, fields } => format!("{}{{{}}}", self.record(*rec), self.fields(fields)),
            ExprKind::With { base, rec, updates } => {
                format!("({}) with {}{{{}}}", self.expr(base), self.record(*rec), self.fields(updates))
            }
            ExprKind::Some(x) => format!("some({})", self.expr(x)),
            ExprKind::List(items) => format!("[{}]", self.list(items)),
        }
    }

    fn dice(&self, d: &Dice) -> String {
        let read = match &d.read {
            Read::SumFloor { per_die, floor } => format!("each {} floor {floor}", self.expr(per_die)),
            Read::Opposed {
                second,
                first_mod,
                second_mod,
            } => {
                format!(
                    "opposed {} + {} vs {}",
                    self.expr(second),
                    self.expr(first_mod),
                    self.expr(second_mod)
                )
            }
            other => format!("{other:?}"),
        };
        let reroll = d
            .reroll
            .as_ref()
            .map(|(lo, hi)| format!(" reroll {}..{}", self.expr(lo), self.expr(hi)));
        format!(
            "({})d{}{} {read}{}",
            self.expr(&d.count),
            d.sides,
            if d.zero_based { " from 0" } else { "" },
            reroll.unwrap_or_default()
        )
    }

    fn message(&self, parts: &[MsgPart]) -> String {
        parts
            .iter()
            .map(|p| match p {
                MsgPart::Text(t) => format!("{t:?}"),
                MsgPart::Value(e) => format!("{{{}}}", self.expr(e)),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn pattern(&self, p: &Pattern) -> String {
        match p {
            Pattern::Variant(e, v) => self.variant(*e, *v),
            other => format!("{other:?}"),
        }
    }

    fn param(&self, kind: &str, p: &Param) -> Line {
        let default = p.default.as_ref().map(|d| format!(" = {}", self.konst(d)));
        Line {
            canon: format!(
                "{kind} {}: {} {:?}{} {:?} {:?} option={}",
                p.name,
                self.ty(&p.ty),
                p.bounds,
                default.unwrap_or_default(),
                p.doc,
                p.cite,
                p.is_option
            ),
            label: format!("{kind} {}", p.name),
            span: None,
        }
    }

    /// A resolver: its heading, inputs and outputs, then its body, a line per statement and per
    /// modifier.
    pub fn resolver_lines(&self, r: &ResolverDef) -> Vec<Line> {
        let mut out = vec![Line {
            canon: format!("resolver {} policy={} {:?} {:?}", r.name, r.policy, r.title, r.cite),
            label: "heading".into(),
            span: None,
        }];
        out.extend(r.inputs.iter().map(|p| self.param("input", p)));
        out.extend(r.outputs.iter().map(|p| self.param("output", p)));
        self.block(&r.body, 0, &mut out);
        out
    }

    fn block(&self, body: &[Stmt], depth: usize, out: &mut Vec<Line>) {
        for s in body {
            self.stmt(s, depth, out);
        }
    }

    fn mods(&self, var: &str, ms: &[Mod], depth: usize, out: &mut Vec<Line>) {
        let var = local(var);
        for m in ms {
            match m {
                Mod::One { value, name, when, cite } => out.push(Line {
                    canon: format!(
                        "{:depth$}modifier {var} {name:?} {} when {} {cite:?}",
                        "",
                        self.expr(value),
                        when.as_ref().map_or("always".into(), |w| self.expr(w))
                    ),
                    label: format!("modifier {name:?}"),
                    span: Some(value.span),
                }),
                Mod::Highest { name, mods } => {
                    out.push(Line {
                        canon: format!("{:depth$}highest {var} {name:?}", ""),
                        label: format!("modifiers {name:?} (the highest applies)"),
                        span: first_span(mods),
                    });
                    self.mods(var, mods, depth + 1, out);
                }
            }
        }
    }

    fn stmt(&self, s: &Stmt, depth: usize, out: &mut Vec<Line>) {
        let span = s.exprs().first().map(|e| e.span);
        let line = |canon: String, label: String| Line {
            canon: format!("{:depth$}{canon}", ""),
            label,
            span,
        };
        match s {
            Stmt::Let {
                var,
                name,
                ty,
                value,
                cite,
                mods,
                clamp,
                ..
            } => {
                out.push(line(
                    format!(
                        "let {} {name:?}: {} = {} {cite:?} clamp {clamp:?}",
                        local(var),
                        self.ty(ty),
                        self.expr(value)
                    ),
                    format!("let {name}"),
                ));
                self.mods(var, mods, depth + 1, out);
            }
            Stmt::Var {
                var,
                name,
                ty,
                value,
                cite,
                ..
            } => out.push(line(
                format!("var {} {name:?}: {} = {} {cite:?}", local(var), self.ty(ty), self.expr(value)),
                format!("var {name}"),
            )),
            Stmt::Assign {
                var,
                name,
                ty,
                value,
                cite,
                ..
            } => out.push(line(
                format!("{} {name:?}: {} := {} {cite:?}", local(var), self.ty(ty), self.expr(value)),
                format!("{name} ="),
            )),
            Stmt::Roll {
                var, label, dice, cite, ..
            } => out.push(line(
                format!("roll {} {label:?} {} {cite:?}", local(var), self.dice(dice)),
                format!("roll {}", local(var)),
            )),
            Stmt::Check {
                var,
                left,
                op,
                right,
                left_text,
                right_text,
                cite,
                ..
            } => out.push(line(
                format!(
                    "check {} {} {op:?} {} {left_text:?} {right_text:?} {cite:?}",
                    local(var),
                    self.expr(left),
                    self.expr(right)
                ),
                format!("check {}", local(var)),
            )),
            Stmt::Set { field, value, cite, .. } => {
                out.push(line(format!("set {field} = {} {cite:?}", self.expr(value)), format!("set {field}")))
            }
            Stmt::If { arms, otherwise, .. } => {
                for (i, (c, b)) in arms.iter().enumerate() {
                    out.push(Line {
                        canon: format!("{:depth$}{} {}", "", if i == 0 { "if" } else { "else if" }, self.expr(c)),
                        label: "if".into(),
                        span: Some(c.span),
                    });
                    self.block(b, depth + 1, out);
                }
                if !otherwise.is_empty() {
                    out.push(line("else".into(), "else".into()));
                    self.block(otherwise, depth + 1, out);
                }
            }
            Stmt::Match { scrutinee, arms, .. } => {
                out.push(line(format!("match {}", self.expr(scrutinee)), "match".into()));
                for (ps, b) in arms {
                    let ps: Vec<String> = ps.iter().map(|p| self.pattern(p)).collect();
                    out.push(line(format!("  case {}", ps.join(" | ")), "match arm".into()));
                    self.block(b, depth + 2, out);
                }
            }
            Stmt::Call {
                var, resolver, args, cite, ..
            } => out.push(line(
                format!("call {} = {}({}) {cite:?}", local(var), self.resolver(*resolver), self.fields(args)),
                format!("call {}", self.sys.resolvers.get(*resolver).map_or("?", |r| r.name.as_str())),
            )),
            Stmt::Require { cond, message, cite, .. } => out.push(line(
                format!("require {} {} {cite:?}", self.expr(cond), self.message(message)),
                "require".into(),
            )),
            Stmt::Note { text, cite, .. } => out.push(line(format!("note {} {cite:?}", self.message(text)), "note".into())),
            Stmt::Return => out.push(line("return".into(), "return".into())),
            Stmt::Break => out.push(line("break".into(), "break".into())),
            Stmt::Repeat { times, body, .. } => {
                out.push(Line {
                    canon: format!("{:depth$}repeat {times}", ""),
                    label: "repeat".into(),
                    span: body_span(body),
                });
                self.block(body, depth + 1, out);
            }
            Stmt::For { var, list, body, .. } => {
                out.push(line(
                    format!("for {} in {}", local(var), self.expr(list)),
                    format!("for {}", local(var)),
                ));
                self.block(body, depth + 1, out);
            }
        }
    }

    /// A table apart from its rows: what it is called, cites, how it is indexed, its columns.
    pub fn table_heading(&self, t: &TableDef) -> String {
        let kind = match &t.kind {
            TableKind::ByEnum { key_enum } => format!("by {}", self.enum_name(*key_enum)),
            TableKind::Matrix { rows, cols } => format!("matrix {} x {}", self.axis(rows), self.axis(cols)),
            other => format!("{other:?}"),
        };
        let columns: Vec<String> = t.columns.iter().map(|(n, ty)| format!("{n}: {}", self.ty(ty))).collect();
        let mut aliases: Vec<String> = t
            .aliases
            .iter()
            .map(|(a, r)| format!("{a:?} -> {:?}", t.rows.get(*r).map_or("?", |r| r.label.as_str())))
            .collect();
        aliases.sort();
        format!(
            "{:?} {:?} {kind} key {:?} [{}] => {} aliases [{}]",
            t.title,
            t.cite,
            t.key_column,
            columns.join(", "),
            t.result.as_ref().map_or("-".into(), |r| self.ty(r)),
            aliases.join(", ")
        )
    }
}

fn first_span(ms: &[Mod]) -> Option<Span> {
    ms.iter().find_map(|m| match m {
        Mod::One { value, .. } => Some(value.span),
        Mod::Highest { mods, .. } => first_span(mods),
    })
}

fn body_span(body: &[Stmt]) -> Option<Span> {
    body.iter().find_map(|s| s.exprs().first().map(|e| e.span))
}
