//! The evaluator: runs a resolver's checked IR statement by statement, with the same dice, trace
//! events, errors and evaluation order as the Rust that `codegen` generates from the same IR.
//!
//! Values are `V` (`rt::Value` with shared lists and records), in exactly the form generated
//! `to_value` gives. The order in which things are evaluated (arguments before a table lookup, a
//! record's updates before its base, a `??` fallback only when needed, a group of `require`s
//! stopping where it ends) is the one `docs/dsl.md` defines, which `codegen` follows too, so a
//! trace matches event for event.

use crate::value::V;
use rt::{Dec, Error, Event, Trace, Value};
use rulebook_compiler::ast::{Agg, BinOp, CmpOp};
use rulebook_compiler::ir::{self, Axis, Const, Expr, ExprKind, Func, Mod, MsgPart, Pattern, Stmt, TableKind, Ty};
use rulebook_runtime as rt;
use std::sync::Arc;

/// One checked system, kept for the life of the program, with every table cell already a value.
pub struct Sys {
    pub ir: &'static ir::System,
    /// Per table, per row: the cells as values (column order; `=> value` tables have one).
    cells: Vec<Vec<Vec<V>>>,
    /// Per range table without a result type, per row: the row as a record of its columns.
    rows: Vec<Vec<V>>,
    /// Per call statement (by address) whose callee exact odds branch over, as generated code
    /// does (`rt::memo_call`): the fields of the outcome read after it, `None` for all.
    memo_calls: std::collections::BTreeMap<usize, Option<Vec<String>>>,
    /// Per roll statement (by address) read only through one range table (`ir::classed_rolls`):
    /// the table's rows, which exact odds branch over (`Dice::roll_classed`), as generated code
    /// does.
    classed_rolls: std::collections::BTreeMap<usize, Vec<(i64, i64)>>,
    /// Per resolver: does a call of it take a step (`ir::takes_steps`)?
    takes_steps: Vec<bool>,
}

/// The call statements of `sys` that generated code makes through `rt::memo_call` (a callee
/// without policies), each with the fields its caller reads (`ir::call_reads`).
fn memo_calls(sys: &'static ir::System) -> std::collections::BTreeMap<usize, Option<Vec<String>>> {
    let branches = ir::branches_over_calls(sys);
    let mut out = std::collections::BTreeMap::new();
    for r in &sys.resolvers {
        let reads = ir::call_reads(&r.body);
        ir::each_stmt(&r.body, |s| {
            if let Stmt::Call { var, resolver, .. } = s {
                if branches.get(*resolver).copied().unwrap_or(false) {
                    let fields = reads.get(var).cloned().flatten().map(|f| f.into_iter().collect());
                    out.insert(s as *const Stmt as usize, fields);
                }
            }
        });
    }
    out
}

/// The roll statements of `sys` read only through one range table, with that table's rows.
fn classed_rolls(sys: &'static ir::System) -> std::collections::BTreeMap<usize, Vec<(i64, i64)>> {
    let mut out = std::collections::BTreeMap::new();
    for r in &sys.resolvers {
        let classed = ir::classed_rolls(sys, &r.body);
        ir::each_stmt(&r.body, |s| {
            if let Stmt::Roll { var, .. } = s {
                if let Some(t) = classed.get(var).and_then(|t| sys.tables.get(*t)) {
                    out.insert(s as *const Stmt as usize, t.rows.iter().map(|row| row.range).collect());
                }
            }
        });
    }
    out
}

enum Flow {
    Next,
    Break,
    Return,
}

/// The state of one resolver call.
struct Frame<'a> {
    r: &'static ir::ResolverDef,
    inputs: &'a [V],
    out: Vec<V>,
    locals: Vec<(&'static str, V)>,
    /// The failed `require`s of the group of checks running now.
    violations: Option<Vec<rt::Violation>>,
    /// Is a check (`ir::is_check`) running: its blocks belong to its group?
    checking: bool,
}

impl Frame<'_> {
    fn local(&self, name: &str) -> Result<&V, Error> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| Error::internal(format!("interpreter: no local `{name}`")))
    }

    fn local_mut(&mut self, name: &str) -> Result<&mut V, Error> {
        self.locals
            .iter_mut()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| Error::internal(format!("interpreter: no local `{name}`")))
    }

    fn input(&self, name: &str) -> Result<&V, Error> {
        self.r
            .inputs
            .iter()
            .position(|p| p.name == name)
            .and_then(|i| self.inputs.get(i))
            .ok_or_else(|| Error::internal(format!("interpreter: no input `{name}`")))
    }

    fn output_index(&self, name: &str) -> Result<usize, Error> {
        self.r
            .outputs
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| Error::internal(format!("interpreter: no output `{name}`")))
    }
}

fn int(v: &V) -> Result<i64, Error> {
    match v {
        V::Int(i) => Ok(*i),
        other => Err(Error::internal(format!("interpreter: expected an int, found {other}"))),
    }
}

fn dec(v: &V) -> Result<Dec, Error> {
    match v {
        V::Dec(d) => Ok(*d),
        other => Err(Error::internal(format!("interpreter: expected a decimal, found {other}"))),
    }
}

fn boolean(v: &V) -> Result<bool, Error> {
    match v {
        V::Bool(b) => Ok(*b),
        other => Err(Error::internal(format!("interpreter: expected a bool, found {other}"))),
    }
}

fn key(v: &V) -> Result<rt::Key, Error> {
    match v {
        V::Key(k) => Ok(*k),
        other => Err(Error::internal(format!("interpreter: expected a key, found {other}"))),
    }
}

/// The items of a list value, owned: shared lists are copied item by item (each item a cheap
/// reference-counted copy), a list nobody else holds is taken as it is.
fn list(v: V) -> Result<Vec<V>, Error> {
    match v {
        V::List(xs) => Ok(Arc::unwrap_or_clone(xs)),
        other => Err(Error::internal(format!("interpreter: expected a list, found {other}"))),
    }
}

fn field<'v>(v: &'v V, name: &str) -> Result<&'v V, Error> {
    v.field(name)
        .ok_or_else(|| Error::internal(format!("interpreter: no field `{name}` in {v}")))
}

fn add_mod(var: &V, m: &V) -> Result<V, Error> {
    match (var, m) {
        (V::Dec(a), V::Dec(b)) => Ok(V::Dec(a.checked_add(*b)?)),
        (V::Int(a), V::Int(b)) => Ok(V::Int(a.checked_add(*b).ok_or(Error::Overflow)?)),
        _ => Err(Error::internal("interpreter: modifier of another type than its value")),
    }
}

fn is_zero(v: &V) -> bool {
    matches!(v, V::Int(0)) || matches!(v, V::Dec(d) if *d == Dec::ZERO)
}

impl Sys {
    pub fn new(ir: &'static ir::System) -> Sys {
        let mut cells = Vec::new();
        let mut rows = Vec::new();
        for t in &ir.tables {
            let cols: Vec<Ty> = match (&t.kind, &t.result) {
                (TableKind::Range { .. } | TableKind::DecRange | TableKind::Matrix { .. }, Some(r)) => vec![r.clone()],
                _ => t.columns.iter().map(|(_, ty)| ty.clone()).collect(),
            };
            let table_cells: Vec<Vec<V>> = t
                .rows
                .iter()
                .map(|r| match (&t.kind, &t.result) {
                    // A matrix row holds one cell per column variant, all of the result type.
                    (TableKind::Matrix { .. }, Some(ty)) => r.cells.iter().map(|c| konst(ir, c, ty)).collect(),
                    _ => r.cells.iter().zip(&cols).map(|(c, ty)| konst(ir, c, ty)).collect(),
                })
                .collect();
            let names: Vec<&'static str> = match (&t.kind, &t.result) {
                (TableKind::Range { .. } | TableKind::DecRange | TableKind::Matrix { .. }, Some(_)) => vec!["value"],
                _ => t.columns.iter().map(|(n, _)| n.as_str()).collect(),
            };
            rows.push(
                table_cells
                    .iter()
                    .map(|cs| V::record(names.iter().copied().zip(cs.iter().cloned()).collect()))
                    .collect(),
            );
            cells.push(table_cells);
        }
        Sys {
            ir,
            cells,
            rows,
            memo_calls: memo_calls(ir),
            classed_rolls: classed_rolls(ir),
            takes_steps: ir.resolvers.iter().map(|r| ir::takes_steps(&r.body)).collect(),
        }
    }

    /// Reads a resolver's typed inputs out of bound dynamic inputs, as generated `from_values` does
    /// (the same checks, the same errors; an input the map leaves out takes its default), giving
    /// them in declaration order.
    pub fn read_inputs(&self, rid: usize, m: &rt::Inputs) -> Result<Vec<V>, Error> {
        let ir: &'static ir::System = self.ir;
        let r = &ir.resolvers[rid];
        r.inputs
            .iter()
            .map(|p| match (&p.default, m.get(&p.name)) {
                (Some(d), None) => Ok(konst(ir, d, &p.ty)),
                _ => Ok(V::from_value(&self.read_input(m, &p.name, &p.ty)?)),
            })
            .collect()
    }

    fn read_input(&self, m: &rt::Inputs, name: &str, t: &Ty) -> Result<Value, Error> {
        match t {
            Ty::Int => Ok(Value::Int(rt::get_int(m, name)?)),
            Ty::Dec => Ok(Value::Dec(rt::get_dec(m, name)?)),
            Ty::Bool => Ok(Value::Bool(rt::get_bool(m, name)?)),
            Ty::Key(_) => Ok(Value::Key(rt::get_key(m, name)?)),
            Ty::Text => Ok(Value::Text(rt::get_text(m, name)?.to_string())),
            Ty::Enum(e) => {
                let en = &self.ir.enums[*e];
                let v = m.get(name).ok_or_else(|| Error::MissingInput {
                    input: name.to_string(),
                    ty: en.name.clone(),
                })?;
                self.read_value(v, name, t)
            }
            Ty::Opt(i) => match m.get(name) {
                None | Some(Value::None) => Ok(Value::None),
                Some(v) => self.read_from(v, name, i),
            },
            Ty::List(i) => Ok(Value::List(
                rt::get_list(m, name)?
                    .iter()
                    .map(|v| self.read_from(v, name, i))
                    .collect::<Result<Vec<_>, _>>()?,
            )),
            Ty::Rec(r) => {
                let v = m.get(name).ok_or_else(|| Error::MissingInput {
                    input: name.to_string(),
                    ty: self.ir.records[*r].name.clone(),
                })?;
                self.record_from_value(*r, v, name)
            }
            _ => Ok(default_of(self.ir, t).to_value()),
        }
    }

    fn read_from(&self, v: &Value, name: &str, t: &Ty) -> Result<Value, Error> {
        match t {
            Ty::Opt(i) => match v {
                Value::None => Ok(Value::None),
                x => self.read_from(x, name, i),
            },
            Ty::List(i) => match v {
                Value::List(xs) => Ok(Value::List(
                    xs.iter().map(|x| self.read_from(x, name, i)).collect::<Result<Vec<_>, _>>()?,
                )),
                x => Err(Error::BadValue {
                    input: name.to_string(),
                    text: x.to_string(),
                    expected: "a list".to_string(),
                }),
            },
            Ty::Rec(r) => self.record_from_value(*r, v, name),
            _ => self.read_value(v, name, t),
        }
    }

    fn read_value(&self, v: &Value, name: &str, t: &Ty) -> Result<Value, Error> {
        match t {
            Ty::Int => Ok(Value::Int(rt::value_as_int(v, name)?)),
            Ty::Dec => Ok(Value::Dec(rt::value_as_dec(v, name)?)),
            Ty::Bool => Ok(Value::Bool(rt::value_as_bool(v, name)?)),
            Ty::Key(_) => Ok(Value::Key(rt::value_as_key(v, name)?)),
            Ty::Text => Ok(Value::Text(rt::value_as_text(v, name)?.to_string())),
            Ty::Enum(e) => {
                let en = &self.ir.enums[*e];
                let found = match v {
                    Value::Enum(_, s) => en.variants.iter().position(|(x, _)| x == s),
                    _ => None,
                };
                match found {
                    Some(i) => Ok(Value::Enum(i as u16, en.variants[i].0.as_str())),
                    None => Err(Error::BadValue {
                        input: name.to_string(),
                        text: v.to_string(),
                        expected: en.name.clone(),
                    }),
                }
            }
            _ => Ok(default_of(self.ir, t).to_value()),
        }
    }

    fn record_from_value(&self, rid: usize, v: &Value, name: &str) -> Result<Value, Error> {
        let r = &self.ir.records[rid];
        let Value::Record(fields) = v else {
            return Err(Error::BadValue {
                input: name.to_string(),
                text: v.to_string(),
                expected: format!("a {} record", r.name),
            });
        };
        let mut out = Vec::with_capacity(r.fields.len());
        for (f, t, _) in &r.fields {
            let got = fields
                .iter()
                .find(|(k, _)| *k == f.as_str())
                .map(|(_, v)| v)
                .ok_or_else(|| Error::MissingInput {
                    input: format!("{name}.{f}"),
                    ty: self.ir.ty_text(t),
                })?;
            out.push((f.as_str(), self.read_from(got, &format!("{}.{f}", r.name), t)?));
        }
        Ok(Value::Record(out))
    }

    /// Runs resolver `rid` on inputs already read (declaration order) and returns its outcome.
    pub fn run<D: rt::Dice + ?Sized, T: Trace>(&self, rid: usize, dice: &mut D, trace: &mut T, inputs: &[V]) -> Result<V, Error> {
        let r = &self.ir.resolvers[rid];
        // A call of a resolver that loops or calls is a step (`rt::steps`), taken before anything
        // else as generated code takes it.
        if self.takes_steps.get(rid).copied().unwrap_or(true) {
            rt::steps::take(&rt::Site {
                kind: rt::SiteKind::Call,
                at: &r.at,
                system: &self.ir.name,
                resolver: &r.name,
            })?;
        }
        if T::ENABLED {
            trace.event(Event::Enter {
                resolver: r.name.clone(),
                title: r.title.clone(),
                cite: r.cite.clone(),
            });
        }
        for (p, v) in r.inputs.iter().zip(inputs) {
            if let (Some((lo, hi)), Ty::Dec, V::Dec(x)) = (p.bounds, &p.ty, v) {
                if *x < Dec::from_int(lo) || *x > Dec::from_int(hi) {
                    return Err(Error::OutOfRange {
                        input: p.name.clone(),
                        value: x.to_string(),
                        min: lo.to_string(),
                        max: hi.to_string(),
                    });
                }
            }
            if let (Some((lo, hi)), Ty::Int) = (p.bounds, &p.ty) {
                let v = int(v)?;
                if !(lo..=hi).contains(&v) {
                    return Err(Error::OutOfRange {
                        input: p.name.clone(),
                        value: v.to_string(),
                        min: lo.to_string(),
                        max: hi.to_string(),
                    });
                }
            }
        }
        let out = r
            .outputs
            .iter()
            .map(|p| match &p.default {
                Some(d) => konst(self.ir, d, &p.ty),
                None => default_of(self.ir, &p.ty),
            })
            .collect();
        let mut f = Frame {
            r,
            inputs,
            out,
            locals: Vec::new(),
            violations: None,
            checking: false,
        };
        self.block(&r.body, &mut f, dice, trace)?;
        if T::ENABLED {
            trace.event(Event::Exit { resolver: r.name.clone() });
        }
        Ok(V::record(r.outputs.iter().map(|p| p.name.as_str()).zip(f.out).collect()))
    }

    /// A turn of the loop at `at` is a step (`rt::steps`).
    fn step_loop(&self, f: &Frame, at: &str) -> Result<(), Error> {
        rt::steps::take(&rt::Site {
            kind: rt::SiteKind::Loop,
            at,
            system: &self.ir.name,
            resolver: &f.r.name,
        })
    }

    /// A block in its own scope: locals it declares end with it.
    fn block<D: rt::Dice + ?Sized, T: Trace>(
        &self,
        stmts: &'static [Stmt],
        f: &mut Frame,
        dice: &mut D,
        trace: &mut T,
    ) -> Result<Flow, Error> {
        let mark = f.locals.len();
        let mut flow = Flow::Next;
        for (i, s) in stmts.iter().enumerate() {
            // A group of checks (`ir::is_check`) not inside another: its failed `require`s stop
            // the resolution where the group ends.
            let group = !f.checking && ir::is_check(s);
            f.checking |= group;
            let done = self.stmt(s, f, dice, trace);
            f.checking &= !group;
            flow = done?;
            if group && !stmts.get(i + 1).is_some_and(ir::is_check) {
                if let Some(violations) = f.violations.take() {
                    return Err(Error::Rejected { violations });
                }
            }
            if !matches!(flow, Flow::Next) {
                break;
            }
        }
        f.locals.truncate(mark);
        Ok(flow)
    }

    fn stmt<D: rt::Dice + ?Sized, T: Trace>(&self, s: &'static Stmt, f: &mut Frame, dice: &mut D, trace: &mut T) -> Result<Flow, Error> {
        match s {
            Stmt::Let {
                var,
                name,
                ty,
                value,
                cite,
                mods,
                clamp,
            } => self.stmt_let(f, trace, var, name, ty, value, cite.as_deref(), mods, clamp)?,
            Stmt::Var {
                var, name, value, cite, ..
            } => {
                let v = self.expr(value, f, trace)?;
                f.locals.push((var.as_str(), v));
                self.trace_let(f, trace, name, var, cite.as_deref())?;
            }
            Stmt::Assign {
                var, name, value, cite, ..
            } => {
                let v = self.expr(value, f, trace)?;
                *f.local_mut(var)? = v;
                if let (true, Some(c)) = (T::ENABLED, cite) {
                    trace.event(Event::Assign {
                        name: name.clone(),
                        value: f.local(var)?.to_value(),
                        cite: c.clone(),
                    });
                }
            }
            Stmt::Roll { var, label, dice: d, cite } => {
                let spec = self.spec(d, label, f, trace)?;
                let rows = if T::ENABLED {
                    None
                } else {
                    self.classed_rolls.get(&(s as *const Stmt as usize))
                };
                let v = match rows {
                    Some(rows) => dice.roll_classed(&spec, label, rows)?,
                    None => dice.roll_for(&spec, label)?,
                };
                f.locals.push((var.as_str(), V::Int(v)));
                if T::ENABLED {
                    trace.event(Event::Roll {
                        label: label.clone(),
                        // An opposed roll shows its sides' modifiers worked out, as generated code does.
                        dice: if matches!(d.read, ir::Read::Opposed { .. }) {
                            spec.notation()
                        } else {
                            d.notation.clone()
                        },
                        faces: dice.last_faces().to_vec(),
                        adjusted: spec.adjusted_faces(dice.last_faces()),
                        value: v,
                        cite: cite.clone(),
                    });
                }
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
                let l = self.expr(left, f, trace)?;
                let r = self.expr(right, f, trace)?;
                // The generated `l == r` here compares keys with their names, as derived equality does.
                let result = compare(*op, &l, &r, &Ty::Error, &Ty::Error);
                f.locals.push((var.as_str(), V::Bool(result)));
                if T::ENABLED {
                    trace.event(Event::Compare {
                        left: left_text.clone(),
                        left_value: l.to_value(),
                        op: op.symbol().to_string(),
                        right: right_text.clone(),
                        right_value: r.to_value(),
                        result,
                        cite: cite.clone(),
                    });
                }
            }
            Stmt::Set { field, value, cite } => {
                let v = self.expr(value, f, trace)?;
                let i = f.output_index(field)?;
                if T::ENABLED {
                    trace.event(Event::Set {
                        field: field.clone(),
                        value: v.to_value(),
                        cite: cite.clone(),
                    });
                }
                f.out[i] = v;
            }
            Stmt::If { arms, otherwise } => {
                for (c, b) in arms {
                    if boolean(&self.expr(c, f, trace)?)? {
                        return self.block(b, f, dice, trace);
                    }
                }
                return self.block(otherwise, f, dice, trace);
            }
            Stmt::Match { scrutinee, arms } => {
                let v = self.expr(scrutinee, f, trace)?;
                for (pats, body) in arms {
                    if pats.iter().any(|p| matches_pattern(p, &v)) {
                        return self.block(body, f, dice, trace);
                    }
                }
            }
            stmt @ Stmt::Call { var, resolver, args, .. } => {
                let callee = &self.ir.resolvers[*resolver];
                let mut values: Vec<V> = vec![V::None; callee.inputs.len()];
                let mut given = 0;
                for (n, e) in args {
                    let v = self.expr(e, f, trace)?;
                    if let Some(i) = callee.inputs.iter().position(|p| p.name == *n) {
                        values[i] = v;
                        given += 1;
                    }
                }
                // The checker gives every input (the generated struct literal needs them all).
                if given != callee.inputs.len() {
                    return Err(Error::internal(format!(
                        "interpreter: call of `{}` without all its inputs",
                        callee.name
                    )));
                }
                // Under exact odds, branch over the callee's outcomes as generated code does.
                let site = stmt as *const Stmt as usize;
                // Only enumerating dice look the call up: plain runs pay nothing for it.
                let enumerating = if T::ENABLED { None } else { rt::enumerator(dice) };
                let memo = match enumerating.zip(self.memo_calls.get(&site)) {
                    Some((e, fields)) => rt::memo_call(
                        e,
                        site,
                        || values.clone(),
                        |o: &V| match fields {
                            Some(fs) => fs.iter().map(|n| o.field(n).cloned().unwrap_or(V::None)).collect(),
                            None => vec![o.clone()],
                        },
                        |e, vals: &Vec<V>| self.run(*resolver, e, &mut rt::NoTrace, vals),
                    ),
                    None => None,
                };
                let o = match memo {
                    Some(o) => o?,
                    None => self.run(*resolver, dice, trace, &values)?,
                };
                f.locals.push((var.as_str(), o));
            }
            Stmt::Require { cond, message, cite } => {
                if !boolean(&self.expr(cond, f, trace)?)? {
                    let text = self.message(message, f, trace)?;
                    f.violations.get_or_insert_with(Vec::new).push(rt::Violation {
                        cite: cite.clone(),
                        message: text,
                    });
                }
            }
            Stmt::Note { text, cite } => {
                if T::ENABLED {
                    let text = self.message(text, f, trace)?;
                    trace.event(Event::Note { text, cite: cite.clone() });
                }
            }
            Stmt::Return => return Ok(Flow::Return),
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Repeat { times, body, at } => {
                for _ in 0..*times {
                    self.step_loop(f, at)?;
                    match self.block(body, f, dice, trace)? {
                        Flow::Next => {}
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                    }
                }
            }
            Stmt::For { var, list: l, body, at } => {
                let items = list(self.expr(l, f, trace)?)?;
                for item in items {
                    self.step_loop(f, at)?;
                    let mark = f.locals.len();
                    f.locals.push((var.as_str(), item));
                    let flow = self.block(body, f, dice, trace);
                    f.locals.truncate(mark);
                    match flow? {
                        Flow::Next => {}
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                    }
                }
            }
        }
        Ok(Flow::Next)
    }

    #[expect(clippy::too_many_arguments, reason = "the fields of one `let` statement")]
    fn stmt_let<T: Trace>(
        &self,
        f: &mut Frame,
        trace: &mut T,
        var: &'static str,
        name: &str,
        ty: &Ty,
        value: &'static Expr,
        cite: Option<&str>,
        mods: &'static [Mod],
        clamp: &Option<(Option<i64>, Option<i64>)>,
    ) -> Result<(), Error> {
        let mut v = self.expr(value, f, trace)?;
        if !mods.is_empty() || clamp.is_some() {
            let base = v.clone();
            let mut shown = false;
            let mut show_base = |trace: &mut T| {
                if !shown {
                    shown = true;
                    trace.event(Event::Let {
                        name: format!("{name} (base)"),
                        value: base.to_value(),
                        cite: cite.unwrap_or("").to_string(),
                    });
                }
            };
            for m in mods {
                match m {
                    Mod::One { value, name, when, cite } => {
                        let applies = match when {
                            Some(w) => boolean(&self.expr(w, f, trace)?)?,
                            None => true,
                        };
                        if applies {
                            let m = self.num_as(value, ty, f, trace)?;
                            v = add_mod(&v, &m)?;
                            if T::ENABLED && !is_zero(&m) {
                                show_base(trace);
                                trace.event(Event::Modifier {
                                    name: name.clone(),
                                    value: m.to_value(),
                                    cite: cite.clone(),
                                });
                            }
                        }
                    }
                    Mod::Highest { name: group, mods } => {
                        let mut best: Option<(V, &str, &str)> = None;
                        for m in mods {
                            if let Mod::One { value, name, when, cite } = m {
                                let applies = match when {
                                    Some(w) => boolean(&self.expr(w, f, trace)?)?,
                                    None => true,
                                };
                                if applies {
                                    let m = self.num_as(value, ty, f, trace)?;
                                    if best.as_ref().is_none_or(|b| m > b.0) {
                                        best = Some((m, name.as_str(), cite.as_str()));
                                    }
                                }
                            }
                        }
                        if let Some((m, n, c)) = best {
                            v = add_mod(&v, &m)?;
                            if T::ENABLED {
                                show_base(trace);
                                trace.event(Event::Modifier {
                                    name: format!("{n} ({group})"),
                                    value: m.to_value(),
                                    cite: c.to_string(),
                                });
                            }
                        }
                    }
                }
            }
            if let Some((lo, hi)) = clamp {
                let wrap = |b: i64| {
                    if *ty == Ty::Dec {
                        V::Dec(Dec::from_int(b))
                    } else {
                        V::Int(b)
                    }
                };
                if let Some(l) = lo {
                    if v < wrap(*l) {
                        v = wrap(*l);
                    }
                }
                if let Some(h) = hi {
                    if v > wrap(*h) {
                        v = wrap(*h);
                    }
                }
            }
        }
        if T::ENABLED && (cite.is_some() || !mods.is_empty()) {
            trace.event(Event::Let {
                name: name.to_string(),
                value: v.to_value(),
                cite: cite.unwrap_or("").to_string(),
            });
        }
        f.locals.push((var, v));
        Ok(())
    }

    fn trace_let<T: Trace>(&self, f: &Frame, trace: &mut T, name: &str, var: &str, cite: Option<&str>) -> Result<(), Error> {
        if let (true, Some(c)) = (T::ENABLED, cite) {
            trace.event(Event::Let {
                name: name.to_string(),
                value: f.local(var)?.to_value(),
                cite: c.to_string(),
            });
        }
        Ok(())
    }

    fn num_as<T: Trace>(&self, e: &'static Expr, ty: &Ty, f: &mut Frame, trace: &mut T) -> Result<V, Error> {
        let v = self.expr(e, f, trace)?;
        if *ty == Ty::Dec && e.ty == Ty::Int {
            Ok(V::Dec(Dec::from_int(int(&v)?)))
        } else {
            Ok(v)
        }
    }

    /// A number of dice (a roll's, or an opposed roll's second side's) as the runtime takes it; a
    /// computed count outside 0..=65535 is an error naming the roll, as generated code words it.
    fn dice_count<T: Trace>(
        &self,
        e: &'static Expr,
        d: &'static ir::Dice,
        label: &str,
        f: &mut Frame,
        trace: &mut T,
    ) -> Result<u16, Error> {
        match &e.kind {
            ExprKind::Const(Const::Int(n)) => u16::try_from(*n).map_err(|_| Error::Domain {
                what: "dice count".to_string(),
            }),
            _ => {
                let n = int(&self.expr(e, f, trace)?)?;
                u16::try_from(n).map_err(|_| Error::Domain {
                    what: format!(
                        "dice count {} is {} in roll `{}` ({})",
                        n,
                        if n < 0 { "negative" } else { "too large" },
                        label,
                        d.notation
                    ),
                })
            }
        }
    }

    fn spec<T: Trace>(&self, d: &'static ir::Dice, label: &str, f: &mut Frame, trace: &mut T) -> Result<rt::DiceSpec, Error> {
        let count = self.dice_count(&d.count, d, label, f, trace)?;
        let mut total = count;
        let small = |k: i64| u8::try_from(k).map_err(|_| Error::internal("interpreter: keep count out of range"));
        let read = match &d.read {
            ir::Read::Sum => rt::Read::Sum,
            ir::Read::KeepHighest(k) => rt::Read::KeepHighest(small(*k)?),
            ir::Read::KeepLowest(k) => rt::Read::KeepLowest(small(*k)?),
            ir::Read::Flux => rt::Read::Flux,
            ir::Read::BadFlux => rt::Read::BadFlux,
            ir::Read::Percentile => rt::Read::Percentile,
            ir::Read::Explode(depth) => {
                rt::Read::Explode(u8::try_from(*depth).map_err(|_| Error::internal("interpreter: explode depth out of range"))?)
            }
            ir::Read::Opposed {
                second,
                first_mod,
                second_mod,
            } => {
                let second = self.dice_count(second, d, label, f, trace)?;
                let m1 = int(&self.expr(first_mod, f, trace)?)?;
                let m2 = int(&self.expr(second_mod, f, trace)?)?;
                let read = rt::Read::Opposed {
                    first: count,
                    first_mod: i32::try_from(m1).map_err(|_| Error::Overflow)?,
                    second_mod: i32::try_from(m2).map_err(|_| Error::Overflow)?,
                };
                total = count.checked_add(second).ok_or(Error::Overflow)?;
                read
            }
            ir::Read::SumFloor { per_die, floor } => {
                let p = int(&self.expr(per_die, f, trace)?)?;
                rt::Read::SumFloor {
                    per_die: i8::try_from(p).map_err(|_| Error::Overflow)?,
                    floor: i8::try_from(*floor).map_err(|_| Error::internal("interpreter: floor out of range"))?,
                }
            }
        };
        // A computed reroll range is evaluated after the count and the read, as generated code does.
        let reroll = match &d.reroll {
            None => None,
            Some((lo, hi)) => Some((int(&self.expr(lo, f, trace)?)?, int(&self.expr(hi, f, trace)?)?)),
        };
        Ok(rt::DiceSpec {
            count: total,
            sides: u16::try_from(d.sides).map_err(|_| Error::internal("interpreter: sides out of range"))?,
            zero_based: d.zero_based,
            read,
            reroll,
        })
    }

    /// A message with `{value}` parts (`require`, `note`), as the generated code formats it.
    fn message<T: Trace>(&self, parts: &'static [MsgPart], f: &mut Frame, trace: &mut T) -> Result<String, Error> {
        let mut text = String::new();
        for p in parts {
            match p {
                MsgPart::Text(t) => text.push_str(t),
                MsgPart::Value(e) => text.push_str(&self.expr(e, f, trace)?.to_string()),
            }
        }
        Ok(text)
    }

    // ------------------------------------------------------------ expressions

    fn expr<T: Trace>(&self, e: &'static Expr, f: &mut Frame, trace: &mut T) -> Result<V, Error> {
        match &e.kind {
            ExprKind::Const(c) => Ok(konst(self.ir, c, &e.ty)),
            ExprKind::Local(v) => f.local(v).cloned(),
            ExprKind::Input(n) => f.input(n).cloned(),
            ExprKind::Output(n) => {
                let i = f.output_index(n)?;
                Ok(f.out[i].clone())
            }
            ExprKind::KeyCol {
                key: k, tables, column, ..
            } => {
                let kv = self.expr(k, f, trace)?;
                if kv == V::None {
                    return Ok(V::None);
                }
                self.key_col(key(&kv)?, tables, column)
            }
            ExprKind::KeyName { key: k, .. } => match self.expr(k, f, trace)? {
                V::None => Ok(V::None),
                kv => Ok(V::text(key(&kv)?.name)),
            },
            ExprKind::Field(b, name) => {
                let bv = self.expr(b, f, trace)?;
                if matches!(b.ty, Ty::Opt(_)) && bv == V::None {
                    return Ok(V::None);
                }
                field(&bv, name).cloned()
            }
            ExprKind::Lookup { table, args } => {
                // One or two arguments (a range index; a matrix's row and column): no allocation.
                let mut vs = [V::None, V::None];
                for (slot, a) in vs.iter_mut().zip(args) {
                    *slot = self.expr(a, f, trace)?;
                }
                self.lookup(*table, &vs[..args.len().min(2)], trace)
            }
            ExprKind::Func(func, args) => self.func(func, args, f, trace),
            ExprKind::Agg { kind, var, list: l, body } => self.agg(*kind, var, l, body, f, trace),
            ExprKind::Neg(x) => match self.expr(x, f, trace)? {
                V::Dec(d) => Ok(V::Dec(d.checked_neg()?)),
                v => Ok(V::Int(int(&v)?.checked_neg().ok_or(Error::Overflow)?)),
            },
            ExprKind::Not(x) => Ok(V::Bool(!boolean(&self.expr(x, f, trace)?)?)),
            ExprKind::Bin(op, a, b) => self.bin(*op, a, b, e, f, trace),
            ExprKind::Cmp(op, a, b) => {
                let x = self.expr(a, f, trace)?;
                let y = self.expr(b, f, trace)?;
                Ok(V::Bool(compare(*op, &x, &y, &a.ty, &b.ty)))
            }
            ExprKind::In(x, l) => {
                // The generated `list.contains(&x)` reads the list first, unless `x` is optional.
                if matches!(x.ty, Ty::Opt(_)) {
                    let xv = self.expr(x, f, trace)?;
                    if xv == V::None {
                        return Ok(V::Bool(false));
                    }
                    let lv = list(self.expr(l, f, trace)?)?;
                    Ok(V::Bool(lv.contains(&xv)))
                } else {
                    let lv = list(self.expr(l, f, trace)?)?;
                    let xv = self.expr(x, f, trace)?;
                    Ok(V::Bool(lv.contains(&xv)))
                }
            }
            ExprKind::Is(x, tables) => match self.expr(x, f, trace)? {
                V::None => Ok(V::Bool(false)),
                kv => {
                    let k = key(&kv)?;
                    Ok(V::Bool(tables.iter().any(|&t| t == usize::from(k.table))))
                }
            },
            ExprKind::If(arms, otherwise) => {
                for (c, v) in arms {
                    if boolean(&self.expr(c, f, trace)?)? {
                        return self.expr(v, f, trace);
                    }
                }
                self.expr(otherwise, f, trace)
            }
            ExprKind::ToDec(x) => Ok(V::Dec(Dec::from_int(int(&self.expr(x, f, trace)?)?))),
            ExprKind::Construct { rec, fields } => {
                let r = &self.ir.records[*rec];
                let mut vs = Vec::with_capacity(fields.len());
                for (n, x) in fields {
                    vs.push((n.as_str(), self.expr(x, f, trace)?));
                }
                for (n, v) in &vs {
                    check_field(r, n, v)?;
                }
                // Fields in declaration order, whatever order the rules text gave them in.
                let mut out = Vec::with_capacity(r.fields.len());
                for (n, _, _) in &r.fields {
                    let v = vs.iter().find(|(k, _)| *k == n.as_str()).map(|(_, v)| v.clone());
                    out.push((n.as_str(), v.unwrap_or(V::None)));
                }
                Ok(V::record(out))
            }
            ExprKind::With { base, rec, updates } => {
                let r = &self.ir.records[*rec];
                let mut us = Vec::with_capacity(updates.len());
                for (n, x) in updates {
                    us.push((n.as_str(), self.expr(x, f, trace)?));
                }
                for (n, v) in &us {
                    check_field(r, n, v)?;
                }
                let mut b = self.expr(base, f, trace)?;
                if let V::Record(fields) = &mut b {
                    for (n, v) in us {
                        if let Some(slot) = Arc::make_mut(fields).iter_mut().find(|(k, _)| *k == n) {
                            slot.1 = v;
                        }
                    }
                }
                Ok(b)
            }
            ExprKind::Some(x) => self.expr(x, f, trace),
            ExprKind::List(items) => {
                let mut vs = Vec::with_capacity(items.len());
                for x in items {
                    vs.push(self.expr(x, f, trace)?);
                }
                Ok(V::list(vs))
            }
        }
    }

    fn key_col(&self, k: rt::Key, tables: &[usize], column: &str) -> Result<V, Error> {
        let t = usize::from(k.table);
        let found = if tables.contains(&t) {
            let col = self.ir.tables[t].columns.iter().position(|(n, _)| n == column);
            col.and_then(|c| self.cells[t].get(usize::from(k.row)).and_then(|r| r.get(c)))
        } else {
            None
        };
        found.cloned().ok_or_else(|| {
            let names: Vec<&str> = tables.iter().map(|&t| self.ir.tables[t].name.as_str()).collect();
            Error::Internal {
                message: format!("{} is not a row of {}", k.name, names.join(" | ")),
            }
        })
    }

    fn lookup<T: Trace>(&self, tid: usize, args: &[V], trace: &mut T) -> Result<V, Error> {
        let t = &self.ir.tables[tid];
        match &t.kind {
            TableKind::Matrix { rows, cols } => {
                let (Some(r), Some(c)) = (args.first(), args.get(1)) else {
                    return Err(Error::internal("interpreter: matrix lookup without two values"));
                };
                let (ri, rn) = axis_index(rows, r, &t.name)?;
                let (ci, cn) = axis_index(cols, c, &t.name)?;
                let v = self.cells[tid]
                    .get(ri)
                    .and_then(|row| row.get(ci))
                    .cloned()
                    .ok_or_else(|| Error::Internal {
                        message: format!("matrix {} is missing a cell", t.name),
                    })?;
                if T::ENABLED {
                    trace.event(Event::Row {
                        table: t.name.clone(),
                        key: format!("{rn}, {cn}"),
                        row: v.to_string(),
                        cite: t.cite.clone(),
                    });
                }
                Ok(v)
            }
            TableKind::ByEnum { .. } => {
                let Some(V::Enum(k, kn)) = args.first() else {
                    return Err(Error::internal("interpreter: enum-keyed lookup without an enum value"));
                };
                let v = self.rows[tid].get(usize::from(*k)).cloned().ok_or_else(|| Error::Internal {
                    message: format!("table {} is missing a row", t.name),
                })?;
                if T::ENABLED {
                    trace.event(Event::Row {
                        table: t.name.clone(),
                        key: kn.to_string(),
                        row: v.to_string(),
                        cite: t.cite.clone(),
                    });
                }
                Ok(v)
            }
            TableKind::DecRange => {
                // The first row in the text whose band holds the value (the checker proved one does).
                let x = match args.first() {
                    Some(V::Dec(d)) => *d,
                    Some(V::Int(i)) => Dec::from_int(*i),
                    _ => return Err(Error::internal("interpreter: decimal table lookup without a number")),
                };
                let holds = |b: &ir::DecBand| b.0.is_none_or(|(n, d)| Dec::raw(n, d) <= x) && b.1.is_none_or(|(n, d)| x <= Dec::raw(n, d));
                let idx = t.rows.iter().position(|r| r.band.as_ref().is_some_and(holds));
                self.range_row(tid, idx, x.to_string(), trace)
            }
            _ => {
                let i = int(args.first().unwrap_or(&V::None))?;
                let idx = t.rows.iter().position(|r| r.range.0 <= i && i <= r.range.1);
                self.range_row(tid, idx, i.to_string(), trace)
            }
        }
    }

    /// The row `idx` of a range table (by whole numbers or decimals) looked up with `key`, traced
    /// as the generated code traces it; no row is a domain error naming the key.
    fn range_row<T: Trace>(&self, tid: usize, idx: Option<usize>, key: String, trace: &mut T) -> Result<V, Error> {
        let t = &self.ir.tables[tid];
        let idx = idx.ok_or_else(|| Error::Domain {
            what: format!("{} is outside table {}", key, t.name),
        })?;
        let v = match &t.result {
            Some(_) => self.cells[tid][idx].first().cloned().unwrap_or(V::None),
            None => self.rows[tid][idx].clone(),
        };
        if T::ENABLED {
            trace.event(Event::Row {
                table: t.name.clone(),
                key,
                row: format!("{} => {}", t.rows[idx].label, v),
                cite: t.cite.clone(),
            });
        }
        Ok(v)
    }

    fn func<T: Trace>(&self, func: &Func, args: &'static [Expr], f: &mut Frame, trace: &mut T) -> Result<V, Error> {
        let arg = |i: usize, f: &mut Frame, trace: &mut T| -> Result<V, Error> {
            let a = args.get(i).ok_or_else(|| Error::internal("interpreter: missing argument"))?;
            self.expr(a, f, trace)
        };
        match func {
            Func::Floor => Ok(match arg(0, f, trace)? {
                V::Dec(d) => V::Int(d.floor()),
                v => v,
            }),
            Func::Ceil => Ok(match arg(0, f, trace)? {
                V::Dec(d) => V::Int(d.ceil()),
                v => v,
            }),
            Func::Round => Ok(match arg(0, f, trace)? {
                V::Dec(d) => V::Int(d.round_half_up()),
                v => v,
            }),
            Func::Abs => Ok(match arg(0, f, trace)? {
                V::Dec(d) => V::Dec(if d < Dec::ZERO { d.checked_neg()? } else { d }),
                v => V::Int(int(&v)?.checked_abs().ok_or(Error::Overflow)?),
            }),
            Func::Sqrt => Ok(V::Int(rt::isqrt(int(&arg(0, f, trace)?)?)?)),
            Func::SqrtPlaces(p) => Ok(V::Dec(rt::dec_sqrt(dec_of(&arg(0, f, trace)?)?, *p)?)),
            Func::Len => match arg(0, f, trace)? {
                V::List(xs) => Ok(V::Int(xs.len() as i64)),
                _ => Err(Error::internal("interpreter: len of a non-list")),
            },
            // Folded left to right, as generated `min(min(a, b), c)`.
            Func::Min | Func::Max => {
                let mut acc = arg(0, f, trace)?;
                for i in 1..args.len() {
                    let b = arg(i, f, trace)?;
                    let take = if matches!(func, Func::Min) { b < acc } else { b >= acc };
                    if take {
                        acc = b;
                    }
                }
                Ok(acc)
            }
            // Generated as `min(max(x, lo), max(lo, hi))`: `lo` is evaluated twice.
            Func::Clamp => {
                let (x, lo) = (arg(0, f, trace)?, arg(1, f, trace)?);
                let (lo2, hi) = (arg(1, f, trace)?, arg(2, f, trace)?);
                let a = if lo >= x { lo } else { x };
                let b = if hi >= lo2 { hi } else { lo2 };
                Ok(if b < a { b } else { a })
            }
        }
    }

    fn agg<T: Trace>(
        &self,
        kind: Agg,
        var: &'static str,
        l: &'static Expr,
        body: &'static Expr,
        f: &mut Frame,
        trace: &mut T,
    ) -> Result<V, Error> {
        let items = list(self.expr(l, f, trace)?)?;
        let mark = f.locals.len();
        let result = self.agg_items(kind, var, items, body, f, trace);
        f.locals.truncate(mark);
        result
    }

    fn agg_items<T: Trace>(
        &self,
        kind: Agg,
        var: &'static str,
        items: Vec<V>,
        body: &'static Expr,
        f: &mut Frame,
        trace: &mut T,
    ) -> Result<V, Error> {
        let mark = f.locals.len();
        let eval = |item: V, f: &mut Frame, trace: &mut T| -> Result<(V, V), Error> {
            f.locals.truncate(mark);
            f.locals.push((var, item));
            let b = self.expr(body, f, trace)?;
            let item = f.locals.pop().map(|(_, v)| v).unwrap_or(V::None);
            Ok((b, item))
        };
        let dec = body.ty == Ty::Dec;
        match kind {
            Agg::Map => {
                let mut acc = Vec::with_capacity(items.len());
                for x in items {
                    acc.push(eval(x, f, trace)?.0);
                }
                Ok(V::list(acc))
            }
            Agg::Filter => {
                let mut acc = Vec::new();
                for x in items {
                    let (b, x) = eval(x, f, trace)?;
                    if boolean(&b)? {
                        acc.push(x);
                    }
                }
                Ok(V::list(acc))
            }
            Agg::First => {
                for x in items {
                    let (b, x) = eval(x, f, trace)?;
                    if boolean(&b)? {
                        return Ok(x);
                    }
                }
                Ok(V::None)
            }
            Agg::Sort | Agg::SortDesc => {
                let mut keyed = Vec::with_capacity(items.len());
                for x in items {
                    keyed.push(eval(x, f, trace)?);
                }
                if matches!(kind, Agg::Sort) {
                    keyed.sort_by(|a, b| a.0.cmp(&b.0));
                } else {
                    keyed.sort_by(|a, b| b.0.cmp(&a.0));
                }
                Ok(V::list(keyed.into_iter().map(|(_, x)| x).collect()))
            }
            Agg::Sum => {
                if dec {
                    let mut acc = Dec::ZERO;
                    for x in items {
                        acc = acc.checked_add(dec_of(&eval(x, f, trace)?.0)?)?;
                    }
                    Ok(V::Dec(acc))
                } else {
                    let mut acc: i64 = 0;
                    for x in items {
                        acc = acc.checked_add(int(&eval(x, f, trace)?.0)?).ok_or(Error::Overflow)?;
                    }
                    Ok(V::Int(acc))
                }
            }
            Agg::Product => {
                if dec {
                    let mut acc = Dec::ONE;
                    for x in items {
                        acc = acc.checked_mul(dec_of(&eval(x, f, trace)?.0)?)?;
                    }
                    Ok(V::Dec(acc))
                } else {
                    let mut acc: i64 = 1;
                    for x in items {
                        acc = acc.checked_mul(int(&eval(x, f, trace)?.0)?).ok_or(Error::Overflow)?;
                    }
                    Ok(V::Int(acc))
                }
            }
            Agg::Count => {
                let mut acc: i64 = 0;
                for x in items {
                    if boolean(&eval(x, f, trace)?.0)? {
                        acc += 1;
                    }
                }
                Ok(V::Int(acc))
            }
            Agg::Any => {
                for x in items {
                    if boolean(&eval(x, f, trace)?.0)? {
                        return Ok(V::Bool(true));
                    }
                }
                Ok(V::Bool(false))
            }
            Agg::All => {
                for x in items {
                    if !boolean(&eval(x, f, trace)?.0)? {
                        return Ok(V::Bool(false));
                    }
                }
                Ok(V::Bool(true))
            }
            Agg::Max | Agg::Min => {
                let mut acc: Option<V> = None;
                for x in items {
                    let v = eval(x, f, trace)?.0;
                    let better = match &acc {
                        None => true,
                        Some(a) if matches!(kind, Agg::Max) => v > *a,
                        Some(a) => v < *a,
                    };
                    if better {
                        acc = Some(v);
                    }
                }
                Ok(acc.unwrap_or(if dec { V::Dec(Dec::ZERO) } else { V::Int(0) }))
            }
        }
    }

    fn bin<T: Trace>(
        &self,
        op: BinOp,
        a: &'static Expr,
        b: &'static Expr,
        e: &'static Expr,
        f: &mut Frame,
        trace: &mut T,
    ) -> Result<V, Error> {
        match op {
            BinOp::And => {
                if !boolean(&self.expr(a, f, trace)?)? {
                    return Ok(V::Bool(false));
                }
                Ok(V::Bool(boolean(&self.expr(b, f, trace)?)?))
            }
            BinOp::Or => {
                if boolean(&self.expr(a, f, trace)?)? {
                    return Ok(V::Bool(true));
                }
                Ok(V::Bool(boolean(&self.expr(b, f, trace)?)?))
            }
            BinOp::Coalesce => match self.expr(a, f, trace)? {
                // The fallback is evaluated only when needed (`docs/dsl.md`, "Optional values").
                V::None => self.expr(b, f, trace),
                // `int? ?? decimal`: the whole number as an exact decimal.
                V::Int(i) if e.ty == Ty::Dec => Ok(V::Dec(Dec::from_int(i))),
                x => Ok(x),
            },
            _ => {
                let x = self.expr(a, f, trace)?;
                let y = self.expr(b, f, trace)?;
                arith(op, x, y)
            }
        }
    }
}

fn dec_of(v: &V) -> Result<Dec, Error> {
    match v {
        V::Int(i) => Ok(Dec::from_int(*i)),
        other => dec(other),
    }
}

fn arith(op: BinOp, x: V, y: V) -> Result<V, Error> {
    match (x, y) {
        (V::List(mut xs), V::List(ys)) if op == BinOp::Add => {
            rt::list_room(xs.len().saturating_add(ys.len()))?;
            Arc::make_mut(&mut xs).extend(ys.iter().cloned());
            Ok(V::List(xs))
        }
        (V::Dec(a), V::Dec(b)) => Ok(V::Dec(match op {
            BinOp::Add => a.checked_add(b)?,
            BinOp::Sub => a.checked_sub(b)?,
            BinOp::Mul => a.checked_mul(b)?,
            _ => a.checked_div(b)?,
        })),
        (V::Int(a), V::Int(b)) => Ok(V::Int(match op {
            BinOp::Add => a.checked_add(b).ok_or(Error::Overflow)?,
            BinOp::Sub => a.checked_sub(b).ok_or(Error::Overflow)?,
            BinOp::Mul => a.checked_mul(b).ok_or(Error::Overflow)?,
            _ => rt::rem(a, b)?,
        })),
        (x, y) => Err(Error::internal(format!("interpreter: arithmetic on {x} and {y}"))),
    }
}

/// `==` on two keys compares the row, not the name it was given by; everything else is
/// structural, in the declared order of enums and the numeric order of numbers.
fn compare(op: CmpOp, x: &V, y: &V, tx: &Ty, ty: &Ty) -> bool {
    if let (Ty::Key(_), Ty::Key(_), V::Key(a), V::Key(b)) = (tx, ty, x, y) {
        let eq = a.table == b.table && a.row == b.row;
        match op {
            CmpOp::Eq => return eq,
            CmpOp::Ne => return !eq,
            _ => {}
        }
    }
    match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    }
}

/// The position of a matrix lookup argument on its axis and its label in the trace; a number
/// outside a whole-number axis is the range tables' error, as in generated code.
fn axis_index(axis: &Axis, v: &V, table: &str) -> Result<(usize, String), Error> {
    match (axis, v) {
        (Axis::Enum(_), V::Enum(i, name)) => Ok((usize::from(*i), (*name).to_string())),
        (Axis::Int { lo, hi }, V::Int(i)) => {
            if !(*lo..=*hi).contains(i) {
                return Err(Error::Domain {
                    what: format!("{i} is outside table {table}"),
                });
            }
            Ok(((*i as i128 - *lo as i128) as usize, i.to_string()))
        }
        _ => Err(Error::internal(format!("interpreter: matrix lookup with {v} on the wrong axis"))),
    }
}

fn matches_pattern(p: &Pattern, v: &V) -> bool {
    match (p, v) {
        (Pattern::Wild, _) => true,
        (Pattern::Range(a, b), V::Int(i)) => a.is_none_or(|a| a <= *i) && b.is_none_or(|b| *i <= b),
        (Pattern::DecRange(a, b), V::Dec(x)) => a.is_none_or(|(n, d)| Dec::raw(n, d) <= *x) && b.is_none_or(|(n, d)| *x <= Dec::raw(n, d)),
        (Pattern::Variant(_, var), V::Enum(i, _)) => usize::from(*i) == *var,
        _ => false,
    }
}

/// Bounded int fields of a record are checked when the record is built or updated.
fn check_field(r: &ir::RecordDef, n: &str, v: &V) -> Result<(), Error> {
    if let (Some((_, Ty::Int, Some((lo, hi)))), V::Int(x)) = (r.fields.iter().find(|(f, _, _)| f == n), v) {
        if !(*lo..=*hi).contains(x) {
            return Err(Error::OutOfRange {
                input: format!("{}.{n}", r.name),
                value: x.to_string(),
                min: lo.to_string(),
                max: hi.to_string(),
            });
        }
    }
    Ok(())
}

/// A constant of the rules as the value of type `t` (generated `konst`, then `to_value`).
pub fn konst(sys: &'static ir::System, c: &'static Const, t: &Ty) -> V {
    match (c, t) {
        (Const::None, Ty::Opt(_)) => V::None,
        (c, Ty::Opt(i)) => konst(sys, c, i),
        (Const::Int(v), Ty::Dec) => V::Dec(Dec::from_int(*v)),
        (Const::Int(v), _) => V::Int(*v),
        (Const::Dec(n, d), _) => V::Dec(Dec::raw(*n, *d)),
        (Const::Bool(b), _) => V::Bool(*b),
        (Const::Text(s), _) => V::text(s),
        (Const::Enum(e, v), _) => V::Enum(*v as u16, sys.enums[*e].variants[*v].0.as_str()),
        (Const::Key { table, row, name }, _) => V::Key(rt::Key {
            table: *table as u16,
            row: *row as u16,
            name: name.as_str(),
        }),
        (Const::List(items), Ty::List(i)) => V::list(items.iter().map(|x| konst(sys, x, i)).collect()),
        (Const::List(_), _) | (Const::None, Ty::List(_)) => V::list(Vec::new()),
        (Const::None, t) => default_of(sys, t),
    }
}

/// The zero value of a type (an output nobody set; a record's blank).
pub fn default_of(sys: &'static ir::System, t: &Ty) -> V {
    match t {
        Ty::Int => V::Int(0),
        Ty::Dec => V::Dec(Dec::ZERO),
        Ty::Bool => V::Bool(false),
        Ty::Text => V::text(""),
        Ty::Enum(e) => V::Enum(0, sys.enums[*e].variants.first().map(|(v, _)| v.as_str()).unwrap_or("")),
        Ty::Key(_) => V::Key(rt::Key {
            table: 0,
            row: 0,
            name: "",
        }),
        Ty::Opt(_) => V::None,
        Ty::List(_) => V::list(Vec::new()),
        Ty::Outcome(r) => V::record(
            sys.resolvers[*r]
                .outputs
                .iter()
                .map(|p| (p.name.as_str(), default_of(sys, &p.ty)))
                .collect(),
        ),
        Ty::Rec(r) => V::record(
            sys.records[*r]
                .fields
                .iter()
                .map(|(f, t, b)| {
                    let v = match (t, b) {
                        (Ty::Int, Some((lo, hi))) => V::Int((*lo).max((*hi).min(0))),
                        _ => default_of(sys, t),
                    };
                    (f.as_str(), v)
                })
                .collect(),
        ),
        _ => V::None,
    }
}
