//! Blocks and statements, with a `let`'s modifiers and clamp and the messages of `require` and `note`.

use super::expr::compare;
use super::{int, internal, Flow, Frame, Res, Sys, V};
use crate::lower::{Block, Part, M, S, SK, X};
use rt::{Dec, Error, Event, Trace};
use rulebook_compiler::ast::CmpOp;
use rulebook_compiler::ir::{self, Pattern, Stmt, Ty};
use rulebook_runtime as rt;

impl Sys {
    /// A block in its own scope: locals it declares end with it.
    pub(super) fn block<D: rt::Dice + ?Sized, T: Trace>(&self, b: &Block, f: &mut Frame, dice: &mut D, trace: &mut T) -> Res<Flow> {
        let mut flow = Flow::Next;
        for s in &b.stmts {
            // A group of checks (`ir::is_check`) not inside another: its failed `require`s stop
            // the resolution where the group ends.
            let group = !f.checking && s.check;
            f.checking |= group;
            let done = self.stmt(s, f, dice, trace);
            f.checking &= !group;
            flow = done.map_err(|e| self.at_statement(*e, f, s.ir))?;
            if group && !s.next_check {
                if let Some(violations) = f.violations.take() {
                    return Err(self.at_statement(Error::Rejected { violations }, f, s.ir));
                }
            }
            if !matches!(flow, Flow::Next) {
                break;
            }
        }
        f.end(&b.own);
        Ok(flow)
    }

    /// An error the statement `s` raised, located there (`docs/dsl.md`, "Run-time errors").
    #[cold]
    #[inline(never)]
    fn at_statement(&self, e: Error, f: &Frame, s: &Stmt) -> Box<Error> {
        let resolver = format!("{}.{}", self.ir.name, f.r.name);
        Box::new(e.at_statement(&resolver, s.at(), s.cite_or(&f.r.cite)))
    }

    fn stmt<D: rt::Dice + ?Sized, T: Trace>(&self, s: &S, f: &mut Frame, dice: &mut D, trace: &mut T) -> Res<Flow> {
        match (&s.k, s.ir) {
            (SK::Let { slot, value, mods }, Stmt::Let { name, ty, cite, clamp, .. }) => {
                self.stmt_let(f, trace, *slot, name, ty, value, cite.as_deref(), mods, clamp)?
            }
            (SK::Var { slot, value }, Stmt::Var { name, cite, .. }) => {
                let v = self.expr(value, f, trace)?;
                f.bind(*slot, v)?;
                self.trace_let(f, trace, name, *slot, cite.as_deref())?;
            }
            (SK::Assign { slot, value }, Stmt::Assign { name, cite, .. }) => {
                let v = self.expr(value, f, trace)?;
                *f.local_mut(*slot)? = v;
                if let (true, Some(c)) = (T::ENABLED, cite) {
                    trace.event(Event::Assign {
                        name: name.clone(),
                        value: f.local(*slot)?.to_value(),
                        cite: c.clone(),
                    });
                }
            }
            (SK::Roll { slot, dice: d, classed }, Stmt::Roll { label, cite, .. }) => {
                self.roll(*slot, label, d, *classed, cite, f, dice, trace)?
            }
            (
                SK::Check { slot, left, right },
                Stmt::Check {
                    op,
                    left_text,
                    right_text,
                    cite,
                    ..
                },
            ) => self.stmt_check(*slot, left, *op, right, left_text, right_text, cite, f, trace)?,
            (SK::Set { out, value }, Stmt::Set { field, cite, .. }) => {
                let v = self.expr(value, f, trace)?;
                if T::ENABLED {
                    trace.event(Event::Set {
                        field: field.clone(),
                        value: v.to_value(),
                        cite: cite.clone(),
                    });
                }
                if let Some(o) = f.out.get_mut(*out) {
                    *o = v;
                }
            }
            (SK::If { arms, otherwise }, _) => {
                for (c, b) in arms {
                    if self.cond(c, f, trace)? {
                        return self.block(b, f, dice, trace);
                    }
                }
                return self.block(otherwise, f, dice, trace);
            }
            (SK::Match { scrutinee, arms }, _) => {
                let v = self.expr(scrutinee, f, trace)?;
                for (pats, body) in arms {
                    if pats.iter().any(|p| matches_pattern(p, &v)) {
                        return self.block(body, f, dice, trace);
                    }
                }
            }
            (SK::Call(c), _) => self.call(s.ir, c, f, dice, trace)?,
            (SK::Require { cond, message }, Stmt::Require { cite, at, .. }) => {
                if !self.cond(cond, f, trace)? {
                    let text = self.message(message, f, trace)?;
                    f.violations.get_or_insert_with(Vec::new).push(rt::Violation {
                        cite: cite.clone(),
                        message: text,
                        at: at.clone(),
                    });
                }
            }
            (SK::Note { text }, Stmt::Note { cite, .. }) => {
                if T::ENABLED {
                    let text = self.message(text, f, trace)?;
                    trace.event(Event::Note { text, cite: cite.clone() });
                }
            }
            (SK::Return, _) => return Ok(Flow::Return),
            (SK::Break, _) => return Ok(Flow::Break),
            (SK::Repeat { times, body, at }, _) => return self.repeat(*times, body, at, f, dice, trace),
            (SK::For { slot, list: l, body, at }, _) => return self.for_each(*slot, l, body, at, f, dice, trace),
            (SK::Missing(name), _) => return Err(internal(format!("interpreter: `{name}` is not in scope"))),
            _ => return Err(internal("interpreter: a statement lowered out of its kind")),
        }
        Ok(Flow::Next)
    }

    /// A `check` statement: the comparison kept as a local and traced.
    #[expect(clippy::too_many_arguments, reason = "the fields of one `check` statement")]
    fn stmt_check<T: Trace>(
        &self,
        slot: usize,
        left: &X,
        op: CmpOp,
        right: &X,
        left_text: &str,
        right_text: &str,
        cite: &str,
        f: &mut Frame,
        trace: &mut T,
    ) -> Res<()> {
        let l = self.expr(left, f, trace)?;
        let r = self.expr(right, f, trace)?;
        // The generated `l == r` here compares keys with their names, as derived equality does.
        let result = compare(op, &l, &r, &Ty::Error, &Ty::Error);
        f.bind(slot, V::Bool(result))?;
        if T::ENABLED {
            trace.event(Event::Compare {
                left: left_text.to_string(),
                left_value: l.to_value(),
                op: op.symbol().to_string(),
                right: right_text.to_string(),
                right_value: r.to_value(),
                result,
                cite: cite.to_string(),
            });
        }
        Ok(())
    }

    #[expect(clippy::too_many_arguments, reason = "the fields of one `let` statement")]
    fn stmt_let<T: Trace>(
        &self,
        f: &mut Frame,
        trace: &mut T,
        slot: usize,
        name: &str,
        ty: &Ty,
        value: &X,
        cite: Option<&str>,
        mods: &[M],
        clamp: &Option<(Option<i64>, Option<i64>)>,
    ) -> Res<()> {
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
                    M::One {
                        value,
                        when,
                        m: ir::Mod::One { name, cite, .. },
                    } => {
                        let applies = match when {
                            Some(w) => self.cond(w, f, trace)?,
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
                    M::One { .. } => return Err(internal("interpreter: a modifier lowered out of its kind")),
                    M::Highest { name: group, mods } => {
                        let mut best: Option<(V, &str, &str)> = None;
                        for m in mods {
                            if let M::One {
                                value,
                                when,
                                m: ir::Mod::One { name, cite, .. },
                            } = m
                            {
                                let applies = match when {
                                    Some(w) => self.cond(w, f, trace)?,
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
            v = clamped(v, ty, clamp);
        }
        if T::ENABLED && (cite.is_some() || !mods.is_empty()) {
            trace.event(Event::Let {
                name: name.to_string(),
                value: v.to_value(),
                cite: cite.unwrap_or("").to_string(),
            });
        }
        f.bind(slot, v)
    }

    fn trace_let<T: Trace>(&self, f: &Frame, trace: &mut T, name: &str, slot: usize, cite: Option<&str>) -> Res<()> {
        if let (true, Some(c)) = (T::ENABLED, cite) {
            trace.event(Event::Let {
                name: name.to_string(),
                value: f.local(slot)?.to_value(),
                cite: c.to_string(),
            });
        }
        Ok(())
    }

    fn num_as<T: Trace>(&self, e: &X, ty: &Ty, f: &mut Frame, trace: &mut T) -> Res<V> {
        let v = self.expr(e, f, trace)?;
        if *ty == Ty::Dec && e.ir.ty == Ty::Int {
            Ok(V::Dec(Dec::from_int(int(&v)?)))
        } else {
            Ok(v)
        }
    }

    /// A message with `{value}` parts (`require`, `note`), as the generated code formats it.
    fn message<T: Trace>(&self, parts: &[Part], f: &mut Frame, trace: &mut T) -> Res<String> {
        let mut text = String::new();
        for p in parts {
            match p {
                Part::Text(t) => text.push_str(t),
                Part::Value(e) => text.push_str(&self.expr(e, f, trace)?.to_string()),
            }
        }
        Ok(text)
    }
}

fn add_mod(var: &V, m: &V) -> Res<V> {
    match (var, m) {
        (V::Dec(a), V::Dec(b)) => Ok(V::Dec(a.checked_add(*b)?)),
        (V::Int(a), V::Int(b)) => Ok(V::Int(a.checked_add(*b).ok_or(Error::Overflow)?)),
        _ => Err(internal("interpreter: modifier of another type than its value")),
    }
}

fn is_zero(v: &V) -> bool {
    matches!(v, V::Int(0)) || matches!(v, V::Dec(d) if *d == Dec::ZERO)
}

/// A `let`'s value held within its `clamp` bounds, in its own type.
fn clamped(mut v: V, ty: &Ty, clamp: &Option<(Option<i64>, Option<i64>)>) -> V {
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
    v
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
