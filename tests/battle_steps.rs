//! The Mercenary battle as a chain of steps (`mercenary.battle_step`, of which `mercenary.battle`
//! is the loop): its exact odds through the compiled step's typed chain, the same chain over
//! dynamic values, and the interpreter's chain of the same rules text agree exactly; the exact
//! odds of a one-round battle sum to 1 and agree with seeded whole battles.

use rulebook::runtime::{self as rt, Prob, Value};
use std::path::Path;

/// One platoon and its command section a side, at a strength of 2 and 1: small enough that a
/// Battle Round has about 10,000 states.
const MICRO: &str = r#"
policy: balanced
withdrawal_phase: true
max_rounds: 1
units:
  - {name: "A Platoon", side: a, unit_type: infantry, strength: 2, rating: 3, tl: 10, zone: a_front_line}
  - {name: "A HQ", side: a, unit_type: command, strength: 1, rating: 4, tl: 10, zone: a_reserves, leadership: 2, tactics: 2}
  - {name: "B Platoon", side: b, unit_type: infantry, strength: 2, rating: 2, tl: 10, zone: b_front_line}
  - {name: "B HQ", side: b, unit_type: command, strength: 1, rating: 3, tl: 10, zone: b_reserves, leadership: 1, tactics: 1}
"#;

fn bound(r: &rt::ResolverInfo) -> rt::Inputs {
    let yaml: serde_yaml::Value = serde_yaml::from_str(MICRO).unwrap();
    rt::bind_inputs(r, &[], Some(&yaml)).unwrap_or_else(|e| panic!("{e}"))
}

fn compiled(name: &str) -> &'static rt::ResolverInfo {
    rt::find_resolver(rulebook::SYSTEMS, name).unwrap_or_else(|e| panic!("{e}")).1
}

/// The first steps of the battle (setup, both Command Phases and the first Unit Actions): the
/// typed chain, the dynamic chain and the interpreter's chain give the same states and the same
/// probabilities, round by round.
#[test]
fn typed_dynamic_and_interpreted_chains_agree() {
    let step = compiled("mercenary.battle_step");
    let start = bound(step);
    let typed = step.chain(&start, "ended", 6).unwrap_or_else(|e| panic!("{e}"));
    let dynamic = rt::chain(step, &start, "ended", 6, &mut |s| step.odds(s)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(typed, dynamic);
    let rules = rulebook::Rules::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("rules-src")).unwrap_or_else(|e| panic!("{e}"));
    let (_, interp) = rt::find_resolver(rules.systems(), "mercenary.battle_step").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(interp.exec, rt::Exec::Interpreted(_)));
    let interpreted = interp.chain(&bound(interp), "ended", 6).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(typed, interpreted);
    // Six steps in, some Unit Actions are still to come on every path.
    assert!(typed.states > 100, "{}", typed.states);
    assert_eq!(typed.unfinished, Prob::one());
    // An `until` that is no yes/no output falls back to the dynamic chain, which says so.
    let e = step.chain(&start, "round", 6).unwrap_err().to_string();
    assert!(e.contains("must be yes/no"), "{e}");
}

/// A one-round battle to its end: the exact result distribution sums to 1, and 3,000 seeded whole
/// battles (`mercenary.battle`, the same steps in a loop) land within 4 standard errors of it.
#[test]
fn one_round_exact_odds_agree_with_seeded_battles() {
    let step = compiled("mercenary.battle_step");
    let c = step.chain(&bound(step), "ended", 100).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.unfinished.is_zero());
    let exact = c.end.marginal(|o| o.field("result").cloned().unwrap_or(Value::None));
    let total = exact.outcomes.iter().fold(Prob::zero(), |a, (_, p)| a.add(p));
    assert_eq!(total, Prob::one());
    let battle = compiled("mercenary.battle");
    let inputs = bound(battle);
    let runs = 3000u64;
    let mut seen: std::collections::BTreeMap<Value, u64> = std::collections::BTreeMap::new();
    for i in 0..runs {
        let mut dice = rt::Seeded::new(rt::run_seed(5, i));
        let out = battle
            .run_quiet(&mut dice, &mut rt::NoTrace, &inputs)
            .unwrap_or_else(|e| panic!("{e}"));
        *seen.entry(out.field("result").cloned().unwrap_or(Value::None)).or_default() += 1;
    }
    for (v, p) in &exact.outcomes {
        let p = p.to_f64();
        let f = seen.get(v).copied().unwrap_or(0) as f64 / runs as f64;
        let se = (p * (1.0 - p) / runs as f64).sqrt().max(1e-3);
        assert!((f - p).abs() <= 4.0 * se, "{v}: exact {p:.4}, seeded {f:.4}");
    }
    for v in seen.keys() {
        assert!(exact.outcomes.iter().any(|(w, _)| w == v), "{v} seen but not in the exact odds");
    }
}
