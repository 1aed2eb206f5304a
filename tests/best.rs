//! `rulebook best` (issue 41, point 1) on two procedures written as steps: one turn of Pig
//! (`tests/fixtures/decisions/pig/`), whose best policy is known (roll below 20, hold from then
//! on), and the RISK attack (`benches/fixtures/risk/`). The optimum equals the best of every
//! deterministic policy tried one by one; the chosen policy, re-run through the chain engine of
//! `odds --until` as a fixed policy, gives exactly the optimum reported; fixed policies give what
//! `odds --until` gives for them.

mod common;

use common::{rulebook, stdout};
use num_rational::BigRational;
use rulebook::runtime::{self as rt, Value};
use std::path::Path;

fn rules(folder: &str) -> rulebook::Rules {
    rulebook::Rules::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(folder)).unwrap_or_else(|e| panic!("{e}"))
}

fn pig_start(step: &rt::ResolverInfo, cap: i64) -> rt::Inputs {
    let sets = [("total".to_string(), "0".to_string()), ("cap".to_string(), cap.to_string())];
    rt::bind_inputs(step, &sets, None).unwrap_or_else(|e| panic!("{e}"))
}

/// The expected points banked under a fixed policy (roll while `roll(total)`), by the chain engine
/// of `odds --until`: the end distribution's mean of `banked` (a path not ended in `steps` banks 0).
fn chained_value(step: &rt::ResolverInfo, start: &rt::Inputs, steps: u32, roll: &dyn Fn(i64) -> bool) -> BigRational {
    let mut odds = |s: &rt::Inputs| {
        let mut s = s.clone();
        let total = match s.get("total") {
            Some(Value::Int(t)) => *t,
            _ => 0,
        };
        s.insert("roll_again".into(), Value::Bool(roll(total)));
        step.odds(&s)
    };
    let c = rt::chain(step, start, "done", steps, &mut odds).unwrap_or_else(|e| panic!("{e}"));
    let mut sum = BigRational::from_integer(0.into());
    for (o, p) in &c.end.outcomes {
        if let Some(Value::Int(b)) = o.field("banked") {
            sum += p.to_big() * BigRational::from_integer((*b).into());
        }
    }
    sum
}

fn solve(step: &rt::ResolverInfo, start: rt::Inputs, horizon: u32) -> rt::best::Solution {
    let problem = rt::best::Problem {
        step,
        start,
        until: "done",
        decide: "roll_again".into(),
        choices: vec![Value::Bool(false), Value::Bool(true)],
        objective: rt::best::Objective::parse(step, "banked").unwrap_or_else(|e| panic!("{e}")),
        horizon,
    };
    rt::best::solve(&problem, &mut |i| step.odds(i), &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn pig_rolls_below_twenty_and_holds_from_then_on() {
    let rules = rules("tests/fixtures/decisions");
    let (_, step) = rt::find_resolver(rules.systems(), "pig.turn").unwrap();
    let sol = solve(step, pig_start(step, 200), 60);
    for st in &sol.states {
        let Value::Int(total) = st.state[0] else { panic!("{:?}", st.state) };
        let expected: &[usize] = match total.cmp(&20) {
            std::cmp::Ordering::Less => &[1],
            std::cmp::Ordering::Equal => &[0, 1],
            std::cmp::Ordering::Greater => &[0],
        };
        assert_eq!(st.best, expected, "at a total of {total}");
    }
    // The known value of holding at 20: about 8.14 points a turn; exactly what the chain gives.
    let hold_at_20 = chained_value(step, &pig_start(step, 200), 60, &|t| t < 20);
    assert_eq!(sol.optimal, hold_at_20);
    assert_eq!(rt::best::fraction(&sol.optimal), "492303203/60466176");
    assert_eq!(rt::best::decimal(&sol.optimal, 4), "8.1418");
}

#[test]
fn the_optimum_is_the_best_of_every_deterministic_policy() {
    let rules = rules("tests/fixtures/decisions");
    let (_, step) = rt::find_resolver(rules.systems(), "pig.turn").unwrap();
    let start = pig_start(step, 8);
    let sol = solve(step, start.clone(), 40);
    // The totals a turn can hold: 0, and 2 to 8.
    let totals: Vec<i64> = std::iter::once(0).chain(2..=8).collect();
    let mut best = None::<BigRational>;
    for policy in 0u32..(1 << totals.len()) {
        let roll = |t: i64| totals.iter().position(|&x| x == t).is_some_and(|i| policy & (1 << i) != 0);
        let v = chained_value(step, &start, 40, &roll);
        if best.as_ref().is_none_or(|b| v > *b) {
            best = Some(v);
        }
    }
    assert_eq!(
        Some(sol.optimal.clone()),
        best,
        "{} against the best of 256 policies",
        rt::best::decimal(&sol.optimal, 4)
    );
    // Re-run through the chain, the policy `best` chose gives the optimum it reports.
    let chosen = |t: i64| {
        sol.states
            .iter()
            .find(|s| s.state[0] == Value::Int(t))
            .is_some_and(|s| s.best.first() == Some(&1))
    };
    assert_eq!(chained_value(step, &start, 40, &chosen), sol.optimal);
}

const RISK: &[&str] = &[
    "best",
    "risk.attack",
    "--rules",
    "benches/fixtures",
    "--set",
    "attackers=6",
    "--set",
    "defenders=4",
    "--until",
    "done",
    "--decide",
    "stop_at=1..6",
    "--maximize",
    "defenders == 0",
];

#[test]
fn risk_fixed_policies_are_what_odds_until_gives_them() {
    let mut args = RISK.to_vec();
    args.extend(["--against", "stop_at=4", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&args)).unwrap();
    // Conquest: `odds risk.attack --until done --observed defenders=0` (README) fighting on, and
    // stopping at four armies.
    assert_eq!(doc["optimal"], "1166853115687865/1828079220031488");
    assert_eq!(doc["compared"][0]["policy"], "the rules' own (stop_at = 1)");
    assert_eq!(doc["compared"][0]["value"], "1166853115687865/1828079220031488");
    assert_eq!(doc["compared"][1]["value"], "659100625/2176782336");
    let start = &doc["states"][0];
    assert_eq!(start["state"], serde_json::json!({"attackers": 6, "defenders": 4}));
    // Attacking on (stop_at below the armies) is best; stopping at 6 is not.
    assert!(start["best"].as_array().unwrap().iter().all(|b| b.as_i64().unwrap() < 4), "{start}");
    // Without --decide, the step's one `choice` (all its values) is the decision.
    let mut undeclared = RISK[..10].to_vec();
    undeclared.extend(["--maximize", "defenders == 0", "--json"]);
    let all: serde_json::Value = serde_json::from_str(&stdout(&undeclared)).unwrap();
    assert_eq!(all["decide"], "stop_at");
    assert_eq!(all["optimal"], doc["optimal"]);
    let text = stdout(RISK);
    assert!(
        text.contains("best                          63.83%  (1166853115687865/1828079220031488)"),
        "{text}"
    );
}

#[test]
fn mistakes_are_usage_errors_before_any_work() {
    for (extra, says) in [
        (
            vec!["--decide", "attackers", "--maximize", "done"],
            "`attackers` is not a decision of attack; its `choice` inputs: stop_at",
        ),
        (
            vec!["--decide", "stop_at", "--maximize", "conquered"],
            "has no output `conquered`; its outputs: attackers, defenders, done",
        ),
        (
            vec!["--decide", "stop_at", "--maximize", "done", "--against", "stop=2"],
            "the decision is `stop_at`; give --against stop_at=VALUE",
        ),
        (
            vec!["--decide", "stop_at=a..b", "--maximize", "done"],
            "--decide stop_at=a..b: `a` is not a whole number",
        ),
        (vec!["--maximize", "x * attackers"], "`x` is not a whole number to multiply by"),
        (vec!["--maximize", "attackers - "], "a term without an output"),
        (vec!["--maximize", "done == maybe"], "invalid value `maybe` for done: expected bool"),
        (
            vec!["--maximize", "done < yes"],
            "`done` is not a whole number: compare it with == or !=",
        ),
    ] {
        let mut args = RISK[..10].to_vec();
        args.extend(extra.iter());
        let out = rulebook(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let out = rulebook(&["best", "striker.gravity_movement", "--until", "rate_cm", "--maximize", "rate_cm"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("gravity_movement declares no `choice` input"), "{stderr}");
}

#[test]
fn a_decision_with_too_many_states_says_so_within_its_budget() {
    let started = std::time::Instant::now();
    // A hundred armies a side, any of a hundred choices in each of some 10,000 states.
    let mut args = RISK[..4].to_vec();
    args.extend([
        "--set",
        "attackers=100",
        "--set",
        "defenders=100",
        "--until",
        "done",
        "--maximize",
        "defenders == 0",
        "--budget",
        "1",
    ]);
    let out = rulebook(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("exact odds stopped after 1 s in step"), "{stderr}");
    assert!(stderr.contains("(--rounds)"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

/// Starleader 6.64: after each failed unjam the owner may try again or leave the weapon jammed;
/// three failures in a row ruin it. Counting a working weapon +1 and a ruined one -1, the best
/// policy and its value follow from p = P(3d6 <= IQ) by hand: after two failures, try again only
/// if 2p - 1 > 0, that is from IQ 11 (at IQ 10, p = 1/2, either). The compiled rules and the
/// interpreter give the same document.
#[test]
fn starleader_unjam_tries_a_third_time_from_iq_eleven() {
    for iq in 6i64..=14 {
        let hits = (1..=6)
            .flat_map(|a| (1..=6).flat_map(move |b| (1..=6).map(move |c| a + b + c)))
            .filter(|&s| s <= iq)
            .count();
        let p = BigRational::new(i64::try_from(hits).unwrap().into(), 216.into());
        let zero = BigRational::from_integer(0.into());
        let one = BigRational::from_integer(1.into());
        let v2 = (&p - (&one - &p)).max(zero.clone());
        let v1 = (&p + (&one - &p) * &v2).max(zero.clone());
        let v0 = (&p + (&one - &p) * &v1).max(zero);
        let args = [
            "best",
            "starleader.unjam_or_stop",
            "--set",
            &format!("iq={iq}"),
            "--until",
            "done",
            "--maximize",
            "working - ruined",
            "--json",
        ];
        let compiled: serde_json::Value = serde_json::from_str(&stdout(&args)).unwrap();
        assert_eq!(compiled["optimal"], rt::best::fraction(&v0), "IQ {iq}");
        let third = compiled["states"].as_array().unwrap().iter().find(|s| s["state"]["failures"] == 2);
        let best_third: Vec<bool> = third
            .map(|s| s["best"].as_array().unwrap().iter().map(|b| b.as_bool().unwrap()).collect())
            .unwrap_or_default();
        let expected: &[bool] = match iq.cmp(&10) {
            std::cmp::Ordering::Less => &[false],
            std::cmp::Ordering::Equal => &[false, true],
            std::cmp::Ordering::Greater => &[true],
        };
        assert_eq!(best_third, expected, "IQ {iq}: after two failures");
        let mut interpreted = args.to_vec();
        interpreted.extend(["--rules", "rules-src"]);
        assert_eq!(
            stdout(&interpreted),
            stdout(&args),
            "IQ {iq}: the interpreter against the compiled rules"
        );
    }
}

/// Mercenary's Rally (Battle System: Rally Action): 2D + Leadership 9+ regains the Effect, a
/// failure costs a point. A commander with Leadership 0 or 1 does best never to Rally a unit at
/// 3 of 6 (over three actions), one with 2 or more always to; the compiled rules and the
/// interpreter agree.
#[test]
fn mercenary_rallies_only_with_leadership_two_or_more() {
    for leadership in 0..=3 {
        let l = format!("leadership={leadership}");
        let args = [
            "best",
            "mercenary.rally_or_stop",
            "--set",
            &l,
            "--set",
            "morale=3",
            "--set",
            "start_morale=6",
            "--until",
            "done",
            "--maximize",
            "morale",
            "--rounds",
            "3",
            "--json",
        ];
        let doc: serde_json::Value = serde_json::from_str(&stdout(&args)).unwrap();
        let start = &doc["states"][0];
        assert_eq!(start["state"]["morale"], 3);
        let rally = leadership >= 2;
        assert_eq!(start["best"], serde_json::json!([rally]), "Leadership {leadership}");
        if !rally {
            assert_eq!(doc["optimal"], "3/1", "Leadership {leadership}: stopping keeps the 3 points");
        }
        let mut interpreted = args.to_vec();
        interpreted.extend(["--rules", "rules-src"]);
        assert_eq!(stdout(&interpreted), stdout(&args), "Leadership {leadership}");
    }
}

/// Mercenary's Withdrawal Phase (`examples/mercenary-withdraw.yaml`, README "Best decisions"): the
/// choice matters only in the first round's Withdrawal Phase, and there army B withdraws when its
/// fire team is gone or both still stand, and fights on when only A's is gone. Never withdrawing
/// is worth what `odds --until ended` gives (P(B wins) − P(A wins)); the best mix beats it and
/// withdrawing at once.
#[test]
fn mercenary_b_withdraws_unless_only_a_has_lost_its_fire_team() {
    let input = ["--input", "examples/mercenary-withdraw.yaml"];
    let mut args = vec!["best", "mercenary.battle_step", "--until", "ended", "--decide", "b_withdraws"];
    args.extend([
        "--maximize",
        "result == side_b_wins - result == side_a_wins",
        "--against",
        "b_withdraws=true",
    ]);
    args.extend(input);
    args.push("--json");
    let doc: serde_json::Value = serde_json::from_str(&stdout(&args)).unwrap();
    let frac = |v: &serde_json::Value| -> BigRational { v.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{v}")) };
    let (best, never, at_once) = (
        frac(&doc["optimal"]),
        frac(&doc["compared"][0]["value"]),
        frac(&doc["compared"][1]["value"]),
    );
    assert!(best > at_once && at_once > never, "{best} {at_once} {never}");

    let mut odds = vec!["odds", "mercenary.battle_step", "--until", "ended", "--field", "result", "--json"];
    odds.extend(input);
    let ended: serde_json::Value = serde_json::from_str(&stdout(&odds)).unwrap();
    let p = |result: &str| {
        ended["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["outcome"]["result"] == result)
            .map(|o| frac(&o["probability"]))
            .unwrap()
    };
    assert_eq!(never, p("side_b_wins") - p("side_a_wins"));

    let standing = |s: &serde_json::Value, name: &str| {
        s["state"]["fighters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["u"]["name"] == name && f["u"]["status"] == "active")
    };
    let matters: Vec<&serde_json::Value> = doc["states"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["best"].as_array().unwrap().len() == 1)
        .collect();
    assert_eq!(matters.len(), 288);
    for s in matters {
        let st = &s["state"];
        assert!(
            st["round"] == 1 && st["stage"] == "actions" && st["schedule"] == serde_json::json!([]),
            "{st}"
        );
        let withdraw = !standing(s, "B Fire Team") || standing(s, "A Fire Team");
        assert_eq!(s["best"], serde_json::json!([withdraw]), "{st}");
    }
}
