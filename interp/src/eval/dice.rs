//! Rolls: a roll's dice count and read worked out into the runtime's `DiceSpec`.

use super::{int, internal, Frame, Res, Sys, V};
use crate::lower::{Dice, Read, K, X};
use rt::{Error, Event, Trace};
use rulebook_compiler::ir::{self, Const, ExprKind};
use rulebook_runtime as rt;

impl Sys {
    /// A `roll` statement: the dice thrown (by the rows of the one range table that reads them,
    /// under exact odds, as generated code does) and traced.
    #[expect(clippy::too_many_arguments, reason = "the fields of one `roll` statement")]
    pub(super) fn roll<D: rt::Dice + ?Sized, T: Trace>(
        &self,
        slot: usize,
        label: &str,
        lowered: &Dice,
        classed: Option<&'static [(i64, i64)]>,
        cite: &str,
        f: &mut Frame,
        dice: &mut D,
        trace: &mut T,
    ) -> Res<()> {
        let d = lowered.ir;
        let spec = self.spec(lowered, label, f, trace)?;
        let rows = if T::ENABLED { None } else { classed };
        let v = match rows {
            Some(rows) => dice.roll_classed(&spec, label, rows)?,
            None => dice.roll_for(&spec, label)?,
        };
        f.bind(slot, V::Int(v))?;
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
    fn dice_count<T: Trace>(&self, e: &X, d: &'static ir::Dice, label: &str, f: &mut Frame, trace: &mut T) -> Res<u16> {
        match (&e.k, &e.ir.kind) {
            (K::Const(_), ExprKind::Const(Const::Int(n))) => u16::try_from(*n).map_err(|_| {
                Box::new(Error::Domain {
                    what: "dice count".to_string(),
                })
            }),
            _ => {
                let n = int(&self.expr(e, f, trace)?)?;
                u16::try_from(n).map_err(|_| {
                    Box::new(Error::Domain {
                        what: format!(
                            "dice count {} is {} in roll `{}` ({})",
                            n,
                            if n < 0 { "negative" } else { "too large" },
                            label,
                            d.notation
                        ),
                    })
                })
            }
        }
    }

    fn spec<T: Trace>(&self, lowered: &Dice, label: &str, f: &mut Frame, trace: &mut T) -> Res<rt::DiceSpec> {
        let d = lowered.ir;
        let count = self.dice_count(&lowered.count, d, label, f, trace)?;
        let mut total = count;
        let small = |k: i64| u8::try_from(k).map_err(|_| internal("interpreter: keep count out of range"));
        let read = match (&d.read, &lowered.read) {
            (ir::Read::Sum, _) => rt::Read::Sum,
            (ir::Read::KeepHighest(k), _) => rt::Read::KeepHighest(small(*k)?),
            (ir::Read::KeepLowest(k), _) => rt::Read::KeepLowest(small(*k)?),
            (ir::Read::Flux, _) => rt::Read::Flux,
            (ir::Read::BadFlux, _) => rt::Read::BadFlux,
            (ir::Read::Percentile, _) => rt::Read::Percentile,
            (ir::Read::Explode(depth), _) => {
                rt::Read::Explode(u8::try_from(*depth).map_err(|_| internal("interpreter: explode depth out of range"))?)
            }
            (
                _,
                Read::Opposed {
                    second,
                    first_mod,
                    second_mod,
                },
            ) => {
                let second = self.dice_count(second, d, label, f, trace)?;
                let m1 = int(&self.expr(first_mod, f, trace)?)?;
                let m2 = int(&self.expr(second_mod, f, trace)?)?;
                let read = rt::Read::Opposed {
                    first: count,
                    first_mod: i32::try_from(m1).map_err(|_| Box::new(Error::Overflow))?,
                    second_mod: i32::try_from(m2).map_err(|_| Box::new(Error::Overflow))?,
                };
                total = count.checked_add(second).ok_or(Error::Overflow)?;
                read
            }
            (_, Read::SumFloor { per_die, floor }) => {
                let p = int(&self.expr(per_die, f, trace)?)?;
                rt::Read::SumFloor {
                    per_die: i8::try_from(p).map_err(|_| Box::new(Error::Overflow))?,
                    floor: i8::try_from(*floor).map_err(|_| internal("interpreter: floor out of range"))?,
                }
            }
            _ => return Err(internal("interpreter: dice lowered out of their kind")),
        };
        // A computed reroll range is evaluated after the count and the read, as generated code does.
        let reroll = match &lowered.reroll {
            None => None,
            Some((lo, hi)) => Some((int(&self.expr(lo, f, trace)?)?, int(&self.expr(hi, f, trace)?)?)),
        };
        Ok(rt::DiceSpec {
            count: total,
            sides: u16::try_from(d.sides).map_err(|_| internal("interpreter: sides out of range"))?,
            zero_based: d.zero_based,
            read,
            reroll,
        })
    }
}
