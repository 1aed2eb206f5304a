//! Battles per second: one whole Mercenary battle (the infantry example) with seeded dice, through
//! the registry entry the `sim` command uses, the same battle through the typed API, the
//! hand-written Rust version of it (`hand/mercenary_battle.rs`, the practical limit of issue 15;
//! `tests/hand_battle.rs` proves it is the same battle), and `sim` itself over 1000 runs on one
//! thread.

#[path = "hand/mercenary_battle.rs"]
mod hand;

use criterion::{criterion_group, criterion_main, Criterion};
use rulebook::mercenary::{self, BattleInputs};
use rulebook::runtime::{self, NoTrace, Seeded};
use std::hint::black_box;

fn battle(c: &mut Criterion) {
    let (_, r) = runtime::find_resolver(rulebook::SYSTEMS, "mercenary.battle").unwrap_or_else(|e| panic!("{e}"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mercenary-infantry-clash.yaml");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    let yaml: serde_yaml::Value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let inputs = runtime::bind_inputs(r, &[], Some(&yaml)).unwrap_or_else(|e| panic!("{e}"));
    let typed = BattleInputs::from_values(&inputs).unwrap_or_else(|e| panic!("{e}"));
    // A benchmark against a wrong reference is worthless: the two must agree before they are timed
    // (tests/hand_battle.rs checks far more seeds, battle files and options).
    for seed in 0..200 {
        let generated = mercenary::battle(&mut Seeded::new(seed), &mut NoTrace, &typed);
        let hand = hand::battle(&mut Seeded::new(seed), &typed);
        assert_eq!(generated, hand, "seed {seed}: the generated and hand-written battles differ");
    }
    // Every battle bench throws with seeds 1, 2, 3, ... in turn.
    let mut seed = 0u64;
    c.bench_function("battle/one_battle", |b| {
        b.iter(|| {
            seed += 1;
            black_box(
                r.run_quiet(&mut Seeded::new(seed), &mut NoTrace, black_box(&inputs))
                    .unwrap_or_else(|e| panic!("{e}")),
            )
        })
    });
    let mut seed = 0u64;
    c.bench_function("battle/one_battle_typed", |b| {
        b.iter(|| {
            seed += 1;
            black_box(mercenary::battle(&mut Seeded::new(seed), &mut NoTrace, black_box(&typed)).unwrap_or_else(|e| panic!("{e}")))
        })
    });
    let mut seed = 0u64;
    c.bench_function("battle/hand_written", |b| {
        b.iter(|| {
            seed += 1;
            black_box(hand::battle(&mut Seeded::new(seed), black_box(&typed)).unwrap_or_else(|e| panic!("{e}")))
        })
    });
    c.bench_function("battle/sim_1000_runs_1_thread", |b| {
        b.iter(|| black_box(runtime::simulate(r, &inputs, 1000, 7, 1, &|_| {}).unwrap_or_else(|e| panic!("{e}"))))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = battle
}
criterion_main!(benches);
