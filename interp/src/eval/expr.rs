//! Expressions, built-in functions and operators.

use super::{boolean, dec_of, field, int, internal, key, Frame, Res, Sys, V};
use crate::lower::{FieldInit, K, X};
use rt::{Dec, Error, Trace};
use rulebook_compiler::ast::{BinOp, CmpOp};
use rulebook_compiler::ir::{self, Func, Ty};
use rulebook_runtime as rt;
use std::sync::Arc;

impl Sys {
    /// An expression's value. The kinds most evaluated are here; the rest are in `expr_other`,
    /// out of line, so that this function's frame stays small (it recurses at every node).
    pub(super) fn expr<T: Trace>(&self, x: &X, f: &mut Frame, trace: &mut T) -> Res<V> {
        match &x.k {
            K::Const(v) => Ok(v.clone()),
            K::Local(_) | K::Input(_) | K::Output(_) | K::Path { .. } => super::place(x, f).cloned(),
            K::Cmp(op, a, b) => self.both(a, b, f, trace, |l, r| Ok(V::Bool(compare(*op, l, r, &a.ir.ty, &b.ir.ty)))),
            K::Bin(op, a, b) => self.bin(*op, a, b, x, f, trace),
            K::If(arms, otherwise) => {
                for (c, v) in arms {
                    if self.cond(c, f, trace)? {
                        return self.expr(v, f, trace);
                    }
                }
                self.expr(otherwise, f, trace)
            }
            K::Not(a) => Ok(V::Bool(!self.cond(a, f, trace)?)),
            _ => self.expr_other(x, f, trace),
        }
    }

    /// A condition's truth, without building a value on the way: `and`, `or`, `not` and
    /// comparisons are worked out here, in the same order and with the same short circuits.
    pub(super) fn cond<T: Trace>(&self, x: &X, f: &mut Frame, trace: &mut T) -> Res<bool> {
        match &x.k {
            K::Bin(BinOp::And, a, b) => Ok(self.cond(a, f, trace)? && self.cond(b, f, trace)?),
            K::Bin(BinOp::Or, a, b) => Ok(self.cond(a, f, trace)? || self.cond(b, f, trace)?),
            K::Not(a) => Ok(!self.cond(a, f, trace)?),
            K::Cmp(op, a, b) => self.both(a, b, f, trace, |l, r| Ok(compare(*op, l, r, &a.ir.ty, &b.ir.ty))),
            _ if x.place => boolean(super::place(x, f)?),
            _ => boolean(&self.expr(x, f, trace)?),
        }
    }

    #[inline(never)]
    fn expr_other<T: Trace>(&self, x: &X, f: &mut Frame, trace: &mut T) -> Res<V> {
        match &x.k {
            // The kinds `expr` works out itself.
            K::Const(_) | K::Local(_) | K::Input(_) | K::Output(_) | K::Path { .. } | K::Cmp(..) | K::Bin(..) | K::If(..) | K::Not(_) => {
                self.expr(x, f, trace)
            }
            K::KeyCol { key: k, tables, column } => {
                let kv = self.expr(k, f, trace)?;
                if matches!(kv, V::None) {
                    return Ok(V::None);
                }
                self.key_col(key(&kv)?, tables, column)
            }
            K::KeyName(k) => match self.expr(k, f, trace)? {
                V::None => Ok(V::None),
                kv => Ok(V::text(key(&kv)?.name)),
            },
            K::Field { base, name, at, optional } => {
                let bv = self.expr(base, f, trace)?;
                if *optional && matches!(bv, V::None) {
                    return Ok(V::None);
                }
                field(&bv, name, *at).cloned()
            }
            K::Lookup { table, args } => {
                // One or two arguments (a range index; a matrix's row and column): no allocation.
                let mut vs = [V::None, V::None];
                for (slot, a) in vs.iter_mut().zip(args) {
                    *slot = self.expr(a, f, trace)?;
                }
                self.lookup(*table, &vs[..args.len().min(2)], trace)
            }
            K::Func(func, args) => self.func(func, args, f, trace),
            K::Agg { kind, slot, list: l, body } => self.agg(*kind, *slot, l, body, f, trace),
            K::Neg(a) => match self.expr(a, f, trace)? {
                V::Dec(d) => Ok(V::Dec(d.checked_neg()?)),
                v => Ok(V::Int(int(&v)?.checked_neg().ok_or(Error::Overflow)?)),
            },
            K::In(a, l) => {
                // The generated `list.contains(&x)` reads the list first, unless `x` is optional.
                if matches!(a.ir.ty, Ty::Opt(_)) {
                    let av = self.expr(a, f, trace)?;
                    if matches!(av, V::None) {
                        return Ok(V::Bool(false));
                    }
                    let lv = self.expr(l, f, trace)?;
                    Ok(V::Bool(items(&lv)?.contains(&av)))
                } else {
                    self.both(l, a, f, trace, |lv, av| Ok(V::Bool(items(lv)?.contains(av))))
                }
            }
            K::Is(a, tables) => match self.expr(a, f, trace)? {
                V::None => Ok(V::Bool(false)),
                kv => {
                    let k = key(&kv)?;
                    Ok(V::Bool(tables.iter().any(|&t| t == usize::from(k.table))))
                }
            },
            K::ToDec(a) => Ok(V::Dec(Dec::from_int(int(&self.expr(a, f, trace)?)?))),
            K::Construct { rec, fields } => self.construct(*rec, fields, f, trace),
            K::With { base, rec, updates } => self.with(base, *rec, updates, f, trace),
            K::Some(a) => self.expr(a, f, trace),
            K::List(items) => {
                let mut vs = Vec::with_capacity(items.len());
                for a in items {
                    vs.push(self.expr(a, f, trace)?);
                }
                Ok(V::list(vs))
            }
            K::Missing(name) => Err(internal(format!("interpreter: `{name}` is not in scope"))),
        }
    }

    /// Two operands, in order, handed to `k` as they are: a place is read where it is, not copied.
    /// (A place has no effects, so reading it after the other operand changes nothing.)
    #[inline(always)]
    fn both<T: Trace, R>(&self, a: &X, b: &X, f: &mut Frame, trace: &mut T, k: impl FnOnce(&V, &V) -> Res<R>) -> Res<R> {
        use super::place;
        match (a.place, b.place) {
            (true, true) => k(place(a, f)?, place(b, f)?),
            (true, false) => {
                let bv = self.expr(b, f, trace)?;
                k(place(a, f)?, &bv)
            }
            (false, true) => {
                let av = self.expr(a, f, trace)?;
                k(&av, place(b, f)?)
            }
            (false, false) => {
                let av = self.expr(a, f, trace)?;
                let bv = self.expr(b, f, trace)?;
                k(&av, &bv)
            }
        }
    }

    #[inline(never)]
    /// A record built from its fields (each bounded one checked), in declaration order.
    fn construct<T: Trace>(&self, rec: usize, fields: &[FieldInit], f: &mut Frame, trace: &mut T) -> Res<V> {
        let r = &self.ir.records[rec];
        let mut vs = Vec::with_capacity(fields.len());
        for fi in fields {
            vs.push(self.expr(&fi.value, f, trace)?);
        }
        for (fi, v) in fields.iter().zip(&vs) {
            check_field(r, fi, v)?;
        }
        // Fields in declaration order, whatever order the rules text gave them in.
        let mut out: Vec<(&'static str, V)> = r.fields.iter().map(|(n, _, _)| (n.as_str(), V::None)).collect();
        for (fi, v) in fields.iter().zip(vs) {
            if let Some(slot) = out.get_mut(fi.at) {
                slot.1 = v;
            }
        }
        Ok(V::record(out))
    }

    #[inline(never)]
    /// `base with (...)`: the updates worked out (and checked) before the base, as generated code does.
    fn with<T: Trace>(&self, base: &X, rec: usize, updates: &[FieldInit], f: &mut Frame, trace: &mut T) -> Res<V> {
        let r = &self.ir.records[rec];
        let mut us = Vec::with_capacity(updates.len());
        for fi in updates {
            us.push(self.expr(&fi.value, f, trace)?);
        }
        for (fi, v) in updates.iter().zip(&us) {
            check_field(r, fi, v)?;
        }
        let mut b = self.expr(base, f, trace)?;
        if let V::Record(fields) = &mut b {
            let fields = Arc::make_mut(fields);
            for (fi, v) in updates.iter().zip(us) {
                if let Some(slot) = super::field_slot(fields, fi.name, Some(fi.at)) {
                    *slot = v;
                }
            }
        }
        Ok(b)
    }

    #[inline(never)]
    fn func<T: Trace>(&self, func: &Func, args: &[X], f: &mut Frame, trace: &mut T) -> Res<V> {
        let arg = |i: usize, f: &mut Frame, trace: &mut T| -> Res<V> {
            let a = args.get(i).ok_or_else(|| internal("interpreter: missing argument"))?;
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
            Func::Len => {
                let a = args.first().ok_or_else(|| internal("interpreter: missing argument"))?;
                let n = if a.place {
                    items(super::place(a, f)?)?.len()
                } else {
                    items(&self.expr(a, f, trace)?)?.len()
                };
                Ok(V::Int(n as i64))
            }
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

    fn bin<T: Trace>(&self, op: BinOp, a: &X, b: &X, e: &X, f: &mut Frame, trace: &mut T) -> Res<V> {
        match op {
            BinOp::And => Ok(V::Bool(self.cond(a, f, trace)? && self.cond(b, f, trace)?)),
            BinOp::Or => Ok(V::Bool(self.cond(a, f, trace)? || self.cond(b, f, trace)?)),
            BinOp::Coalesce => match self.expr(a, f, trace)? {
                // The fallback is evaluated only when needed (`docs/dsl.md`, "Optional values").
                V::None => self.expr(b, f, trace),
                // `int? ?? decimal`: the whole number as an exact decimal.
                V::Int(i) if e.ir.ty == Ty::Dec => Ok(V::Dec(Dec::from_int(i))),
                x => Ok(x),
            },
            _ => self.both(a, b, f, trace, |x, y| match (x, y) {
                (V::Int(x), V::Int(y)) => int_arith(op, *x, *y).map(V::Int),
                _ => arith(op, x.clone(), y.clone()),
            }),
        }
    }
}

/// The items of a list value, borrowed.
fn items(v: &V) -> Res<&[V]> {
    match v {
        V::List(xs) => Ok(xs),
        other => Err(internal(format!("interpreter: expected a list, found {other}"))),
    }
}

#[inline]
fn int_arith(op: BinOp, a: i64, b: i64) -> Res<i64> {
    Ok(match op {
        BinOp::Add => a.checked_add(b).ok_or(Error::Overflow)?,
        BinOp::Sub => a.checked_sub(b).ok_or(Error::Overflow)?,
        BinOp::Mul => a.checked_mul(b).ok_or(Error::Overflow)?,
        _ => rt::rem(a, b)?,
    })
}

fn arith(op: BinOp, x: V, y: V) -> Res<V> {
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
        (V::Int(a), V::Int(b)) => Ok(V::Int(int_arith(op, a, b)?)),
        (x, y) => Err(internal(format!("interpreter: arithmetic on {x} and {y}"))),
    }
}

/// `==` on two keys compares the row, not the name it was given by; everything else is
/// structural, in the declared order of enums and the numeric order of numbers.
#[inline(always)]
pub(super) fn compare(op: CmpOp, x: &V, y: &V, tx: &Ty, ty: &Ty) -> bool {
    if let (Ty::Key(_), Ty::Key(_), V::Key(a), V::Key(b)) = (tx, ty, x, y) {
        let eq = a.table == b.table && a.row == b.row;
        match op {
            CmpOp::Eq => return eq,
            CmpOp::Ne => return !eq,
            _ => {}
        }
    }
    // The common kinds first, as the derived order would decide them: an enum value's index
    // decides (two values of one enum with one index have one name).
    let quick = match (x, y) {
        (V::Int(a), V::Int(b)) => Some(a.cmp(b)),
        (V::Bool(a), V::Bool(b)) => Some(a.cmp(b)),
        (V::Enum(a, _), V::Enum(b, _)) => Some(a.cmp(b)),
        (V::Text(a), V::Text(b)) if Arc::ptr_eq(a, b) => Some(std::cmp::Ordering::Equal),
        _ => None,
    };
    if let Some(o) = quick {
        return match op {
            CmpOp::Eq => o.is_eq(),
            CmpOp::Ne => o.is_ne(),
            CmpOp::Lt => o.is_lt(),
            CmpOp::Le => o.is_le(),
            CmpOp::Gt => o.is_gt(),
            CmpOp::Ge => o.is_ge(),
        };
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
fn check_field(r: &ir::RecordDef, fi: &FieldInit, v: &V) -> Res<()> {
    if let (Some((lo, hi)), V::Int(x)) = (fi.bounds, v) {
        if !(lo..=hi).contains(x) {
            return Err(Error::OutOfRange {
                input: format!("{}.{}", r.name, fi.name),
                value: x.to_string(),
                min: lo.to_string(),
                max: hi.to_string(),
            }
            .into());
        }
    }
    Ok(())
}
