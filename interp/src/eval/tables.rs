//! Table lookups (keyed, range, decimal, matrix, by enum) and the columns of a key, traced as
//! generated code traces them.

use super::{int, internal, Res, Sys, V};
use rt::{Dec, Error, Event, Trace};
use rulebook_compiler::ir::{self, Axis, TableKind};
use rulebook_runtime as rt;

impl Sys {
    pub(super) fn key_col(&self, k: rt::Key, tables: &[usize], column: &str) -> Res<V> {
        let t = usize::from(k.table);
        let found = if tables.contains(&t) {
            let col = self.ir.tables[t].columns.iter().position(|(n, _)| n == column);
            col.and_then(|c| self.cells[t].get(usize::from(k.row)).and_then(|r| r.get(c)))
        } else {
            None
        };
        found.cloned().ok_or_else(|| {
            let names: Vec<&str> = tables.iter().map(|&t| self.ir.tables[t].name.as_str()).collect();
            internal(format!("{} is not a row of {}", k.name, names.join(" | ")))
        })
    }

    #[inline(never)]
    pub(super) fn lookup<T: Trace>(&self, tid: usize, args: &[V], trace: &mut T) -> Res<V> {
        let t = &self.ir.tables[tid];
        match &t.kind {
            TableKind::Matrix { rows, cols } => {
                let (Some(r), Some(c)) = (args.first(), args.get(1)) else {
                    return Err(internal("interpreter: matrix lookup without two values"));
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
                    return Err(internal("interpreter: enum-keyed lookup without an enum value"));
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
                    _ => return Err(internal("interpreter: decimal table lookup without a number")),
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
    fn range_row<T: Trace>(&self, tid: usize, idx: Option<usize>, key: String, trace: &mut T) -> Res<V> {
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
}

/// The position of a matrix lookup argument on its axis and its label in the trace; a number
/// outside a whole-number axis is the range tables' error, as in generated code.
fn axis_index(axis: &Axis, v: &V, table: &str) -> Res<(usize, String)> {
    match (axis, v) {
        (Axis::Enum(_), V::Enum(i, name)) => Ok((usize::from(*i), (*name).to_string())),
        (Axis::Int { lo, hi }, V::Int(i)) => {
            if !(*lo..=*hi).contains(i) {
                return Err(Error::Domain {
                    what: format!("{i} is outside table {table}"),
                }
                .into());
            }
            Ok(((*i as i128 - *lo as i128) as usize, i.to_string()))
        }
        _ => Err(internal(format!("interpreter: matrix lookup with {v} on the wrong axis"))),
    }
}
