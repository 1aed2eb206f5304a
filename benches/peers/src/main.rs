//! The rulebook side of the icepool peer benchmark (issue 15 part 2; `run.sh` beside this crate
//! runs it, and `README.md` says what each case computes).
//!
//! - (a) `fire`: exact odds of a full Starleader fire resolution, the generated forward pass
//!   `rulebook::starleader::odds::fire`, on the inputs of `benches/common` (the very call of
//!   `benches/odds.rs`, `odds/fire_typed`).
//! - (b) `risk`: RISK from 10 armies against 10 to elimination, `runtime::chain` over the
//!   compiled `risk.attack` step (`benches/fixtures/risk/`, compiled to Rust by `build.rs`),
//!   each state's round from the registry's compiled odds: what `rulebook odds risk.attack
//!   --until done` does, without the interpreter.
//!
//! `peers check FIRE.json RISK.json` checks both against the documents `rulebook odds ... --json`
//! printed (the odds icepool's side is checked against); `peers time [--repeat N]` prints the
//! timings as JSON: per case, the best over N repeats of the mean time per computation, each repeat
//! running enough computations to last 0.2 s (Python's `timeit`, as the icepool side is timed).

#![forbid(unsafe_code)]

#[path = "../../common/mod.rs"]
mod common;

/// The fixtures compiled by build.rs: `fixtures::risk` (its `SYSTEMS` and `RULES_SOURCES` unused).
#[allow(dead_code)]
mod fixtures {
    include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));
}

use rulebook::starleader;
use rulebook_runtime as rt;
use serde_json::{json, Value as Json};
use std::hint::black_box;
use std::time::{Duration, Instant};

const ARMIES: (&str, &str) = ("10", "10");
const MAX_ROUNDS: u32 = 200;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["check", fire, risk] => check(fire, risk),
        ["time"] => time(7),
        ["time", "--repeat", n] => n.parse().map_err(|e| format!("--repeat {n}: {e}")).and_then(time),
        ["loop", case, n] => n.parse().map_err(|e| format!("loop {n}: {e}")).and_then(|n| repeat(case, n)),
        _ => Err("usage: peers check FIRE.json RISK.json | peers time [--repeat N] | peers loop fire|risk N".to_string()),
    };
    if let Err(e) = result {
        eprintln!("peers: {e}");
        std::process::exit(1);
    }
}

/// (a): the exact odds of the fire, typed (`odds/fire_typed`: the generated forward pass).
fn fire_odds(typed: &starleader::FireInputs) -> Result<rt::Distribution<starleader::FireOutcome>, rt::Error> {
    starleader::odds::fire(black_box(typed))
}

/// (b): the step resolver and its start, bound through the registry as `--set` binds them.
fn risk_step() -> Result<(&'static rt::ResolverInfo, rt::Inputs), String> {
    let step = fixtures::risk::SYSTEM.resolver("attack").ok_or("no risk.attack")?;
    let sets = [
        ("attackers".to_string(), ARMIES.0.to_string()),
        ("defenders".to_string(), ARMIES.1.to_string()),
    ];
    let bound = rt::bind_inputs(step, &sets, None).map_err(|e| e.to_string())?;
    Ok((step, bound))
}

/// (b): the chain, exactly as `rulebook odds risk.attack --until done` runs it.
fn risk_chain(step: &'static rt::ResolverInfo, start: &rt::Inputs) -> Result<rt::Chain, rt::Error> {
    step.chain(start, "done", MAX_ROUNDS)
}

/// Computes one case `n` times, for a profiler (`perf record target/release/peers loop risk 50`).
fn repeat(case: &str, n: u64) -> Result<(), String> {
    let (_, _, typed) = common::fire_inputs();
    let (step, start) = risk_step()?;
    for _ in 0..n {
        match case {
            "fire" => drop(black_box(fire_odds(&typed).map_err(|e| e.to_string())?)),
            "risk" => drop(black_box(risk_chain(step, &start).map_err(|e| e.to_string())?)),
            _ => return Err(format!("no case {case}: fire or risk")),
        }
    }
    Ok(())
}

fn read_doc(path: &str) -> Result<Json, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

/// The outcomes of an `odds --json` document, as `rt::json::odds` writes them.
fn outcomes_of(doc: &Json) -> &Json {
    &doc["outcomes"]
}

fn check(fire_json: &str, risk_json: &str) -> Result<(), String> {
    let (info, bound, typed) = common::fire_inputs();
    let dist = fire_odds(&typed).map_err(|e| e.to_string())?;
    // The typed outcomes, as the registry's compiled odds turn them into values (sorted by value).
    let mut outcomes: Vec<(rt::Value, rt::Prob)> = dist.outcomes.into_iter().map(|(o, p)| (o.to_value(), p)).collect();
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));
    let ours = rt::json::odds(&starleader::SYSTEM, info, &bound, &rt::Distribution { outcomes });
    let cli = read_doc(fire_json)?;
    if outcomes_of(&ours) != outcomes_of(&cli) || ours["inputs"] != cli["inputs"] {
        return Err(format!("(a) fire: the timed enumeration differs from {fire_json}"));
    }
    let fire_outcomes = outcomes_of(&cli).as_array().map_or(0, Vec::len);

    let (step, start) = risk_step()?;
    let c = risk_chain(step, &start).map_err(|e| e.to_string())?;
    let ours = rt::json::odds(&fixtures::risk::SYSTEM, step, &start, &c.end);
    let cli = read_doc(risk_json)?;
    let finished: Vec<String> = c.finished_by_step.iter().map(|p| p.numer_denom_string()).collect();
    if outcomes_of(&ours) != outcomes_of(&cli)
        || cli["finished_by_step"] != json!(finished)
        || cli["states"] != json!(c.states)
        || !c.unfinished.is_zero()
    {
        return Err(format!("(b) risk: the compiled chain differs from {risk_json}"));
    }
    let won = c
        .end
        .probability(|o| o.field("defenders") == Some(&rt::Value::Int(0)))
        .numer_denom_string();
    eprintln!(
        "peers: (a) {fire_outcomes} outcomes; (b) {} end states from {} states, attacker wins {won}: \
         the same as the CLI's",
        c.end.outcomes.len(),
        c.states
    );
    Ok(())
}

/// Best over `repeat` repeats of the mean time of one call, each repeat calling `f` enough times
/// to last `MIN_REPEAT` (calibrated first, as Python's `timeit` autorange does); the calls per repeat.
fn best_time(mut f: impl FnMut(), repeat: usize) -> (f64, u64) {
    const MIN_REPEAT: Duration = Duration::from_millis(200);
    let run = |f: &mut dyn FnMut(), n: u64| {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed()
    };
    let mut number = 1u64;
    loop {
        let t = run(&mut f, number);
        if t >= MIN_REPEAT || number >= 1 << 24 {
            break;
        }
        let want = MIN_REPEAT.as_secs_f64() / t.as_secs_f64().max(1e-9);
        number = (number as f64 * want.clamp(2.0, 10.0)).ceil() as u64;
    }
    let best = (0..repeat)
        .map(|_| run(&mut f, number).as_secs_f64() / number as f64)
        .fold(f64::INFINITY, f64::min);
    (best, number)
}

fn time(repeat: usize) -> Result<(), String> {
    let (_, _, typed) = common::fire_inputs();
    let n = fire_odds(&typed).map_err(|e| e.to_string())?.outcomes.len();
    let (fire, fire_calls) = best_time(
        || {
            let _ = black_box(fire_odds(&typed).map(|d| d.outcomes.len()));
        },
        repeat,
    );

    let (step, start) = risk_step()?;
    let c = risk_chain(step, &start).map_err(|e| e.to_string())?;
    let (risk, risk_calls) = best_time(
        || {
            let _ = black_box(risk_chain(step, black_box(&start)).map(|c| c.states));
        },
        repeat,
    );
    let doc = json!({
        "repeat": repeat,
        "fire": {"best_s": fire, "calls_per_repeat": fire_calls, "outcomes": n},
        "risk": {"best_s": risk, "calls_per_repeat": risk_calls, "states": c.states, "end_states": c.end.outcomes.len()},
    });
    println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?);
    Ok(())
}
