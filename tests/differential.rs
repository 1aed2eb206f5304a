//! The two backends agree: for every resolver of every built-in system, the generated Rust and the
//! interpreter over the same rules text give the same outcome (or the same error) and the same
//! trace, event for event, on random valid inputs and seeds; and the same exact odds on a sample.
//! The worked examples and the `examples/` input files run through both as well.
//!
//! `RULEBOOK_DIFF_CASES=N` sets the number of random cases per resolver (default 12 in a debug
//! build); `cargo test --release --test differential -- --ignored` runs the long search
//! (10⁵ cases or more). A disagreement prints a shrunk reproducer: the inputs as YAML and the two
//! commands that show the difference.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rulebook::runtime::{self as rt, Inputs, Recorder, Value};
use std::path::Path;
use std::sync::OnceLock;

#[path = "../benches/common/mod.rs"]
#[allow(dead_code)]
mod common;

fn interpreted() -> &'static [&'static rt::SystemInfo] {
    static RULES: OnceLock<rulebook::Rules> = OnceLock::new();
    RULES
        .get_or_init(|| {
            rulebook::Rules::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("rules-src")).unwrap_or_else(|e| panic!("rules-src: {e}"))
        })
        .systems()
}

/// The pairs (compiled, interpreted) of every resolver.
fn pairs() -> Vec<(&'static rt::SystemInfo, &'static rt::ResolverInfo, &'static rt::ResolverInfo)> {
    let mut out = Vec::new();
    assert_eq!(rulebook::SYSTEMS.len(), interpreted().len(), "both backends load the same systems");
    for (cs, is) in rulebook::SYSTEMS.iter().zip(interpreted()) {
        assert_eq!(cs.name, is.name);
        assert_eq!(cs.resolvers.len(), is.resolvers.len(), "{}: the same resolvers", cs.name);
        for (cr, ir) in cs.resolvers.iter().zip(is.resolvers) {
            assert_eq!(cr.name, ir.name);
            out.push((*cs, cr, ir));
        }
    }
    out
}

struct Gen(ChaCha8Rng);

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.0.next_u64() % n
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A random value of a registry type: mostly ordinary, sometimes at the edges.
    fn value(&mut self, ty: &'static rt::Ty) -> Value {
        match ty {
            rt::Ty::Bool => Value::Bool(self.chance(50)),
            rt::Ty::Int { min, max } => {
                let (lo, hi) = ((*min).max(-20), (*max).min(40));
                if self.chance(10) && *min > i64::MIN {
                    Value::Int(*min)
                } else if self.chance(10) && *max < i64::MAX {
                    Value::Int(*max)
                } else if lo <= hi {
                    Value::Int(lo + self.below((hi - lo) as u64 + 1) as i64)
                } else {
                    Value::Int(*min)
                }
            }
            rt::Ty::Dec => Value::Dec(rt::Dec::new(self.below(41) as i64 - 10, 1 + self.below(4) as i64).unwrap_or(rt::Dec::ZERO)),
            rt::Ty::Text => Value::Text(["", "Alpha", "Krotic", "B Company"][self.below(4) as usize].to_string()),
            rt::Ty::Enum(e) => {
                let i = self.below(e.variants.len() as u64) as usize;
                Value::Enum(i as u16, e.variants[i])
            }
            rt::Ty::Key(tables) => {
                let t = tables[self.below(tables.len() as u64) as usize];
                if t.keys.is_empty() {
                    return Value::None;
                }
                let row = self.below(t.keys.len() as u64) as usize;
                Value::Key(rt::Key {
                    table: t.id,
                    row: row as u16,
                    name: t.keys[row],
                })
            }
            rt::Ty::List(inner) => {
                let n = self.below(5);
                Value::List((0..n).map(|_| self.value(inner)).collect())
            }
            rt::Ty::Opt(inner) => {
                if self.chance(30) {
                    Value::None
                } else {
                    self.value(inner)
                }
            }
            rt::Ty::Struct(rec) => Value::Record(rec.fields.iter().map(|f| (f.name, self.value(f.ty))).collect()),
            rt::Ty::Record(_) => Value::None,
        }
    }

    fn inputs(&mut self, r: &rt::ResolverInfo) -> Inputs {
        r.inputs.iter().map(|i| (i.name.to_string(), self.value(i.ty))).collect()
    }
}

type Run = (Result<Value, rt::Error>, Vec<rt::Event>);

fn run(r: &rt::ResolverInfo, inputs: &Inputs, seed: u64) -> Run {
    let mut rec = Recorder::new();
    let out = r.run_traced(&mut rt::Seeded::new(seed), &mut rec, inputs);
    (out, rec.events)
}

/// A simulation of the compiled resolver (inputs read once, each outcome handed to the tally
/// field by field, `rt::Prepared`) tallies the run seeded `seed` as the tally of its `Value` does:
/// the same fields, paths, values and order. `value` is that run's outcome.
fn sim_agrees(c: &rt::ResolverInfo, inputs: &Inputs, seed: u64, value: &Value) -> Result<(), String> {
    let rt::Exec::Compiled { sim: Some(prepare), .. } = &c.exec else {
        return Err(format!("{} has no typed simulation", c.name));
    };
    let prepared = prepare(inputs).map_err(|e| format!("{}: the inputs were refused: {e}", c.name))?;
    let mut typed = rt::Tally::default();
    prepared
        .run(&mut rt::Seeded::new(seed), &mut typed)
        .map_err(|e| format!("{}: the typed run failed: {e}", c.name))?;
    let mut dynamic = rt::Tally::default();
    dynamic.add_flat(value);
    if typed != dynamic {
        return Err(format!(
            "{}, seed {seed}: the typed tally differs\ntyped:   {typed:?}\ndynamic: {dynamic:?}",
            c.name
        ));
    }
    Ok(())
}

fn agree(c: &rt::ResolverInfo, i: &rt::ResolverInfo, inputs: &Inputs, seed: u64) -> bool {
    run(c, inputs, seed) == run(i, inputs, seed)
}

/// The smallest set of changes to `inputs` that still disagrees: each input in turn is replaced
/// by something simpler while the disagreement stays.
fn shrink(c: &rt::ResolverInfo, i: &rt::ResolverInfo, mut inputs: Inputs, seed: u64) -> Inputs {
    for info in c.inputs {
        let Some(current) = inputs.get(info.name).cloned() else { continue };
        let simpler: Vec<Value> = match &current {
            Value::List(xs) => (0..xs.len()).map(|k| Value::List(xs[..k].to_vec())).collect(),
            Value::Int(n) if *n != 0 => vec![Value::Int(0), Value::Int(n.signum())],
            Value::Bool(true) => vec![Value::Bool(false)],
            _ => Vec::new(),
        };
        for s in simpler {
            let mut trial = inputs.clone();
            trial.insert(info.name.to_string(), s);
            if !agree(c, i, &trial, seed) {
                inputs = trial;
                break;
            }
        }
    }
    inputs
}

fn report(path: &str, c: &rt::ResolverInfo, i: &rt::ResolverInfo, inputs: Inputs, seed: u64) -> String {
    let inputs = shrink(c, i, inputs, seed);
    let yaml = serde_json::to_string_pretty(&serde_json::Value::Object(
        inputs.iter().map(|(k, v)| (k.clone(), v.to_json())).collect(),
    ))
    .unwrap_or_default();
    let (co, ct) = run(c, &inputs, seed);
    let (io, it) = run(i, &inputs, seed);
    let first = ct.iter().zip(&it).position(|(a, b)| a != b).unwrap_or(ct.len().min(it.len()));
    format!(
        "backends disagree on {path}, seed {seed}\nsave the inputs as case.yaml:\n{yaml}\nthen compare\n  rulebook roll {path} --input case.yaml --seed {seed}\n  rulebook roll {path} --input case.yaml --seed {seed} --rules rules-src\ncompiled:    {co:?}\ninterpreted: {io:?}\nfirst differing trace event (#{first}):\n  compiled:    {:?}\n  interpreted: {:?}",
        ct.get(first),
        it.get(first)
    )
}

fn cases_per_resolver(default: u64) -> u64 {
    std::env::var("RULEBOOK_DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Runs `per_resolver` random cases of every resolver; returns (cases, cases that resolved
/// rather than being refused), so a test can tell that the inputs reach the rules' bodies.
fn random_cases(per_resolver: u64, master_seed: u64) -> (u64, u64) {
    let mut g = Gen(ChaCha8Rng::seed_from_u64(master_seed));
    let (mut total, mut resolved) = (0, 0);
    for (s, c, i) in pairs() {
        let path = format!("{}.{}", s.name, c.name);
        for _ in 0..per_resolver {
            let inputs = g.inputs(c);
            let seed = g.0.next_u64() % 1000;
            let (a, b) = (run(c, &inputs, seed), run(i, &inputs, seed));
            if a != b {
                panic!("{}", report(&path, c, i, inputs, seed));
            }
            if let Ok(v) = &a.0 {
                if let Err(e) = sim_agrees(c, &inputs, seed, v) {
                    panic!("{path}: {e}");
                }
            }
            total += 1;
            resolved += u64::from(a.0.is_ok());
        }
    }
    (total, resolved)
}

#[test]
fn generated_code_and_interpreter_agree_on_random_inputs() {
    let per = cases_per_resolver(if cfg!(debug_assertions) { 12 } else { 100 });
    let (total, resolved) = random_cases(per, 1);
    assert_eq!(total, per * pairs().len() as u64);
    // Most random situations must get through input checks and `require`s, or the comparison
    // would only ever see the same refusal twice.
    assert!(resolved * 2 > total, "only {resolved} of {total} random cases resolved");
}

/// The long search: `cargo test --release --test differential -- --ignored` (10⁵ cases or more).
#[test]
#[ignore = "long: run with --release -- --ignored"]
fn generated_code_and_interpreter_agree_on_many_random_inputs() {
    let per = cases_per_resolver(0).max(100_000u64.div_ceil(pairs().len() as u64));
    let (total, resolved) = random_cases(per, 2);
    assert!(total >= 100_000, "only {total} cases ran");
    eprintln!("{total} random cases agree ({resolved} resolved, the rest refused alike)");
}

#[test]
fn exact_odds_agree_on_a_sample() {
    let mut g = Gen(ChaCha8Rng::seed_from_u64(3));
    let (mut compared, mut forward, mut several) = (0, 0, 0u64);
    for (s, c, i) in pairs() {
        for _ in 0..3 {
            let inputs = g.inputs(c);
            // Wide trees are refused by both alike; keep the sample quick.
            let limit = if cfg!(debug_assertions) { 5_000 } else { 50_000 };
            let before = rt::forward_stats();
            let co = rt::with_leaf_limit(limit, || c.odds(&inputs));
            let after = rt::forward_stats();
            let io = rt::with_leaf_limit(limit, || i.odds(&inputs));
            assert_eq!(
                co.as_ref().map(|d| &d.outcomes),
                io.as_ref().map(|d| &d.outcomes),
                "{}.{} odds differ on {inputs:?}",
                s.name,
                c.name
            );
            if let Ok(d) = &co {
                compared += 1;
                several += u64::from(d.outcomes.len() > 1);
                // The compiled odds come from the resolver's forward pass where it has one, and
                // that pass answers wherever the replay does.
                assert_eq!(
                    after.1, before.1,
                    "{}.{}: the forward pass failed where the replay answers, on {inputs:?}",
                    s.name, c.name
                );
                forward += after.0 - before.0;
            }
        }
    }
    assert!(compared > 40, "only {compared} distributions were computed");
    eprintln!("{compared} distributions agree, {several} with more than one outcome, {forward} from a forward pass");
    // A resolver without dice has no forward pass (one run of its body finds its one outcome);
    // most of those with dice have one.
    assert!(
        forward * 2 > several,
        "only {forward} distributions came from a forward pass, of {several} with more than one outcome"
    );
}

/// Exact odds branch over a callee's outcomes (`rt::memo_call`) instead of replaying its dice at
/// every leaf, and over a table's rows for a roll read only through that table
/// (`Dice::roll_classed`): the distribution must be the one plain enumeration gives, in both backends, on
/// random inputs of every resolver. Where plain enumeration gives up (too many leaves) the
/// branching may still answer; where it fails otherwise, the branching fails alike.
#[test]
fn branching_over_calls_equals_plain_enumeration() {
    let mut g = Gen(ChaCha8Rng::seed_from_u64(4));
    let (mut compared, mut only_branching) = (0, 0);
    for (s, c, i) in pairs() {
        for _ in 0..3 {
            let inputs = g.inputs(c);
            let limit = if cfg!(debug_assertions) { 5_000 } else { 50_000 };
            let (plain_c, plain_i) = rt::with_leaf_limit(limit, || rt::with_plain_calls(|| (c.odds(&inputs), i.odds(&inputs))));
            let (memo_c, memo_i) = rt::with_leaf_limit(limit, || (c.odds(&inputs), i.odds(&inputs)));
            let what = format!("{}.{} on {inputs:?}", s.name, c.name);
            assert_eq!(plain_c, plain_i, "plain odds of the two backends differ: {what}");
            assert_eq!(memo_c, memo_i, "branching odds of the two backends differ: {what}");
            match (&plain_c, &memo_c) {
                (Ok(p), Ok(m)) => {
                    assert_eq!(p.outcomes, m.outcomes, "branching changed the odds of {what}");
                    compared += 1;
                }
                (Err(rt::Error::TooManyBranches { .. }), Ok(_)) => only_branching += 1,
                // Plain enumeration gave up before the roll the branching reached and found too
                // large to enumerate exactly (mercenary.ground_vs_starship's 27d6): both decline.
                (Err(rt::Error::TooManyBranches { .. }), Err(rt::Error::DiceTooLarge { .. })) => {}
                (p, m) => assert_eq!(p, m, "branching changed how {what} fails"),
            }
        }
    }
    eprintln!("{compared} distributions equal; {only_branching} computed only by branching over calls");
    assert!(compared > 40, "only {compared} distributions were compared");
}

/// Every input file under `examples/` and every worked example under `tests/examples/`.
#[test]
fn example_files_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "examples",
        "tests/examples/starleader",
        "tests/examples/t5",
        "tests/examples/mercenary",
    ] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            files.extend(
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "yaml")),
            );
        }
    }
    files.sort();
    let (mut compared, mut simulated) = (0, 0);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let Ok(doc) = serde_yaml::from_str::<serde_yaml::Value>(&text) else {
            continue;
        };
        // Worked examples name their resolver and nest the inputs; CLI files are the inputs of
        // whichever resolvers accept them.
        let (targets, inputs, dice): (Vec<String>, serde_yaml::Value, Option<Vec<i64>>) = match doc.get("resolver").and_then(|r| r.as_str())
        {
            Some(r) => (
                vec![r.to_string()],
                doc.get("inputs").cloned().unwrap_or(serde_yaml::Value::Null),
                doc.get("dice").and_then(|d| serde_yaml::from_value::<Vec<i64>>(d.clone()).ok()),
            ),
            None => (
                pairs().iter().map(|(s, r, _)| format!("{}.{}", s.name, r.name)).collect(),
                doc,
                None,
            ),
        };
        for path in targets {
            let (Ok((_, c)), Ok((_, i))) = (rt::find_resolver(rulebook::SYSTEMS, &path), rt::find_resolver(interpreted(), &path)) else {
                continue;
            };
            let Ok(bound) = rt::bind_inputs(c, &[], Some(&inputs)) else {
                continue;
            };
            let runs = |r: &rt::ResolverInfo| -> Run {
                let mut rec = Recorder::new();
                let out = match &dice {
                    Some(faces) => r.run_traced(&mut rt::Scripted::new(faces.clone()), &mut rec, &bound),
                    None => r.run_traced(&mut rt::Seeded::new(7), &mut rec, &bound),
                };
                (out, rec.events)
            };
            let (a, b) = (runs(c), runs(i));
            assert!(a == b, "{}: {}", f.display(), report(&path, c, i, bound.clone(), 7));
            if let (None, Ok(v)) = (&dice, &a.0) {
                if let Err(e) = sim_agrees(c, &bound, 7, v) {
                    panic!("{}: {e}", f.display());
                }
                simulated += 1;
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "only {compared} example files were compared");
    assert!(simulated >= 5, "only {simulated} example files were simulated");
}

/// Both backends branch over the Heavy Hit Table's rows, not the 1d6's faces (`ir::classed_rolls`,
/// `Dice::roll_classed`), and so meet the same limits. Under a limit of 200 leaves the fire's first
/// path is 4 To Hit classes × 11 damage classes × 4 rows = 176 wide and its 54 leaves fit; the
/// six faces would make it 264 wide, past the limit, as plain enumeration is.
#[test]
fn both_backends_branch_over_a_tables_rows_and_meet_the_same_limits() {
    let path = "starleader.fire";
    let (Ok((_, c)), Ok((_, i))) = (rt::find_resolver(rulebook::SYSTEMS, path), rt::find_resolver(interpreted(), path)) else {
        panic!("{path}: no such resolver");
    };
    // The fire of the benchmarks: Ghazi 10/7, size 2, armor 5, 5 hexes, heavy hits on.
    let sets: Vec<(String, String)> = common::FIRE.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let inputs = rt::bind_inputs(c, &sets, None).unwrap_or_else(|e| panic!("{e}"));
    for r in [c, i] {
        let d = rt::with_leaf_limit(200, || r.odds(&inputs)).unwrap_or_else(|e| panic!("{path} under 200 leaves: {e}"));
        assert_eq!(d.outcomes.len(), 54);
        let plain = rt::with_leaf_limit(200, || rt::with_plain_calls(|| r.odds(&inputs)));
        assert!(matches!(plain, Err(rt::Error::TooManyBranches { .. })), "{plain:?}");
        let full = rt::with_plain_calls(|| r.odds(&inputs)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(full, d);
    }
}

/// A whole simulation agrees too: the compiled battle, run by its typed entry (inputs read once,
/// each outcome tallied field by field), and the interpreted one, tallied from its `Value`s, give
/// the same tally for the same seed, on one thread and on three.
#[test]
fn simulations_agree_between_the_typed_and_the_dynamic_tally() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let yaml = std::fs::read_to_string(root.join("examples/mercenary-infantry-clash.yaml")).unwrap_or_default();
    let (Ok((_, c)), Ok((_, i))) = (
        rt::find_resolver(rulebook::SYSTEMS, "mercenary.battle"),
        rt::find_resolver(interpreted(), "mercenary.battle"),
    ) else {
        panic!("mercenary.battle in both backends");
    };
    assert!(matches!(c.exec, rt::Exec::Compiled { sim: Some(_), .. }));
    let bound = rt::bind_yaml(c, &yaml).unwrap_or_else(|e| panic!("{e}"));
    let runs = if cfg!(debug_assertions) { 60 } else { 2000 };
    for threads in [1, 3] {
        let typed = rt::simulate(c, &bound, runs, 11, threads, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        let dynamic = rt::simulate(i, &bound, runs, 11, threads, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(typed.runs, runs);
        assert_eq!(typed.categories, dynamic.categories);
        assert_eq!(typed.numbers, dynamic.numbers);
        assert_eq!(typed.bounds, dynamic.bounds);
        assert_eq!(typed.histograms, dynamic.histograms);
        assert!(typed.categories.keys().any(|k| k.starts_with("final.")), "labelled units tallied");
    }
}
