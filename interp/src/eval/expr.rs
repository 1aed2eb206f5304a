//! Expressions, built-in functions and operators.

use super::{boolean, dec_of, field, int, key, konst, list, Frame, Sys, V};
use rt::{Dec, Error, Trace};
use rulebook_compiler::ast::{BinOp, CmpOp};
use rulebook_compiler::ir::{self, Expr, ExprKind, Func, Ty};
use rulebook_runtime as rt;
use std::sync::Arc;

impl Sys {
    pub(super) fn expr<T: Trace>(&self, e: &'static Expr, f: &mut Frame, trace: &mut T) -> Result<V, Error> {
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
            ExprKind::Construct { rec, fields } => self.construct(*rec, fields, f, trace),
            ExprKind::With { base, rec, updates } => self.with(base, *rec, updates, f, trace),
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

    /// A record built from its fields (each bounded one checked), in declaration order.
    fn construct<T: Trace>(&self, rec: usize, fields: &'static [(String, Expr)], f: &mut Frame, trace: &mut T) -> Result<V, Error> {
        let r = &self.ir.records[rec];
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

    /// `base with (...)`: the updates worked out (and checked) before the base, as generated code does.
    fn with<T: Trace>(
        &self,
        base: &'static Expr,
        rec: usize,
        updates: &'static [(String, Expr)],
        f: &mut Frame,
        trace: &mut T,
    ) -> Result<V, Error> {
        let r = &self.ir.records[rec];
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
pub(super) fn compare(op: CmpOp, x: &V, y: &V, tx: &Ty, ty: &Ty) -> bool {
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
