//! Mercenary's acceptance interface: the unit attack's exact odds, whole battles (`roll`/`sim`),
//! refused battle files, and a policy replaced by an application.

use rulebook::mercenary::{self, Policy};
use rulebook::runtime::{self, NoTrace, Seeded};
mod common;

use common::{prob, rulebook};
use rulebook::runtime::Prob;
use serde_json::Value;

#[test]
fn unit_attack_acceptance() {
    let args = [
        "odds",
        "mercenary.unit_attack",
        "--set",
        "attacker=infantry",
        "--set",
        "defender=infantry",
        "--set",
        "skill=1",
        "--set",
        "range=0",
        "--set",
        "attacker_size=3",
        "--set",
        "attacker_tl=10",
        "--set",
        "defender_tl=10",
        "--set",
        "morale=10",
        "--json",
    ];
    let out = rulebook(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut success = Prob::zero();
    for o in v["outcomes"].as_array().unwrap() {
        let oc = &o["outcome"];
        for field in ["acted", "success", "effect", "casualties"] {
            assert!(oc.get(field).is_some(), "missing {field}");
        }
        if oc["success"] == false {
            assert_eq!(oc["casualties"], 0);
        }
        if oc["success"] == true {
            success = success.add(&prob(o["probability"].as_str().unwrap()));
        }
    }
    // Morale 10 passes automatically; 2D + 1 + range DM +0 >= 8 (Infantry vs Infantry): 7/12.
    assert_eq!(success, prob("7/12"));
}

#[test]
fn cannot_attack_is_a_typed_result_and_casualties_are_capped() {
    let v: Value = serde_json::from_slice(
        &rulebook(&[
            "roll",
            "mercenary.unit_attack",
            "--set",
            "attacker=infantry",
            "--set",
            "defender=ortillery",
            "--set",
            "skill=1",
            "--set",
            "range=0",
            "--set",
            "attacker_size=3",
            "--set",
            "attacker_tl=10",
            "--set",
            "defender_tl=10",
            "--set",
            "morale=10",
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(v["outcome"]["result"], "cannot_attack");
    assert_eq!(v["outcome"]["acted"], false);
    // Artillery (Unit Damage +15 against Infantry) never takes more members than the target has.
    let out = rulebook(&[
        "odds",
        "mercenary.unit_attack",
        "--set",
        "attacker=artillery",
        "--set",
        "defender=infantry",
        "--set",
        "skill=3",
        "--set",
        "range=3",
        "--set",
        "attacker_size=4",
        "--set",
        "attacker_tl=12",
        "--set",
        "defender_tl=10",
        "--set",
        "morale=10",
        "--set",
        "defender_strength=5",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for o in v["outcomes"].as_array().unwrap() {
        assert!(o["outcome"]["casualties"].as_i64().unwrap() <= 5);
    }
}

#[test]
fn sim_reports_outcomes_summing_to_one_whatever_the_threads() {
    let run = |t: &str| {
        rulebook(&[
            "sim",
            "mercenary.battle",
            "--input",
            "examples/mercenary-infantry-clash.yaml",
            "--runs",
            "300",
            "--seed",
            "9",
            "--threads",
            t,
            "--json",
        ])
    };
    let one = run("1");
    let two = run("2");
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    assert_eq!(one.stdout, two.stdout);
    let v: Value = serde_json::from_slice(&one.stdout).unwrap();
    let outcomes = v["outcomes"].as_object().unwrap();
    let total: f64 = outcomes.values().map(|o| o["probability"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    for o in outcomes.values() {
        let ci = o["ci95"].as_array().unwrap();
        assert!(ci[0].as_f64().unwrap() <= o["probability"].as_f64().unwrap() + 1e-12);
    }
    // Every declared end of a battle is listed, in the order the rules declare them, seen or not.
    let keys: Vec<&str> = outcomes.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "side_a_wins",
            "side_b_wins",
            "side_a_withdraws",
            "side_b_withdraws",
            "both_withdraw",
            "draw"
        ]
    );
    let draw = &outcomes["draw"];
    if draw["probability"].as_f64() == Some(0.0) {
        assert!(
            draw["ci95"][1].as_f64().unwrap() > 0.0,
            "an unseen outcome still has an upper bound"
        );
    }
    assert!(v["means"]["rounds"]["mean"].as_f64().unwrap() >= 1.0);
    assert!(v["means"].as_object().unwrap().keys().any(|k| k.starts_with("losses_a.infantry")));
}

#[test]
fn a_seeded_battle_is_reproducible_and_explained() {
    let a = rulebook(&[
        "roll",
        "mercenary.battle",
        "--input",
        "examples/mercenary-combined-arms.yaml",
        "--seed",
        "4",
        "--depth",
        "99",
    ]);
    let b = rulebook(&[
        "roll",
        "mercenary.battle",
        "--input",
        "examples/mercenary-combined-arms.yaml",
        "--seed",
        "4",
        "--depth",
        "99",
    ]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8_lossy(&a.stdout);
    assert!(text.contains("Unit Skill throw") && text.contains("Leadership throw") && text.contains("[Battle System: Morale Phase]"));
}

fn bad_file(name: &str, units: &str) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("rulebook-battle-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("battle.yaml");
    std::fs::write(&file, format!("units:\n{units}")).unwrap();
    let out = rulebook(&["sim", "mercenary.battle", "--input", file.to_str().unwrap(), "--runs", "100"]);
    std::fs::remove_dir_all(&dir).ok();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

const COMMANDS: &str = "  - {name: A HQ, side: a, unit_type: command, strength: 10, rating: 3, tl: 10, zone: a_reserves}\n  - {name: B HQ, side: b, unit_type: command, strength: 10, rating: 3, tl: 10, zone: b_reserves}\n";

#[test]
fn invalid_battle_files_are_refused_before_anything_is_simulated() {
    let (code, out, err) = bad_file(
        "type",
        &format!("{COMMANDS}  - {{name: Tanks, side: a, unit_type: tank, strength: 4, rating: 3, tl: 10, zone: a_front_line}}\n"),
    );
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("battle.yaml") && err.contains("\"Tanks\"") && err.contains("vehicle"),
        "{err}"
    );

    let (code, out, err) = bad_file(
        "negative",
        &format!("{COMMANDS}  - {{name: Ghosts, side: a, unit_type: infantry, strength: -5, rating: 3, tl: 10, zone: a_front_line}}\n"),
    );
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("battle.yaml") && err.contains("Ghosts") && err.contains("Member Strength"),
        "{err}"
    );

    let (code, out, err) = bad_file("command", "  - {name: Rifles, side: a, unit_type: infantry, strength: 40, rating: 3, tl: 10, zone: a_front_line}\n  - {name: B HQ, side: b, unit_type: command, strength: 10, rating: 3, tl: 10, zone: b_reserves}\n");
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("army A has no Command unit") && err.contains("[Battle System: Creating A Military Force]"),
        "{err}"
    );

    let (code, out, err) = bad_file(
        "zone",
        &format!("{COMMANDS}  - {{name: Wing, side: a, unit_type: cas, strength: 4, rating: 3, tl: 10, zone: a_front_line}}\n"),
    );
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("Wing") && err.contains("Support zone") && err.contains("[Battle System: Deployment Zone]"),
        "{err}"
    );
}

/// An application that never lets army A withdraw but makes army B concede at once.
struct Stubborn;

impl Policy for Stubborn {
    fn withdraw<D: runtime::Dice + ?Sized, T: runtime::Trace>(
        &mut self,
        _dice: &mut D,
        _trace: &mut T,
        inp: &mercenary::WithdrawInputs,
    ) -> Result<mercenary::WithdrawOutcome, runtime::Error> {
        Ok(mercenary::WithdrawOutcome {
            withdraw: inp.side == mercenary::Side::B,
            units: Vec::new(),
        })
    }
}

#[test]
fn an_application_can_replace_a_policy() {
    let (_, r) = runtime::find_resolver(rulebook::SYSTEMS, "mercenary.battle").unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mercenary-infantry-clash.yaml")).unwrap();
    let yaml: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let bound = runtime::bind_inputs(r, &[], Some(&yaml)).unwrap();
    let inputs = mercenary::BattleInputs::from_values(&bound).unwrap();
    let out = mercenary::battle_with(&mut Seeded::new(1), &mut NoTrace, &mut Stubborn, &inputs).unwrap();
    assert_eq!(out.result, mercenary::BattleResult::SideBWithdraws);
    assert_eq!(out.rounds, 1);
    // The default policy fights it out instead.
    let default = mercenary::battle(&mut Seeded::new(1), &mut NoTrace, &inputs).unwrap();
    assert_ne!(default.result, mercenary::BattleResult::SideBWithdraws);
}

#[test]
fn exact_odds_of_a_whole_battle_refuse_at_once_and_are_estimated_instead() {
    let started = std::time::Instant::now();
    let args = [
        "odds",
        "mercenary.battle",
        "--input",
        "examples/mercenary-infantry-clash.yaml",
        "--budget",
        "5",
        "--json",
    ];
    let out = rulebook(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Refused from the first path's width (without the guard this would run for hours), then
    // estimated within the budget (5 s here) to ±1% at 95%, or as near as the budget allows.
    let why = doc["estimated_because"].as_str().unwrap_or_default();
    assert!(why.starts_with("too many dice outcomes to enumerate exactly"), "{doc}");
    assert_eq!(doc["precision"]["target"], 0.01, "{doc}");
    assert!(doc["outcomes"].as_object().is_some_and(|o| o.contains_key("side_a_wins")), "{doc}");
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

/// An application whose army B pulls its 2nd Platoon out piecemeal at the first Withdrawal Phase.
struct PullOut;

impl Policy for PullOut {
    fn withdraw<D: runtime::Dice + ?Sized, T: runtime::Trace>(
        &mut self,
        _dice: &mut D,
        _trace: &mut T,
        inp: &mercenary::WithdrawInputs,
    ) -> Result<mercenary::WithdrawOutcome, runtime::Error> {
        let units = if inp.side == mercenary::Side::B {
            vec!["B 2nd Platoon".into()]
        } else {
            Vec::new()
        };
        Ok(mercenary::WithdrawOutcome { withdraw: false, units })
    }
}

#[test]
fn a_piecemeal_withdrawal_takes_only_the_named_units_under_the_last_volley() {
    let (_, r) = runtime::find_resolver(rulebook::SYSTEMS, "mercenary.battle").unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mercenary-infantry-clash.yaml")).unwrap();
    let yaml: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let bound = runtime::bind_inputs(r, &[], Some(&yaml)).unwrap();
    let inputs = mercenary::BattleInputs::from_values(&bound).unwrap();
    let mut trace = runtime::Recorder::new();
    let out = mercenary::battle_with(&mut Seeded::new(1), &mut trace, &mut PullOut, &inputs).unwrap();
    // The army stays: the battle goes on past the first round.
    assert!(out.rounds > 1, "{out:?}");
    assert_ne!(out.result, mercenary::BattleResult::SideBWithdraws);
    let status = |name: &str| out.r#final.iter().find(|u| &*u.name == name).map(|u| u.status);
    assert!(
        matches!(
            status("B 2nd Platoon"),
            Some(mercenary::UnitStatus::Withdrawn | mercenary::UnitStatus::Destroyed)
        ),
        "{out:?}"
    );
    assert!(out
        .r#final
        .iter()
        .all(|u| u.side == mercenary::Side::B || u.status != mercenary::UnitStatus::Withdrawn));
    // Round 1's Withdrawal Phase, between its Morale Phase and round 2: army A's last volley
    // fires at the leaving unit only.
    let text = trace.render();
    let round1 = text.split("set round = 2").next().unwrap_or("");
    let volley = round1.rsplit("morale_step").next().unwrap_or("");
    let targets: Vec<&str> = volley.lines().filter(|l| l.trim().starts_with("set target = ")).collect();
    // A 1st and A 2nd Platoon fire at it; A HQ then finds it capped at two attackers (MER-A22) and,
    // with no other leaving unit to fire at, holds its fire rather than hitting a unit that stays.
    assert_eq!(targets.len(), 3, "{targets:?}");
    assert!(targets[..2].iter().all(|t| t.contains("= \"B 2nd Platoon\"")), "{targets:?}");
    assert!(targets[2].contains("= none"), "{targets:?}");
}

#[test]
fn a_battle_trace_cuts_whole_army_states_unless_full() {
    let args = [
        "roll",
        "mercenary.battle",
        "--input",
        "examples/mercenary-infantry-clash.yaml",
        "--seed",
        "7",
    ];
    // Every line (a long trace is folded otherwise), values cut.
    let short = rulebook(&[&args[..], &["--depth", "99"]].concat());
    assert!(short.status.success(), "{}", String::from_utf8_lossy(&short.stderr));
    let text = String::from_utf8_lossy(&short.stdout);
    let trace = text
        .split("\ntrace (")
        .nth(1)
        .unwrap_or("")
        .split("\noutcome:")
        .next()
        .unwrap_or("");
    // The army's state (six fighters) is cut to its start and its size; dice are never cut.
    assert!(trace.contains("… (6 items)"), "{trace}");
    assert!(trace.contains("roll Unit Skill throw 2d6: ["), "{trace}");
    let longest = trace.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest < 300, "a trace line of {longest} characters");
    let full = rulebook(&[&args[..], &["--full"]].concat());
    let full_text = String::from_utf8_lossy(&full.stdout);
    assert!(!full_text.contains("… (6 items)"));
    assert!(full_text.contains("blocks_used: 0, promoted: false}]"));
    // Same battle, same dice: only the printing differs.
    assert_eq!(text.lines().count(), full_text.lines().count());
}

// ------------------------------------------------------------------ zero dice, suppression (New Combat Rules)

/// Ground Force Weaponry against Starship-scale Targets: when no weapon hits there are no damage
/// dice to roll, and rolling no dice is 0 damage, not an error.
#[test]
fn ground_weapons_that_all_miss_do_no_damage() {
    // Two weapons of 3D, skill 0: 1+1 +4 = 6 and 1+1 +4 = 6, both below 8.
    let out = common::resolve(
        "mercenary.ground_vs_starship",
        &[("skill", "0"), ("weapons", "3,3")],
        "",
        &[1, 1, 1, 1],
    )
    .unwrap();
    for (f, want) in [("hits", "0"), ("damage_dice", "0"), ("ground_damage", "0"), ("damage", "0")] {
        assert_eq!(common::field(&out, f), want, "{f}");
    }
    // Exactly: no damage dice at all when both miss. A hit is 2D + 4 >= 8, 33/36; a miss 3/36 = 1/12,
    // so both miss with (1/12)^2 = 1/144.
    let d = common::odds("mercenary.ground_vs_starship", &[("skill", "0"), ("weapons", "3,3")], "").unwrap();
    assert_eq!(
        d.probability(|o| o.field("damage_dice") == Some(&runtime::Value::Int(0)))
            .to_string(),
        "1/144"
    );
}

/// Traveller core rules, Damage: a weapon with 0 damage dice (the inputs allow it) that hits does
/// its flat bonus only.
#[test]
fn a_hit_with_no_damage_dice_does_its_bonus_only() {
    let out = common::resolve(
        "mercenary.ranged_attack",
        &[("skill", "1"), ("damage_dice", "0"), ("damage_bonus", "2")],
        "",
        &[6, 6],
    )
    .unwrap();
    assert_eq!(
        (common::field(&out, "success"), common::field(&out, "damage")),
        ("true".into(), "2".into())
    );
}

/// Suppression Fire: "stalling their next action by adding an initiative penalty equal to the Effect
/// of the attack. Suppressed targets also receive a -1DM penalty to any skill checks that they try
/// to perform in both the current and following combat round ... The target must be allowed to take
/// one action before he can be suppressed again."
#[test]
fn suppression_is_carried_into_the_next_combat_round() {
    // Round 4: skill 2, 6+5 = 11, -2 DM: 11 + 2 - 2 = 11, Effect 3.
    let fire = common::resolve("mercenary.suppression_fire", &[("skill", "2"), ("round", "4")], "", &[6, 5]).unwrap();
    assert_eq!(common::field(&fire, "suppressed"), "true");
    assert_eq!(common::field(&fire, "initiative_penalty"), "3");
    assert_eq!(common::field(&fire, "suppressed_round"), "4");
    let effects = |round: &str, acted: &str| {
        let sets = [
            ("round", round),
            ("suppressed_round", "4"),
            ("initiative_penalty", "3"),
            ("acted_since", acted),
        ];
        let o = common::resolve("mercenary.suppression_effects", &sets, "", &[]).unwrap();
        (
            common::field(&o, "skill_dm"),
            common::field(&o, "initiative_dm"),
            common::field(&o, "can_be_suppressed"),
        )
    };
    // The round it happened in: -1 to checks, his next action stalled by 3, not suppressible again.
    assert_eq!(effects("4", "false"), ("-1".into(), "-3".into(), "false".into()));
    // The following round: still -1; the stall waits for his next action if he has not acted yet.
    assert_eq!(effects("5", "false"), ("-1".into(), "-3".into(), "false".into()));
    assert_eq!(effects("5", "true"), ("-1".into(), "0".into(), "true".into()));
    // Two rounds later it is over.
    assert_eq!(effects("6", "true"), ("0".into(), "0".into(), "true".into()));
    // The -1 reaches the target's own attack throw in round 5: 2D 4+4 + skill 0 - 1 = 7 misses.
    let shot = common::resolve(
        "mercenary.attack_throw",
        &[("skill", "0"), ("dm", &effects("5", "true").0)],
        "",
        &[4, 4],
    )
    .unwrap();
    assert_eq!(common::field(&shot, "success"), "false");
}
