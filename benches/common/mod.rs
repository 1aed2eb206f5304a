//! The inputs the fire and odds benchmarks share, bound through the registry so that every
//! input left out takes the rules' own default.

use rulebook::starleader::{self, FireInputs};
use rulebook_runtime as rt;

/// The fire of the benchmarks, and of `tests/odds.rs` and `tests/differential.rs` (which include
/// this file): Ghazi 10/7 at an UP target (size 2) in armor 5, 5 hexes, special results and heavy
/// hits on.
pub const FIRE: &[(&str, &str)] = &[
    ("weapon", "Ghazi 10/7"),
    ("target_size", "2"),
    ("armor_rating", "5"),
    ("range_hexes", "5"),
    ("special_results", "true"),
    ("heavy_hits", "true"),
];

/// [`FIRE`], everything else at its default: the resolver's registry entry, the bound inputs and
/// the typed ones.
pub fn fire_inputs() -> (&'static rt::ResolverInfo, rt::Inputs, FireInputs) {
    let info = starleader::SYSTEM.resolver("fire").expect("fire resolver");
    let sets: Vec<(String, String)> = FIRE.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let bound = rt::bind_inputs(info, &sets, None).expect("bind fire inputs");
    let typed = FireInputs::from_values(&bound).expect("typed fire inputs");
    (info, bound, typed)
}
