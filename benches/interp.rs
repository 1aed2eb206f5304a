//! The two backends side by side, in one run: the generated Rust and the interpreter over the same
//! rules text (`rules-src/`), on a Starleader fire, its exact odds and a whole Mercenary battle.
//! Both are called through their registry entries with the same bound inputs (each call reads its
//! inputs, as `roll` and `sim` do), so the ratio is the cost of interpreting.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use rulebook::runtime::{self as rt, NoTrace, Seeded};
use std::hint::black_box;

fn interpreted(path: &str) -> &'static rt::ResolverInfo {
    let rules =
        rulebook::Rules::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rules-src"))).unwrap_or_else(|e| panic!("{e}"));
    let systems: &'static [&'static rt::SystemInfo] = Box::leak(rules.systems().to_vec().into_boxed_slice());
    rt::find_resolver(systems, path).unwrap_or_else(|e| panic!("{e}")).1
}

fn fire(c: &mut Criterion) {
    let (compiled, inputs, _) = common::fire_inputs();
    let interp = interpreted("starleader.fire");
    let mut g = c.benchmark_group("backends/fire");
    for (name, r) in [("generated", compiled), ("interpreted", interp)] {
        let mut dice = Seeded::new(7);
        g.bench_function(name, |b| {
            b.iter(|| black_box(r.run_quiet(&mut dice, &mut NoTrace, black_box(&inputs))))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("backends/fire_odds");
    for (name, r) in [("generated", compiled), ("interpreted", interp)] {
        g.bench_function(name, |b| b.iter(|| black_box(r.odds(black_box(&inputs)))));
    }
    g.finish();
}

fn battle(c: &mut Criterion) {
    let (_, compiled) = rt::find_resolver(rulebook::SYSTEMS, "mercenary.battle").unwrap_or_else(|e| panic!("{e}"));
    let interp = interpreted("mercenary.battle");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mercenary-infantry-clash.yaml");
    let yaml: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"));
    let inputs = rt::bind_inputs(compiled, &[], Some(&yaml)).unwrap_or_else(|e| panic!("{e}"));
    let mut g = c.benchmark_group("backends/battle");
    for (name, r) in [("generated", compiled), ("interpreted", interp)] {
        let mut seed = 0u64;
        g.bench_function(name, |b| {
            b.iter(|| {
                seed += 1;
                black_box(r.run_quiet(&mut Seeded::new(seed), &mut NoTrace, black_box(&inputs)))
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = fire, battle
}
criterion_main!(benches);
