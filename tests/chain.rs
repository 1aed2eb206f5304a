//! Exact odds of a procedure as a chain of rounds (`odds --until`, `runtime::chain`), on the RISK
//! benchmark fixture (`benches/fixtures/risk/`): the chain, which merges paths that reach the same
//! armies, gives exactly the distribution the replaying enumerator gives for the whole battle
//! (`risk.battle`, every dice path through every attack) on armies small enough for the latter;
//! its answers for larger armies match the published RISK figures; and it sums to exactly 1.

use rulebook::runtime::{self as rt, Prob, Value};
use std::collections::BTreeMap;
use std::path::Path;

fn rules() -> rulebook::Rules {
    rulebook::Rules::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fixtures")).unwrap_or_else(|e| panic!("{e}"))
}

fn inputs(r: &rt::ResolverInfo, a: i64, d: i64) -> rt::Inputs {
    let sets = [("attackers".to_string(), a.to_string()), ("defenders".to_string(), d.to_string())];
    rt::bind_inputs(r, &sets, None).unwrap_or_else(|e| panic!("{e}"))
}

/// The chain's end, as (attackers, defenders) left.
fn chained(rules: &rulebook::Rules, a: i64, d: i64, rounds: u32) -> (BTreeMap<(Value, Value), Prob>, rt::Chain) {
    let (_, step) = rt::find_resolver(rules.systems(), "risk.attack").unwrap();
    let c = rt::chain(step, &inputs(step, a, d), "done", rounds, &mut |s| step.odds(s)).unwrap_or_else(|e| panic!("{e}"));
    let mut end = BTreeMap::new();
    for (o, p) in &c.end.outcomes {
        let key = (
            o.field("attackers").cloned().unwrap_or(Value::None),
            o.field("defenders").cloned().unwrap_or(Value::None),
        );
        let sum = end.get(&key).map_or_else(|| p.clone(), |q: &Prob| q.add(p));
        end.insert(key, sum);
    }
    (end, c)
}

#[test]
fn the_chain_equals_the_whole_battle_enumerated_path_by_path() {
    let rules = rules();
    let (_, battle) = rt::find_resolver(rules.systems(), "risk.battle").unwrap();
    for (a, d) in [(2, 2), (3, 2), (3, 1), (1, 4), (5, 0)] {
        let whole = battle.odds(&inputs(battle, a, d)).unwrap_or_else(|e| panic!("{e}"));
        let whole: BTreeMap<(Value, Value), Prob> = whole
            .outcomes
            .iter()
            .map(|(o, p)| {
                (
                    (
                        o.field("attackers").cloned().unwrap_or(Value::None),
                        o.field("defenders").cloned().unwrap_or(Value::None),
                    ),
                    p.clone(),
                )
            })
            .collect();
        let (end, c) = chained(&rules, a, d, 200);
        assert_eq!(end, whole, "{a} against {d}");
        assert!(c.unfinished.is_zero());
        assert_eq!(c.finished_by_step.last(), Some(&Prob::one()), "{a} against {d}");
    }
}

/// 3 armies against 2: the first attack is two dice against two (attacker takes both 295/1296,
/// one each 420/1296, defender both 581/1296, the published 2-against-2 odds), so the battle is
/// over in step 1 with 876/1296 = 73/108; the split goes on to one die against one (15/36).
#[test]
fn three_against_two_round_by_round() {
    let (end, c) = chained(&rules(), 3, 2, 200);
    assert_eq!(
        c.finished_by_step.iter().map(|p| p.numer_denom_string()).collect::<Vec<_>>(),
        ["73/108", "1/1"]
    );
    let p = |a: i64, d: i64| end.get(&(Value::Int(a), Value::Int(d))).map(|p| p.numer_denom_string());
    assert_eq!(p(3, 0).as_deref(), Some("295/1296"));
    assert_eq!(p(1, 2).as_deref(), Some("581/1296"));
    assert_eq!(p(2, 0).as_deref(), Some("175/1296"));
    assert_eq!(p(1, 1).as_deref(), Some("245/1296"));
    assert_eq!(c.states, 2);
}

/// 10 armies against 10, icepool's example: every path ends within 14 attacks (two armies fall in
/// each attack while both sides throw two dice or more); the attacker
/// conquers with probability 0.4799 (the published figure for 10 against 10 is 48%); the end
/// distribution sums to exactly 1. A round limit below that reports what is still running.
#[test]
fn ten_against_ten_to_elimination() {
    let (end, c) = chained(&rules(), 10, 10, 200);
    let total = end.values().fold(Prob::zero(), |a, p| a.add(p));
    assert_eq!(total, Prob::one());
    assert_eq!(c.finished_by_step.len(), 14);
    let won = end
        .iter()
        .filter(|((_, d), _)| *d == Value::Int(0))
        .fold(Prob::zero(), |a, (_, p)| a.add(p));
    assert_eq!(won.percent(2), "47.99");
    let (_, short) = chained(&rules(), 10, 10, 5);
    assert_eq!(short.finished_by_step.len(), 5);
    assert!(!short.unfinished.is_zero());
    let ended = short.end.outcomes.iter().fold(Prob::zero(), |a, (_, p)| a.add(p));
    assert_eq!(ended.add(&short.unfinished), Prob::one());
    assert_eq!(short.finished_by_step.last(), Some(&ended));
}

/// `attack` calls `clash`, and exact odds work each clash out once (`memo_call`), shared between
/// the chain's 53 states (six distinct clashes): the same chain, exactly, as replaying every die
/// of every clash in every state.
#[test]
fn sharing_calls_between_states_changes_nothing() {
    let rules = rules();
    let (_, step) = rt::find_resolver(rules.systems(), "risk.attack").unwrap();
    let start = inputs(step, 10, 10);
    let shared = rt::chain(step, &start, "done", 200, &mut |s| step.odds(s)).unwrap_or_else(|e| panic!("{e}"));
    let plain = rt::with_plain_calls(|| rt::chain(step, &start, "done", 200, &mut |s| step.odds(s))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shared, plain);
    assert_eq!(shared.states, 53);
}
