//! What is the same for every compiled resolver, written once: the functions of its registry
//! entry (`Exec::Compiled`), generic over [`Compiled`], which generated code implements for each
//! resolver's typed inputs. The resolver's body stays typed and monomorphic; only the dynamic
//! edges (values in, values out) go through here.

use crate::registry::ChainFn;
use crate::{
    bind_inputs, bind_yaml, Dec, Dice, Distribution, Error, Exec, Flatten, Inputs, NoTrace, Prepared, Prob, Recorder, ResolverInfo,
    SystemInfo, Tally, Trace, Value,
};

/// A compiled resolver, by its typed inputs (`FireInputs` for `fire`).
pub trait Compiled: Sized + 'static {
    type Outcome: Flatten;
    /// The typed inputs from dynamic values (an input left out takes its default).
    fn from_values(inputs: &Inputs) -> Result<Self, Error>;
    /// The resolver on these inputs.
    fn resolve<D: Dice + ?Sized, T: Trace>(&self, dice: &mut D, trace: &mut T) -> Result<Self::Outcome, Error>;
    /// The resolver's exact odds on these inputs, typed.
    fn odds(&self) -> Result<Distribution<Self::Outcome>, Error>;
    /// An outcome as a dynamic value.
    fn value(outcome: &Self::Outcome) -> Value;
}

/// The registry entry of the compiled resolver `C`; `chain` is its typed chain, if it has one.
pub const fn compiled<C: Compiled>(chain: Option<ChainFn>) -> Exec {
    Exec::Compiled {
        run_traced: run::<C, Recorder>,
        run_quiet: run::<C, NoTrace>,
        odds: Some(odds::<C>),
        chain,
        sim: Some(prepare::<C>),
    }
}

/// One resolution from dynamic inputs, its outcome as a dynamic value.
fn run<C: Compiled, T: Trace>(dice: &mut dyn Dice, trace: &mut T, inputs: &Inputs) -> Result<Value, Error> {
    let typed = C::from_values(inputs)?;
    Ok(C::value(&typed.resolve(dice, trace)?))
}

/// Exact odds from dynamic inputs, the outcomes as dynamic values in their order.
fn odds<C: Compiled>(inputs: &Inputs) -> Result<Distribution<Value>, Error> {
    let d = C::from_values(inputs)?.odds()?;
    let mut outcomes: Vec<(Value, Prob)> = d.outcomes.into_iter().map(|(o, p)| (C::value(&o), p)).collect();
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Distribution { outcomes })
}

/// A simulation's runs: the inputs read once, each outcome handed to the tally field by field.
struct Typed<C>(C);

impl<C: Compiled> Prepared for Typed<C> {
    fn run(&self, dice: &mut dyn Dice, tally: &mut Tally) -> Result<(), Error> {
        tally.add_flat(&self.0.resolve(dice, &mut NoTrace)?);
        Ok(())
    }
}

fn prepare<C: Compiled>(inputs: &Inputs) -> Result<Box<dyn Prepared>, Error> {
    Ok(Box::new(Typed(C::from_values(inputs)?)))
}

/// `parse` of a compiled resolver's typed inputs: text as `rulebook roll --set NAME=TEXT` takes
/// it, for the resolver `index` of `system`.
pub fn parse<C: Compiled>(system: &SystemInfo, index: usize, sets: &[(&str, &str)]) -> Result<C, Error> {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    C::from_values(&bind_inputs(entry(system, index)?, &sets, None)?)
}

/// `from_yaml` of a compiled resolver's typed inputs, for the resolver `index` of `system`.
pub fn from_yaml<C: Compiled>(system: &SystemInfo, index: usize, yaml: &str) -> Result<C, Error> {
    C::from_values(&bind_yaml(entry(system, index)?, yaml)?)
}

fn entry(system: &SystemInfo, index: usize) -> Result<&ResolverInfo, Error> {
    system.resolvers.get(index).ok_or_else(|| Error::Internal {
        message: format!("resolver {index} of {} is missing from the registry", system.name),
    })
}

/// `impl serde::Serialize` for a generated type with a `to_value` method: serialized as its
/// dynamic value, the same JSON as `rulebook roll --json`.
#[macro_export]
macro_rules! serialize_via_value {
    ($ty:ty) => {
        /// Serialized as its dynamic value (`to_value`): the same JSON as `rulebook roll --json`.
        impl $crate::serde::Serialize for $ty {
            fn serialize<RtSerializer: $crate::serde::Serializer>(
                &self,
                serializer: RtSerializer,
            ) -> Result<RtSerializer::Ok, RtSerializer::Error> {
                $crate::serde::Serialize::serialize(&self.to_value(), serializer)
            }
        }
    };
}

/// `impl serde::Serialize` and `impl Display` for a generated enum: both write the variant's name
/// in the rules (`hit`), as `rulebook roll --json` prints it. (`Debug` writes the Rust name, `Hit`.)
#[macro_export]
macro_rules! rules_enum {
    ($ty:ty) => {
        impl $crate::serde::Serialize for $ty {
            fn serialize<RtSerializer: $crate::serde::Serializer>(
                &self,
                serializer: RtSerializer,
            ) -> Result<RtSerializer::Ok, RtSerializer::Error> {
                serializer.serialize_str($crate::EnumType::name(*self))
            }
        }
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::EnumType::name(*self))
            }
        }
    };
}

/// A whole number checked against its declared range (an input, a record's field):
/// `Error::OutOfRange` naming it when outside.
#[inline]
pub fn in_range(input: &str, value: i64, min: i64, max: i64) -> Result<(), Error> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(out_of_range(input, value.to_string(), min, max))
    }
}

/// A decimal checked against its declared whole-number range, as `in_range`.
#[inline]
pub fn dec_in_range(input: &str, value: Dec, min: i64, max: i64) -> Result<(), Error> {
    if value < Dec::from_int(min) || value > Dec::from_int(max) {
        Err(out_of_range(input, value.to_string(), min, max))
    } else {
        Ok(())
    }
}

#[cold]
fn out_of_range(input: &str, value: String, min: i64, max: i64) -> Error {
    Error::OutOfRange {
        input: input.to_string(),
        value,
        min: min.to_string(),
        max: max.to_string(),
    }
}

/// `impl Compiled` for a generated resolver: its inputs and outcome types, the resolver function
/// and its typed exact odds (`rt::compiled_resolver!(FireInputs, FireOutcome, fire, odds::fire);`).
#[macro_export]
macro_rules! compiled_resolver {
    ($inputs:ident, $outcome:ident, $resolve:path, $odds:path) => {
        impl $crate::Compiled for $inputs {
            type Outcome = $outcome;
            fn from_values(m: &$crate::Inputs) -> Result<Self, $crate::Error> {
                $inputs::from_values(m)
            }
            fn resolve<D: $crate::Dice + ?Sized, T: $crate::Trace>(&self, dice: &mut D, trace: &mut T) -> Result<$outcome, $crate::Error> {
                $resolve(dice, trace, self)
            }
            fn odds(&self) -> Result<$crate::Distribution<$outcome>, $crate::Error> {
                $odds(self)
            }
            fn value(o: &$outcome) -> $crate::Value {
                o.to_value()
            }
        }
    };
}
