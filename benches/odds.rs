//! Exact odds of the full fire resolution (same inputs as benches/fire.rs):
//! `odds/fire_typed` is the generated forward pass (`starleader::odds::fire`, typed `FireOutcome`);
//! `odds/fire_replay` enumerates the generated resolver by replay (`rt::enumerate`), as before the
//! forward pass; `odds/fire_dyn` goes through the registry (`odds_dyn`: `from_values`, then
//! `to_value` per outcome); `odds/fire_plain_calls` replays the callees' dice at every leaf
//! (`rt::with_plain_calls`), as exact odds did before they branched over a call's outcomes.

mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rulebook::starleader;
use rulebook_runtime::{self as rt, NoTrace, Prob};

fn bench_odds(c: &mut Criterion) {
    let (info, bound, typed) = common::fire_inputs();

    // Sanity: both routes give a distribution summing to exactly 1, with the same number of
    // distinct outcomes.
    let d = starleader::odds::fire(&typed).expect("typed odds");
    let replayed = rt::enumerate(|d| starleader::fire(d, &mut NoTrace, &typed)).expect("replayed odds");
    assert_eq!(d, replayed, "the forward pass and the replay agree");
    let dd = rt::odds_dyn(info, &bound).expect("dyn odds");
    let sum = |ps: Vec<&Prob>| ps.into_iter().fold(Prob::zero(), |a, p| a.add(p));
    assert_eq!(sum(d.outcomes.iter().map(|(_, p)| p).collect()), Prob::one());
    assert_eq!(sum(dd.outcomes.iter().map(|(_, p)| p).collect()), Prob::one());
    assert_eq!(d.outcomes.len(), dd.outcomes.len());
    eprintln!("odds: fire has {} distinct outcomes", d.outcomes.len());

    let mut group = c.benchmark_group("odds");
    group.bench_function("fire_typed", |b| {
        b.iter(|| starleader::odds::fire(black_box(&typed)).map(|d| d.outcomes.len()))
    });
    group.bench_function("fire_replay", |b| {
        b.iter(|| rt::enumerate(|d| starleader::fire(d, &mut NoTrace, black_box(&typed))).map(|d| d.outcomes.len()))
    });
    group.bench_function("fire_plain_calls", |b| {
        b.iter(|| {
            rt::with_plain_calls(|| rt::enumerate(|d| starleader::fire(d, &mut NoTrace, black_box(&typed))).map(|d| d.outcomes.len()))
        })
    });
    group.bench_function("fire_dyn", |b| {
        b.iter(|| rt::odds_dyn(info, black_box(&bound)).map(|d| d.outcomes.len()))
    });
    group.finish();
}

criterion_group!(benches, bench_odds);
criterion_main!(benches);
