//! Rolls: a roll's dice count and read worked out into the runtime's `DiceSpec`.

use super::{int, Frame, Sys, V};
use rt::{Error, Event, Trace};
use rulebook_compiler::ir::{self, Const, Expr, ExprKind, Stmt};
use rulebook_runtime as rt;

impl Sys {
    /// A `roll` statement: the dice thrown (by the rows of the one range table that reads them,
    /// under exact odds, as generated code does) and traced.
    #[expect(clippy::too_many_arguments, reason = "the fields of one `roll` statement")]
    pub(super) fn roll<D: rt::Dice + ?Sized, T: Trace>(
        &self,
        s: &'static Stmt,
        var: &'static str,
        label: &str,
        d: &'static ir::Dice,
        cite: &str,
        f: &mut Frame,
        dice: &mut D,
        trace: &mut T,
    ) -> Result<(), Error> {
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
        f.locals.push((var, V::Int(v)));
        if T::ENABLED {
            trace.event(Event::Roll {
                label: label.to_string(),
                // An opposed roll shows its sides' modifiers worked out, as generated code does.
                dice: if matches!(d.read, ir::Read::Opposed { .. }) {
                    spec.notation()
                } else {
                    d.notation.clone()
                },
                faces: dice.last_faces().to_vec(),
                adjusted: spec.adjusted_faces(dice.last_faces()),
                value: v,
                cite: cite.to_string(),
            });
        }
        Ok(())
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
}
