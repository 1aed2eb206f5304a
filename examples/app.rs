//! A small application on the `rulebook` library (`cargo run --example app`): one Starleader shot
//! with a seed, its outcome and trace as JSON, then the exact odds of the same shot.
use rulebook::runtime::{Recorder, Seeded};
use rulebook::starleader::{fire, keys, odds, FireInputs, FireResult};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The weapon has no default, so `new` takes it; every other input is the rules' default.
    let inputs = FireInputs::new(keys::PISTOLS_GHAZI_10_7).with_range_hexes(5).with_armor_rating(2);

    let mut trace = Recorder::new();
    let outcome = fire(&mut Seeded::new(7), &mut trace, &inputs)?;
    println!("{}", serde_json::to_string_pretty(&outcome)?);
    println!("{}", serde_json::to_string_pretty(&trace.events)?);

    let odds = odds::fire(&inputs)?;
    let hit = odds.probability(|o| o.result == FireResult::Hit);
    println!("hit: {hit} ({}%)", hit.percent(2));
    Ok(())
}
