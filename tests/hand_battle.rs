//! The hand-written Mercenary battle of `benches/hand/mercenary_battle.rs` (the speed reference of
//! `cargo bench --bench battle`) is the same battle as the generated `rulebook::mercenary::battle`:
//! for every seed, both throw the same dice (spec, label and value, in order) and give the same
//! outcome, every field of it (result, rounds, losses by type, units left, every unit's final
//! record). Seeds 0..2000 on the benchmark's own example, and fewer on the other battle files and
//! on variations of their options, which the example does not reach (a fifth of those in a debug
//! build, where the generated battle is slow: the whole file then takes about a minute).

#[path = "../benches/hand/mercenary_battle.rs"]
mod hand;

use rulebook::mercenary::{self, BattleInputs, BattleOutcome, BattlePolicy, BattleResult, UnitStatus, UnitType};
use rulebook::runtime::{Dice, DiceSpec, Error, NoTrace, Seeded};
use std::collections::BTreeMap;

/// Seeded dice that log every throw: its spec, the roll's label and the value read.
struct Logged {
    dice: Seeded,
    log: Vec<(DiceSpec, String, i64)>,
}

impl Logged {
    fn new(seed: u64) -> Self {
        Logged {
            dice: Seeded::new(seed),
            log: Vec::new(),
        }
    }
}

impl Dice for Logged {
    fn roll(&mut self, spec: &DiceSpec) -> Result<i64, Error> {
        self.roll_for(spec, "")
    }

    fn roll_for(&mut self, spec: &DiceSpec, label: &str) -> Result<i64, Error> {
        let v = self.dice.roll(spec)?;
        self.log.push((*spec, label.to_string(), v));
        Ok(v)
    }

    fn last_faces(&self) -> &[u16] {
        self.dice.last_faces()
    }
}

fn example(file: &str) -> BattleInputs {
    let path = format!("{}/examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    BattleInputs::from_yaml(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs both battles on `seeds` and fails at the first seed where they differ, naming the first
/// throw that differs. Returns how often each result came out.
fn agree(what: &str, inputs: &BattleInputs, seeds: std::ops::Range<u64>) -> BTreeMap<String, usize> {
    let mut results = BTreeMap::new();
    for seed in seeds {
        let mut gd = Logged::new(seed);
        let generated = mercenary::battle(&mut gd, &mut NoTrace, inputs);
        let mut hd = Logged::new(seed);
        let hand = hand::battle(&mut hd, inputs);
        if let Some(i) = (0..gd.log.len().max(hd.log.len())).find(|&i| gd.log.get(i) != hd.log.get(i)) {
            panic!(
                "{what}, seed {seed}: throw {i} differs: generated {:?}, hand-written {:?} ({} and {} throws)",
                gd.log.get(i),
                hd.log.get(i),
                gd.log.len(),
                hd.log.len()
            );
        }
        let generated = generated.unwrap_or_else(|e| panic!("{what}, seed {seed}: generated: {e}"));
        let hand = hand.unwrap_or_else(|e| panic!("{what}, seed {seed}: hand-written: {e}"));
        assert_eq!(generated, hand, "{what}, seed {seed}: the outcomes differ");
        *results.entry(format!("{:?}", generated.result)).or_insert(0) += 1;
    }
    eprintln!("{what}: {results:?}");
    results
}

#[test]
fn the_hand_written_battle_is_the_generated_one_on_the_benchmark_example() {
    let inputs = example("mercenary-infantry-clash.yaml");
    let results = agree("infantry clash", &inputs, 0..2000);
    // Not one outcome over and over: the example reaches wins, withdrawals and more.
    assert!(results.len() >= 3, "{results:?}");
}

#[test]
fn the_example_reaches_the_rarer_paths_too() {
    // The seeds of the test above go through an army losing its Command Unit (the no-command
    // rules) and through units breaking, not only through clean wins.
    let inputs = example("mercenary-infantry-clash.yaml");
    let (mut command_lost, mut broken) = (0, 0);
    for seed in 0..2000 {
        let out: BattleOutcome = hand::battle(&mut Seeded::new(seed), &inputs).unwrap_or_else(|e| panic!("{e}"));
        command_lost += usize::from(
            out.r#final
                .iter()
                .any(|u| u.unit_type == UnitType::Command && u.status != UnitStatus::Active && u.status != UnitStatus::Withdrawn),
        );
        broken += usize::from(out.r#final.iter().any(|u| u.status == UnitStatus::Broken));
    }
    eprintln!("a Command Unit lost in {command_lost} battles, a unit broken in {broken}");
    assert!(command_lost > 0 && broken > 0);
}

#[test]
fn the_hand_written_battle_is_the_generated_one_on_the_other_battle_files_and_options() {
    let clash = example("mercenary-infantry-clash.yaml");
    let arms = example("mercenary-combined-arms.yaml");
    let lost = example("mercenary-lost-command.yaml");
    let cases = [
        ("combined arms", arms.clone(), 500),
        ("lost command", lost.clone(), 500),
        ("clash, no withdrawal phase", clash.clone().with_withdrawal_phase(false), 300),
        ("clash, aggressive", clash.clone().with_policy(BattlePolicy::Aggressive), 300),
        ("clash, cautious", clash.clone().with_policy(BattlePolicy::Cautious), 300),
        ("clash, 3 rounds", clash.with_max_rounds(3), 300),
        ("combined arms, cautious", arms.clone().with_policy(BattlePolicy::Cautious), 300),
        ("combined arms, aggressive", arms.clone().with_policy(BattlePolicy::Aggressive), 300),
        ("combined arms, dash at 5", arms.clone().with_artillery_dash_at_5(true), 300),
        ("combined arms, no withdrawal phase", arms.with_withdrawal_phase(false), 300),
        ("lost command, balanced", lost.clone().with_policy(BattlePolicy::Balanced), 300),
        ("lost command, cautious", lost.with_policy(BattlePolicy::Cautious), 300),
    ];
    for (what, inputs, seeds) in cases {
        agree(what, &inputs, 0..if cfg!(debug_assertions) { seeds / 5 } else { seeds });
    }
}

#[test]
fn both_refuse_the_battle_files_the_rules_refuse() {
    let clash = example("mercenary-infantry-clash.yaml");
    let mut no_command = clash.clone();
    no_command
        .units
        .retain(|u| u.unit_type != UnitType::Command || u.side != mercenary::Side::B);
    let mut twice = clash.clone();
    twice.units[1].name = twice.units[0].name.clone();
    let mut empty = clash.clone();
    empty.units[0].strength = 0;
    let mut sized = clash.clone();
    sized.units[0].size = Some(3);
    let mut deep = clash.clone();
    deep.units[0].zone = mercenary::Zone::BSupport;
    for (what, inputs) in [
        ("no Command unit", no_command),
        ("a name twice", twice),
        ("strength 0", empty),
        ("a size given", sized),
        ("deployed in the enemy's zone", deep),
        ("0 rounds", clash.with_max_rounds(0)),
    ] {
        let generated = mercenary::battle(&mut Seeded::new(1), &mut NoTrace, &inputs);
        let hand = hand::battle(&mut Seeded::new(1), &inputs);
        assert!(generated.is_err() && hand.is_err(), "{what}: {generated:?} / {hand:?}");
    }
    // And nothing else: an ordinary battle of either is not an error.
    let ok = hand::battle(&mut Seeded::new(1), &example("mercenary-infantry-clash.yaml"));
    assert!(ok.is_ok_and(|o| o.result != BattleResult::Draw || o.rounds > 0));
}
