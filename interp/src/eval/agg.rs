//! Aggregates over a list (`map`, `filter`, `first`, `sort`, `sum`, `count`, `any`, `max`...).

use super::{dec_of, int, internal, Frame, Res, Sys, V};
use crate::lower::X;
use rt::{Dec, Error, Trace};
use rulebook_compiler::ast::Agg;
use rulebook_compiler::ir::Ty;
use rulebook_runtime as rt;
use std::sync::Arc;

impl Sys {
    #[inline(never)]
    pub(super) fn agg<T: Trace>(&self, kind: Agg, slot: usize, l: &X, body: &X, f: &mut Frame, trace: &mut T) -> Res<V> {
        let items = Items::of(self.expr(l, f, trace)?)?;
        let result = self.agg_items(kind, slot, items, body, f, trace);
        f.end(&[slot]);
        result
    }

    fn agg_items<T: Trace>(&self, kind: Agg, slot: usize, items: Items, body: &X, f: &mut Frame, trace: &mut T) -> Res<V> {
        let eval = |item: V, f: &mut Frame, trace: &mut T| -> Res<(V, V)> {
            f.bind(slot, item)?;
            let b = self.expr(body, f, trace)?;
            let item = std::mem::replace(f.local_mut(slot)?, V::None);
            Ok((b, item))
        };
        // A condition's truth for an item, and the item back.
        let test = |item: V, f: &mut Frame, trace: &mut T| -> Res<(bool, V)> {
            f.bind(slot, item)?;
            let b = self.cond(body, f, trace)?;
            let item = std::mem::replace(f.local_mut(slot)?, V::None);
            Ok((b, item))
        };
        let dec = body.ir.ty == Ty::Dec;
        match kind {
            Agg::Map => {
                let mut acc = Vec::with_capacity(items.size_hint().0);
                for x in items {
                    acc.push(eval(x, f, trace)?.0);
                }
                Ok(V::list(acc))
            }
            Agg::Filter => {
                let mut acc = Vec::new();
                for x in items {
                    let (b, x) = test(x, f, trace)?;
                    if b {
                        acc.push(x);
                    }
                }
                Ok(V::list(acc))
            }
            Agg::First => {
                for x in items {
                    let (b, x) = test(x, f, trace)?;
                    if b {
                        return Ok(x);
                    }
                }
                Ok(V::None)
            }
            Agg::Sort | Agg::SortDesc => {
                let mut keyed = Vec::with_capacity(items.size_hint().0);
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
            Agg::Sum => agg_sum(dec, items, f, trace, eval),
            Agg::Product => agg_product(dec, items, f, trace, eval),
            Agg::Count => {
                let mut acc: i64 = 0;
                for x in items {
                    if test(x, f, trace)?.0 {
                        acc += 1;
                    }
                }
                Ok(V::Int(acc))
            }
            Agg::Any => {
                for x in items {
                    if test(x, f, trace)?.0 {
                        return Ok(V::Bool(true));
                    }
                }
                Ok(V::Bool(false))
            }
            Agg::All => {
                for x in items {
                    if !test(x, f, trace)?.0 {
                        return Ok(V::Bool(false));
                    }
                }
                Ok(V::Bool(true))
            }
            Agg::Max | Agg::Min => agg_extreme(kind, dec, items, f, trace, eval),
        }
    }
}

/// A list's items, one by one: moved out of a list nobody else holds, else copied one at a time
/// (each a reference-counted copy) without copying the list.
enum Items {
    Owned(std::vec::IntoIter<V>),
    Shared(Arc<Vec<V>>, usize),
}

impl Items {
    fn of(v: V) -> Res<Items> {
        match v {
            V::List(xs) => Ok(match Arc::try_unwrap(xs) {
                Ok(owned) => Items::Owned(owned.into_iter()),
                Err(shared) => Items::Shared(shared, 0),
            }),
            other => Err(internal(format!("interpreter: expected a list, found {other}"))),
        }
    }
}

impl Iterator for Items {
    type Item = V;

    fn next(&mut self) -> Option<V> {
        match self {
            Items::Owned(it) => it.next(),
            Items::Shared(xs, i) => {
                let x = xs.get(*i).cloned();
                *i += 1;
                x
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match self {
            Items::Owned(it) => it.len(),
            Items::Shared(xs, i) => xs.len().saturating_sub(*i),
        };
        (n, Some(n))
    }
}

/// `sum`, as exact decimals or whole numbers, overflow an error.
fn agg_sum<T: Trace>(dec: bool, items: Items, f: &mut Frame, trace: &mut T, eval: impl Fn(V, &mut Frame, &mut T) -> Res<(V, V)>) -> Res<V> {
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

/// `product`, as exact decimals or whole numbers, overflow an error.
fn agg_product<T: Trace>(
    dec: bool,
    items: Items,
    f: &mut Frame,
    trace: &mut T,
    eval: impl Fn(V, &mut Frame, &mut T) -> Res<(V, V)>,
) -> Res<V> {
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

/// `max` and `min`: the first item of the greatest (least) value; zero for no items.
fn agg_extreme<T: Trace>(
    kind: Agg,
    dec: bool,
    items: Items,
    f: &mut Frame,
    trace: &mut T,
    eval: impl Fn(V, &mut Frame, &mut T) -> Res<(V, V)>,
) -> Res<V> {
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
