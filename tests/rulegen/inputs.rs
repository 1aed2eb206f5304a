//! Random valid inputs for any registry resolver (compiled or interpreted), drawn from an
//! [`Entropy`](super::Entropy): mostly ordinary values, sometimes at the edges of their bounds.
//! The same shapes `tests/differential.rs` uses; shared by the generated-rules test, the
//! property tests and the fuzz targets.

use super::Entropy;
use rulebook_runtime as rt;

fn chance(e: &mut dyn Entropy, percent: u64) -> bool {
    e.below(100) < percent
}

/// A random value of a registry type.
pub fn value(e: &mut dyn Entropy, ty: &'static rt::Ty) -> rt::Value {
    use rt::Value;
    match ty {
        rt::Ty::Bool => Value::Bool(chance(e, 50)),
        rt::Ty::Int { min, max } => {
            let (lo, hi) = ((*min).max(-20), (*max).min(40));
            if chance(e, 10) {
                Value::Int(*min)
            } else if chance(e, 10) {
                Value::Int(*max)
            } else if lo <= hi {
                Value::Int(lo + e.below((hi - lo) as u64 + 1) as i64)
            } else {
                Value::Int(*min)
            }
        }
        rt::Ty::Dec => Value::Dec(rt::Dec::new(e.below(41) as i64 - 10, 1 + e.below(4) as i64).unwrap_or(rt::Dec::ZERO)),
        rt::Ty::Text => Value::Text(["", "Alpha", "B Company", "x"][e.below(4) as usize].to_string()),
        rt::Ty::Enum(info) => {
            let i = e.below(info.variants.len() as u64) as usize;
            Value::Enum(i as u16, info.variants[i])
        }
        rt::Ty::Key(tables) => {
            let t = tables[e.below(tables.len() as u64) as usize];
            if t.keys.is_empty() {
                return Value::None;
            }
            let row = e.below(t.keys.len() as u64) as usize;
            Value::Key(rt::Key {
                table: t.id,
                row: row as u16,
                name: t.keys[row],
            })
        }
        rt::Ty::List(inner) => {
            let n = e.below(4);
            Value::List((0..n).map(|_| value(e, inner)).collect())
        }
        rt::Ty::Opt(inner) => {
            if chance(e, 30) {
                Value::None
            } else {
                value(e, inner)
            }
        }
        rt::Ty::Struct(rec) => Value::Record(rec.fields.iter().map(|f| (f.name, value(e, f.ty))).collect()),
        rt::Ty::Record(_) => Value::None,
    }
}

/// Random inputs for every input of `r`.
pub fn inputs(e: &mut dyn Entropy, r: &rt::ResolverInfo) -> rt::Inputs {
    r.inputs.iter().map(|i| (i.name.to_string(), value(e, i.ty))).collect()
}
