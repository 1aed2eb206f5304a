//! Exact odds of the Starleader resolvers against the probabilities the reference derives from the
//! book (B.4, SL-17, SL-18, T-B8), plus snapshots of the main distributions.

use rulebook::runtime::{self, Prob, Value};

// The fire of the snapshot is the benchmarks' (`common::FIRE`); the rest of the file is theirs.
#[path = "../benches/common/mod.rs"]
#[allow(dead_code)]
mod common;
use common::FIRE;

fn dist(path: &str, sets: &[(&str, &str)]) -> runtime::Distribution<Value> {
    let (_, r) = runtime::find_resolver(rulebook::SYSTEMS, path).unwrap();
    let sets: Vec<(String, String)> = sets.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let inputs = runtime::bind_inputs(r, &sets, None).unwrap();
    runtime::odds_dyn(r, &inputs).unwrap()
}

/// P(field == value), summed exactly over the joint distribution.
fn p(d: &runtime::Distribution<Value>, field: &str, value: &str) -> String {
    let mut total = Prob::zero();
    for (o, pr) in &d.outcomes {
        if o.field(field).map(|v| v.to_string()) == Some(value.to_string()) {
            total = total.add(pr);
        }
    }
    total.to_string()
}

fn render(d: &runtime::Distribution<Value>) -> String {
    d.outcomes
        .iter()
        .map(|(o, pr)| format!("{:>12}  {:>6}%  {o}", pr.to_string(), pr.percent(2)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn four_dice_to_hit_matches_the_reference_table() {
    // B.4: P(4d6 <= T) for T = density + UP target size 2: T = 8, 10, 12 and 16.
    for (weapon, want) in [
        ("Hanza 6/-3", "35/648"),
        ("Hanza 8/-3", "103/648"),
        ("Ghazi 10/7", "145/432"),
        ("Mazer 14/13", "493/648"),
    ] {
        let d = dist("starleader.to_hit", &[("weapon", weapon)]);
        assert_eq!(p(&d, "result", "hit"), want, "{weapon}");
    }
}

#[test]
fn special_results_match_reference_sl17() {
    // Ghazi 10/7 at an UP target (T = 12): hits are the rolls <= 12; 19-20 auto miss 91/1296,
    // 21-22 jammed 30/1296 = 5/216, 23-24 blown 5/1296.
    let d = dist("starleader.to_hit", &[("weapon", "Ghazi 10/7"), ("special_results", "true")]);
    assert_eq!(p(&d, "result", "hit"), "145/432");
    assert_eq!(p(&d, "result", "jammed"), "5/216");
    assert_eq!(p(&d, "result", "blown"), "5/1296");
    // An obscured target (T = 5) still hits on any roll of 10 or less: 103/648.
    let d = dist(
        "starleader.to_hit",
        &[("weapon", "Hanza 6/-3"), ("obstacle_size", "3"), ("special_results", "true")],
    );
    assert_eq!(p(&d, "result", "hit"), "103/648");
}

#[test]
fn unjam_matches_reference_sl18() {
    for (iq, want) in [("10", "1/2"), ("11", "5/8"), ("12", "20/27"), ("13", "181/216")] {
        let d = dist("starleader.unjam", &[("iq", iq)]);
        assert_eq!(p(&d, "success", "true"), want, "IQ {iq}");
    }
    // Three consecutive failures at IQ 10: (1/2)^3.
    let d = dist("starleader.unjam_until_done", &[("iq", "10")]);
    assert_eq!(p(&d, "ruined", "true"), "1/8");
}

#[test]
fn panic_table_matches_reference_tb8() {
    let d = dist("starleader.panic_check", &[("emotions", "8"), ("panic_checks", "true")]);
    assert_eq!(p(&d, "effect", "no_effect"), "5/8");
    assert_eq!(p(&d, "effect", "take_cover"), "23/108");
    assert_eq!(p(&d, "effect", "cover_no_fire"), "25/216");
    assert_eq!(p(&d, "effect", "flee"), "1/24");
    assert_eq!(p(&d, "effect", "collapse"), "1/216");
    let d = dist("starleader.panic_check", &[("emotions", "9"), ("panic_checks", "true")]);
    assert_eq!(p(&d, "effect", "no_effect"), "20/27");
    assert_eq!(p(&d, "effect", "take_cover"), "1/6");
    assert_eq!(p(&d, "effect", "collapse"), "0");
    let d = dist("starleader.panic_check", &[("emotions", "12"), ("panic_checks", "true")]);
    assert_eq!(p(&d, "effect", "no_effect"), "103/108");
}

#[test]
fn rerolled_ties_and_jumps() {
    let d = dist("starleader.initiative", &[("turn", "2")]);
    assert_eq!(p(&d, "side", "attackers"), "1/2");
    let d = dist("starleader.initiative", &[("turn", "1")]);
    assert_eq!(p(&d, "side", "attackers"), "1");
    let d = dist("starleader.jump", &[]);
    assert_eq!(p(&d, "falls", "true"), "1/3");
}

#[test]
fn heavy_hit_vector_b58() {
    // B.5.8: the Zdanthan's Ghazi 10/7 against Alloid-A (AR 8): damage 2d6 - 1, always >= 1;
    // P(>= 5 hits, so a heavy hit roll) = P(2d6 >= 6) = 26/36 of hits.
    let d = dist("starleader.damage", &[("punch", "7"), ("armor_rating", "8")]);
    assert_eq!(p(&d, "hits", "0"), "0");
    let mut heavy = Prob::zero();
    for (o, pr) in &d.outcomes {
        if let Some(Value::Int(h)) = o.field("hits") {
            if *h >= 5 {
                heavy = heavy.add(pr);
            }
        }
    }
    assert_eq!(heavy.to_string(), "13/18");
}

#[test]
fn distributions_snapshot() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("starleader.to_hit", &[("weapon", "Ghazi 10/7"), ("special_results", "true")]),
        ("starleader.damage", &[("punch", "7"), ("armor_rating", "8")]),
        ("starleader.panic_check", &[("emotions", "9"), ("panic_checks", "true")]),
        ("starleader.fire", FIRE),
    ];
    let mut out = String::new();
    for (path, sets) in cases {
        let d = dist(path, sets);
        let args: Vec<String> = sets.iter().map(|(a, b)| format!("{a}={b}")).collect();
        out.push_str(&format!("## {path} {}\n{}\n\n", args.join(" "), render(&d)));
    }
    insta::with_settings!({ snapshot_path => "../snapshots/odds", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("starleader", out);
    });
}

#[test]
fn t5_btsd_matches_the_books_n_column() {
    // T5 BTSD table, N column (ways out of 36): -5: 2, -4: 4, -3: 6, -2: 8, -1: 10, 0: 6.
    let d = dist("t5.btsd", &[]);
    for (result, n) in [
        ("very_heavy", 2u32),
        ("heavy", 4),
        ("common", 6),
        ("light", 8),
        ("slight", 10),
        ("scratch", 6),
    ] {
        let want = Prob::new(u128::from(n), 36).unwrap().to_string();
        assert_eq!(p(&d, "result", result), want, "{result}");
    }
}

#[test]
fn t5_penetration_and_fighting_action() {
    // Bullet-2 against Armor-6: 2D must exceed 6: 21/36 = 7/12; then Armor is 5.
    let d = dist("t5.penetrate", &[("effect", "bullet"), ("rating", "2"), ("armor", "6")]);
    assert_eq!(p(&d, "penetrated", "true"), "7/12");
    assert_eq!(p(&d, "armor_after", "5"), "7/12");
    assert_eq!(p(&d, "applied", "6"), "1/36");
    // Stench-2 against Sealed-8: 10/36 = 5/18; the protection is unchanged.
    let d = dist("t5.penetrate", &[("effect", "O"), ("rating", "2"), ("sealed", "8")]);
    assert_eq!(p(&d, "penetrated", "true"), "5/18");
    assert_eq!(p(&d, "sealed_after", "8"), "1");
    // FN 8 + 2, TSM 5 - 3 = 2: 12 or less on 2D, but any attack fails on 12: 35/36.
    let d = dist(
        "t5.attack",
        &[
            ("characteristic", "8"),
            ("skill", "2"),
            ("target_size", "5"),
            ("range", "3"),
            ("status", "normal"),
            ("target_speed", "still"),
        ],
    );
    assert_eq!(p(&d, "hit", "true"), "35/36");
}

/// Exact odds of the whole fire branch over what `fire` reads of its calls (the To Hit result,
/// the damage's hits and armor effects) instead of replaying `to_hit`'s 4d6 and `damage`'s 2d6 at
/// every leaf: plain enumeration needs more leaves than a limit of 300, the branching does not,
/// and both give the same 54 outcomes.
#[test]
fn fire_odds_branch_over_its_calls() {
    let (_, r) = runtime::find_resolver(rulebook::SYSTEMS, "starleader.fire").unwrap();
    let sets: Vec<(String, String)> = FIRE.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let inputs = runtime::bind_inputs(r, &sets, None).unwrap();
    let plain = runtime::with_plain_calls(|| runtime::odds_dyn(r, &inputs)).unwrap();
    assert_eq!(plain.outcomes.len(), 54);
    let capped = runtime::with_leaf_limit(300, || runtime::with_plain_calls(|| runtime::odds_dyn(r, &inputs)));
    assert!(matches!(capped, Err(runtime::Error::TooManyBranches { limit: 300 })), "{capped:?}");
    let branching = runtime::with_leaf_limit(300, || runtime::odds_dyn(r, &inputs)).unwrap();
    assert_eq!(branching, plain);
}

/// The typed exact odds (`starleader::odds::fire`) come from the generated forward pass: the same
/// distribution as the replay of the resolver under the enumerating dice, worked out by the pass
/// itself (not by falling back to the replay); the same leaf limits as the replay; and where the
/// inputs are refused, the replay's error, word for word, after the pass has failed.
#[test]
fn the_forward_pass_equals_the_replay() {
    use rulebook::starleader;
    let (_, _, typed) = common::fire_inputs();
    let replayed = runtime::enumerate(|d| starleader::fire(d, &mut runtime::NoTrace, &typed)).unwrap();
    let before = runtime::forward_stats();
    let forward = starleader::odds::fire(&typed).unwrap();
    let after = runtime::forward_stats();
    assert_eq!(forward, replayed);
    assert_eq!(forward.outcomes.len(), 54);
    assert_eq!((after.0 - before.0, after.1 - before.1), (1, 0), "one forward pass, which answered");

    // The same limits as the replay. Its first path is a hit of 4 (the damage classes go by hits
    // first, as `damage` declares its outputs), with no Heavy Hit roll: 4 To Hit classes x 11
    // damage classes = 44 wide. Under a limit of 44 that path passes, and the 54 leaves do not;
    // a limit of 54 answers and one of 53 refuses, in both.
    assert_eq!(runtime::with_leaf_limit(54, || starleader::odds::fire(&typed)).unwrap(), replayed);
    for limit in [53, 44] {
        let capped = runtime::with_leaf_limit(limit, || starleader::odds::fire(&typed));
        let capped_replay = runtime::with_leaf_limit(limit, || runtime::enumerate(|d| starleader::fire(d, &mut runtime::NoTrace, &typed)));
        assert!(
            matches!(capped, Err(runtime::Error::TooManyBranches { limit: l }) if l == limit),
            "{capped:?}"
        );
        assert_eq!(capped, capped_replay);
    }

    // A target behind an obstacle that blocks Line-of-Sight: refused by a `require` of the callee
    // `to_hit`, so the pass fails at its first call.
    let mut blocked = typed.clone();
    blocked.obstacle_size = 6;
    let before = runtime::forward_stats();
    let refused = starleader::odds::fire(&blocked);
    let after = runtime::forward_stats();
    let refused_replay = runtime::enumerate(|d| starleader::fire(d, &mut runtime::NoTrace, &blocked));
    assert!(
        matches!(refused.as_ref().map_err(|e| e.cause()), Err(runtime::Error::Rejected { .. })),
        "{refused:?}"
    );
    assert_eq!(refused, refused_replay);
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (0, 1),
        "the pass failed and the replay answered"
    );
}
