//! Running a resolver (its steps, input bounds, outputs), `call` statements (through
//! `rt::memo_call` under exact odds, as generated code) and loops, whose turns are steps.

use super::{int, internal, list, Flow, Frame, Res, Sys, V};
use crate::lower::{Block, Call, X};
use rt::{Dec, Error, Event, Trace};
use rulebook_compiler::ir::{Stmt, Ty};
use rulebook_runtime as rt;

impl Sys {
    /// Runs resolver `rid` on inputs already read (declaration order) and returns its outcome.
    pub fn run<D: rt::Dice + ?Sized, T: Trace>(&self, rid: usize, dice: &mut D, trace: &mut T, inputs: &[V]) -> Res<V> {
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
                    }
                    .into());
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
                    }
                    .into());
                }
            }
        }
        let code = self.code.get(rid).ok_or_else(|| internal("interpreter: no such resolver"))?;
        let mut f = Frame {
            r,
            inputs,
            out: code.outputs.clone(),
            locals: vec![V::None; code.slots],
            violations: None,
            checking: false,
        };
        // A located error names each resolver it leaves (`rt::Error::leaving`).
        self.block(&code.body, &mut f, dice, trace)
            .map_err(|e| Box::new(e.leaving(&format!("{}.{}", self.ir.name, r.name))))?;
        if T::ENABLED {
            trace.event(Event::Exit { resolver: r.name.clone() });
        }
        Ok(V::record(r.outputs.iter().map(|p| p.name.as_str()).zip(f.out).collect()))
    }

    /// A turn of the loop at `at` is a step (`rt::steps`).
    fn step_loop(&self, f: &Frame, at: &str) -> Res<()> {
        rt::steps::take(&rt::Site {
            kind: rt::SiteKind::Loop,
            at,
            system: &self.ir.name,
            resolver: &f.r.name,
        })?;
        Ok(())
    }

    /// A `call` statement: the callee run on its inputs (through `rt::memo_call` under exact
    /// odds), its outcome kept as a local.
    pub(super) fn call<D: rt::Dice + ?Sized, T: Trace>(
        &self,
        stmt: &'static Stmt,
        c: &Call,
        f: &mut Frame,
        dice: &mut D,
        trace: &mut T,
    ) -> Res<()> {
        let callee = &self.ir.resolvers[c.resolver];
        let mut values: Vec<V> = vec![V::None; callee.inputs.len()];
        let mut given = 0;
        for (i, e) in &c.args {
            let v = self.expr(e, f, trace)?;
            if let Some(slot) = i.and_then(|i| values.get_mut(i)) {
                *slot = v;
                given += 1;
            }
        }
        // The checker gives every input (the generated struct literal needs them all).
        if given != callee.inputs.len() {
            return Err(internal(format!("interpreter: call of `{}` without all its inputs", callee.name)));
        }
        // Under exact odds, branch over the callee's outcomes as generated code does.
        let site = stmt as *const Stmt as usize;
        // Only enumerating dice look the call up: plain runs pay nothing for it.
        let enumerating = if T::ENABLED { None } else { rt::enumerator(dice) };
        let memo = match enumerating.zip(c.memo.as_ref()) {
            Some((e, fields)) => rt::memo_call(
                e,
                site,
                || values.clone(),
                |o: &V| match fields {
                    Some(fs) => fs.iter().map(|n| o.field(n).cloned().unwrap_or(V::None)).collect(),
                    None => vec![o.clone()],
                },
                |e, vals: &Vec<V>| self.run(c.resolver, e, &mut rt::NoTrace, vals).map_err(|e| *e),
            ),
            None => None,
        };
        let o = match memo {
            Some(o) => o?,
            None => self.run(c.resolver, dice, trace, &values)?,
        };
        f.bind(c.slot, o)
    }

    /// A `repeat` loop, each turn a step.
    pub(super) fn repeat<D: rt::Dice + ?Sized, T: Trace>(
        &self,
        times: i64,
        body: &Block,
        at: &str,
        f: &mut Frame,
        dice: &mut D,
        trace: &mut T,
    ) -> Res<Flow> {
        for _ in 0..times {
            self.step_loop(f, at)?;
            match self.block(body, f, dice, trace)? {
                Flow::Next => {}
                Flow::Break => break,
                Flow::Return => return Ok(Flow::Return),
            }
        }
        Ok(Flow::Next)
    }

    /// A `for` loop over a list's items, each turn a step.
    #[expect(clippy::too_many_arguments, reason = "the fields of one `for` statement")]
    pub(super) fn for_each<D: rt::Dice + ?Sized, T: Trace>(
        &self,
        slot: usize,
        l: &X,
        body: &Block,
        at: &str,
        f: &mut Frame,
        dice: &mut D,
        trace: &mut T,
    ) -> Res<Flow> {
        let items = list(self.expr(l, f, trace)?)?;
        for item in items {
            self.step_loop(f, at)?;
            f.bind(slot, item)?;
            let flow = self.block(body, f, dice, trace);
            f.end(&[slot]);
            match flow? {
                Flow::Next => {}
                Flow::Break => break,
                Flow::Return => return Ok(Flow::Return),
            }
        }
        Ok(Flow::Next)
    }
}
