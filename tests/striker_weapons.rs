//! Striker Book 2, rules 34-45 (part `weapons`): exact odds against the reference's oracles (the 2D
//! reference, E[max(0, 1D + k)] per point defense die, T1, T-COLLAPSE, T-NUKE, T-DAMPER), the two
//! readings of X3 and of the sheaf degradation (X4), and the rules' refusals. Each test cites the rule
//! it checks; the readings are in docs/ambiguities.md (Striker) (STR-weapons).

mod common;

use common::{attempt, dist, field, p, refusals, resolve};
use rulebook::runtime::{self, Prob, Value};

/// The exact mean of a whole-number output that takes values 0..=max.
fn mean(d: &runtime::Distribution<Value>, name: &str, max: u128) -> Prob {
    let mut m = Prob::zero();
    for v in 1..=max {
        let pv = d.probability(|o| o.field(name).map(|x| x.to_string()) == Some(v.to_string()));
        m = m.add(&pv.mul(&Prob::new(v, 1).unwrap()));
    }
    m
}

fn pd(pd_tl: &str, round_tl: &str, n: &str, extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = vec![
        ("pd_tl", pd_tl.to_string()),
        ("round_tl", round_tl.to_string()),
        ("dice", n.to_string()),
    ];
    v.extend(extra.iter().map(|(a, b)| (*a, b.to_string())));
    v
}

fn sets<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'a str, &'a str)> {
    v.iter().map(|(a, b)| (*a, b.as_str())).collect()
}

// ------------------------------------------------------------------ point defense (36.C.1)

/// 36.C.1 oracle: one die with DM k = TL_PD - TL_round destroys on average E[max(0, 1D + k)]:
/// 1/6, 1/2, 1, 5/3, 5/2, 7/2, 9/2, 11/2, 13/2, 15/2, 17/2, 19/2 for k = -5 .. +6, and 0 from -6 down.
#[test]
fn one_point_defense_die_destroys_max_0_1d_plus_k_on_average() {
    let want = [
        (1, 6),
        (1, 2),
        (1, 1),
        (5, 3),
        (5, 2),
        (7, 2),
        (9, 2),
        (11, 2),
        (13, 2),
        (15, 2),
        (17, 2),
        (19, 2),
    ];
    for (i, (n, dn)) in want.iter().enumerate() {
        let k = i as i64 - 5;
        let round_tl = (10 - k).to_string();
        let v = pd("10", &round_tl, "1", &[]);
        let d = dist("striker.point_defense", &sets(&v));
        assert_eq!(mean(&d, "destroyed", 12), Prob::new(*n, *dn).unwrap(), "k = {k}");
        assert_eq!(p(&d, "dm", &k.to_string()), "1");
    }
    for k in [-6, -9] {
        let round_tl = (10 - k).to_string();
        let v = pd("10", &round_tl, "3", &[]);
        let d = dist("striker.point_defense", &sets(&v));
        assert_eq!(p(&d, "destroyed", "0"), "1", "k = {k}: no die can score");
    }
}

/// 36.C.1: the sum of the dice; several dice on one mission add (two dice at DM 0: 2D, the 2D
/// reference: P(2D >= 7) = 21/36, P(2D >= 10) = 6/36, P(2D = 12) = 1/36).
#[test]
fn dice_on_one_mission_add_up_as_the_2d_reference() {
    let v = pd("12", "12", "2", &[]);
    let d = dist("striker.point_defense", &sets(&v));
    let at_least = |n: i64| d.probability(|o| o.field("destroyed").map(|x| x.to_string().parse::<i64>().unwrap() >= n) == Some(true));
    let oracle = [
        (2, 36),
        (3, 35),
        (4, 33),
        (5, 30),
        (6, 26),
        (7, 21),
        (8, 15),
        (9, 10),
        (10, 6),
        (11, 3),
        (12, 1),
        (13, 0),
    ];
    for (n, k) in oracle {
        assert_eq!(at_least(n), Prob::new(k, 36).unwrap(), "P(2D >= {n})");
    }
    assert_eq!(mean(&d, "destroyed", 12), Prob::new(7, 1).unwrap());
}

/// 35.D / 36.C.1: against MRL rounds the mission's sum is halved, fractions up (not each die).
#[test]
fn mrl_rounds_halve_the_sum_rounding_up() {
    let v = pd("10", "10", "2", &[("mrl", "true")]);
    let s = sets(&v);
    assert_eq!(field(&resolve("striker.point_defense", &s, "", &[3, 5]).unwrap(), "destroyed"), "4");
    assert_eq!(field(&resolve("striker.point_defense", &s, "", &[3, 4]).unwrap(), "destroyed"), "4"); // 7 / 2 up
    assert_eq!(field(&resolve("striker.point_defense", &s, "", &[1, 1]).unwrap(), "destroyed"), "1");
    // Per die it would be 1 + 1 = 2 for [1, 1]: halving the sum gives 1.
    let v = pd("10", "10", "1", &[("mrl", "true")]);
    let d = dist("striker.point_defense", &sets(&v));
    // 1D halved up: 1,2 -> 1; 3,4 -> 2; 5,6 -> 3.
    assert_eq!(p(&d, "destroyed", "1"), "1/3");
    assert_eq!(p(&d, "destroyed", "2"), "1/3");
    assert_eq!(p(&d, "destroyed", "3"), "1/3");
}

/// X3 on its printed dice (3, 5 against the TL10 mission; 1, 3, 4 and the lost fourth die, 5,
/// against the TL15 one). The rule as written with a TL10 system (DM 0 and -5) gives the
/// reference's recomputation, 8 and 0; the example's reading (option pd_x3_tl12: DM +2 and -3, a
/// TL12 system) gives the printed 12 and 3; with only the three printed dice it would be 1.
#[test]
fn x3_the_rule_as_written_and_the_printed_reading() {
    let first = pd("10", "10", "2", &[]);
    let second = pd("10", "15", "4", &[]);
    let run = |v: &[(&'static str, String)], faces: &[i64]| resolve("striker.point_defense", &sets(v), "", faces).unwrap();
    let a = run(&first, &[3, 5]);
    assert_eq!((field(&a, "dm"), field(&a, "destroyed")), ("0".into(), "8".into()));
    let b = run(&second, &[1, 3, 4, 5]);
    assert_eq!((field(&b, "dm"), field(&b, "destroyed")), ("-5".into(), "0".into()));

    let first = pd("10", "10", "2", &[("pd_x3_tl12", "true")]);
    let second = pd("10", "15", "4", &[("pd_x3_tl12", "true")]);
    let a = run(&first, &[3, 5]);
    assert_eq!((field(&a, "dm"), field(&a, "destroyed")), ("2".into(), "12".into()));
    let b = run(&second, &[1, 3, 4, 5]);
    assert_eq!((field(&b, "dm"), field(&b, "destroyed")), ("-3".into(), "3".into()));
    let three = pd("10", "15", "3", &[("pd_x3_tl12", "true")]);
    assert_eq!(field(&run(&three, &[1, 3, 4]), "destroyed"), "1");
    // The switch is the same as stating a TL12 system under the rule as written.
    let tl12 = pd("12", "15", "4", &[]);
    assert_eq!(field(&run(&tl12, &[1, 3, 4, 5]), "destroyed"), "3");
}

// ------------------------------------------------------------------ sheaf (36.C.2)

fn sheaf_after(sheaf: &str, required: &str, surviving: &str, one_step: bool) -> String {
    let mut s = vec![("sheaf", sheaf), ("required", required), ("surviving", surviving)];
    if one_step {
        s.push(("sheaf_one_step", "true"));
    }
    field(&resolve("striker.sheaf", &s, "", &[]).unwrap(), "sheaf")
}

/// X4 (R = 25, converged, 60 rounds): 49 left -> normal, 24 -> dispersed, 12 -> scattered; the
/// thresholds 2R, R and R/2 are strict ("less than"), and 0 survivors leave no effect.
#[test]
fn x4_thresholds_are_strict_and_cumulative() {
    assert_eq!(sheaf_after("converged", "25", "60", false), "converged");
    assert_eq!(sheaf_after("converged", "25", "50", false), "converged");
    assert_eq!(sheaf_after("converged", "25", "49", false), "normal");
    assert_eq!(sheaf_after("converged", "25", "25", false), "normal");
    assert_eq!(sheaf_after("converged", "25", "24", false), "dispersed");
    assert_eq!(sheaf_after("converged", "25", "13", false), "dispersed");
    assert_eq!(sheaf_after("converged", "25", "12", false), "scattered");
    assert_eq!(sheaf_after("converged", "25", "1", false), "scattered");
    assert_eq!(sheaf_after("converged", "25", "0", false), "none");
    // R/2 for an odd R: 12 of 25 is "less than half", 13 is not; for R = 24, 12 is not.
    assert_eq!(sheaf_after("dispersed", "24", "12", false), "dispersed");
    assert_eq!(sheaf_after("dispersed", "24", "11", false), "scattered");
}

/// A sheaf never becomes more concentrated: a normal or dispersed sheaf with many survivors stays.
#[test]
fn a_sheaf_never_improves() {
    assert_eq!(sheaf_after("normal", "25", "60", false), "normal");
    assert_eq!(sheaf_after("dispersed", "25", "60", false), "dispersed");
    assert_eq!(sheaf_after("scattered", "25", "60", false), "scattered");
    assert_eq!(sheaf_after("normal", "25", "24", false), "dispersed");
    assert_eq!(sheaf_after("normal", "25", "12", false), "scattered");
    assert_eq!(sheaf_after("scattered", "25", "0", false), "none");
}

/// The one-step reading (option sheaf_one_step) drops one type at most, so it cannot reproduce X4's
/// 24 -> dispersed or 12 -> scattered from a converged sheaf.
#[test]
fn the_one_step_reading_departs_from_x4() {
    assert_eq!(sheaf_after("converged", "25", "49", true), "normal");
    assert_eq!(sheaf_after("converged", "25", "24", true), "normal");
    assert_eq!(sheaf_after("converged", "25", "12", true), "normal");
    assert_eq!(sheaf_after("normal", "25", "12", true), "dispersed");
    assert_eq!(sheaf_after("converged", "25", "0", true), "none");
}

/// One engagement: dice are capped by the system's rating, and rounds destroyed by the rounds in
/// the mission; the survivors set the sheaf.
#[test]
fn an_engagement_caps_dice_and_rounds_and_degrades_the_sheaf() {
    let yaml = "missions:\n  - {name: A, round_tl: 10, allocated_dice: 3, rounds: 60, sheaf: converged, required: 25}\n";
    let out = resolve(
        "striker.pd_engagement",
        &[("system_tl", "12"), ("rated_dice", "3")],
        yaml,
        &[6, 6, 6],
    )
    .unwrap();
    // 3 x (6 + 2) = 24 destroyed, 36 survive: 36 < 50 -> normal, not < 25.
    assert_eq!(field(&out, "destroyed"), "[24]");
    assert!(field(&out, "results").contains("surviving: 36, sheaf: normal"), "{out}");
    let yaml = "missions:\n  - {name: A, round_tl: 5, allocated_dice: 3, rounds: 10, sheaf: normal, required: 25}\n";
    let out = resolve(
        "striker.pd_engagement",
        &[("system_tl", "12"), ("rated_dice", "3")],
        yaml,
        &[6, 6, 6],
    )
    .unwrap();
    assert_eq!(field(&out, "destroyed"), "[10]");
    assert!(field(&out, "results").contains("surviving: 0, sheaf: none"), "{out}");
    let yaml = "missions:\n  - {name: A, round_tl: 10, allocated_dice: 2}\n  - {name: B, round_tl: 10, allocated_dice: 2}\n";
    let r = refusals(attempt("striker.pd_engagement", &[("system_tl", "10"), ("rated_dice", "3")], yaml));
    assert_eq!(r, vec!["4 dice allocated, but the system rolls 3 [Striker 36.C.1]".to_string()]);
    let r = refusals(attempt(
        "striker.pd_engagement",
        &[("system_tl", "10"), ("rated_dice", "3"), ("mission", "target_fire")],
        "missions: []",
    ));
    assert_eq!(r.len(), 1, "{r:?}");
}

/// 40.D: a TL14 damper rolls twice a point defense weapon's dice, a TL15 three times, and engages
/// nuclear rounds only.
#[test]
fn dampers_roll_more_dice_and_only_at_nuclear_rounds() {
    let yaml = "missions:\n  - {name: N, round_tl: 12, allocated_dice: 6, nuclear: true}\n";
    let dice = [1, 1, 1, 1, 1, 1];
    let out = resolve(
        "striker.pd_engagement",
        &[("system", "nuclear_damper"), ("system_tl", "14"), ("rated_dice", "3")],
        yaml,
        &dice,
    )
    .unwrap();
    assert_eq!(field(&out, "dice_available"), "6");
    assert_eq!(field(&out, "destroyed"), "[18]"); // 6 x (1 + 2)
    let r = refusals(attempt(
        "striker.pd_engagement",
        &[("system", "nuclear_damper"), ("system_tl", "13"), ("rated_dice", "3")],
        yaml,
    ));
    assert!(r.iter().any(|m| m.contains("the system rolls 3")), "{r:?}");
    let conventional = "missions:\n  - {name: HE, round_tl: 12, allocated_dice: 1}\n";
    let r = refusals(attempt(
        "striker.pd_engagement",
        &[("system", "nuclear_damper"), ("system_tl", "15"), ("rated_dice", "1")],
        conventional,
    ));
    assert_eq!(r, vec!["HE: a nuclear damper engages nuclear rounds only [Striker 40]".to_string()]);
}

// ------------------------------------------------------------------ direct fire, missions (36.A-B)

#[test]
fn direct_fire_needs_dedicated_support_15_cm_and_sight() {
    let ok = |r: &str| {
        field(
            &resolve(
                "striker.pd_direct_fire",
                &[("firer_range_cm", r), ("incoming", "3"), ("hits", "5")],
                "",
                &[],
            )
            .unwrap(),
            "destroyed",
        )
    };
    assert_eq!(ok("15"), "3");
    let r = refusals(attempt(
        "striker.pd_direct_fire",
        &[("firer_range_cm", "14"), ("incoming", "1"), ("hits", "1")],
        "",
    ));
    assert_eq!(
        r,
        vec!["the enemy fired from 14 cm: point defense needs 15 cm or more [Striker 36.B]".to_string()]
    );
    let r = refusals(attempt(
        "striker.pd_direct_fire",
        &[("firer_range_cm", "20"), ("incoming", "1"), ("hits", "1"), ("mission", "overwatch")],
        "",
    ));
    assert_eq!(r.len(), 2, "{r:?}"); // not dedicated support, and overwatch has no direct attack
    let r = refusals(attempt(
        "striker.pd_direct_fire",
        &[
            ("firer_range_cm", "20"),
            ("incoming", "1"),
            ("hits", "1"),
            ("attacks_this_phase", "1"),
        ],
        "",
    ));
    assert_eq!(r.len(), 1, "{r:?}");
}

#[test]
fn missions_follow_crew_initiative_and_stop_ground_vehicles() {
    let run = |s: &[(&str, &str)]| resolve("striker.pd_mission_assignment", s, "", &[]).unwrap();
    let o = run(&[("mission", "overwatch"), ("initiative", "high"), ("ground_vehicle", "true")]);
    assert_eq!(field(&o, "assigned"), "true");
    assert_eq!(field(&o, "may_move"), "false");
    assert_eq!(field(&o, "indirect_attacks_per_turn"), "1");
    let o = run(&[("mission", "dedicated_support"), ("initiative", "average")]);
    assert_eq!(field(&o, "assigned"), "false");
    let o = run(&[("mission", "dedicated_support"), ("initiative", "average"), ("ordered", "true")]);
    assert_eq!(field(&o, "direct_attacks_per_phase"), "1");
    assert_eq!(field(&o, "may_move"), "true"); // a grav vehicle
    let o = run(&[("mission", "target_fire"), ("initiative", "low"), ("ground_vehicle", "true")]);
    assert_eq!(field(&o, "assigned"), "false");
    assert_eq!(field(&o, "may_move"), "true");
    assert_eq!(field(&o, "ignores_speed_dm"), "true");
}

// ------------------------------------------------------------------ nuclear rounds (39, T-NUKE, T-COLLAPSE)

fn nuke(distance: &str, extra: &[(&'static str, &'static str)]) -> runtime::Distribution<Value> {
    let mut s = vec![
        ("distance_cm", distance),
        ("crater_cm", "1"),
        ("primary_cm", "4"),
        ("secondary_cm", "10"),
        ("tertiary_cm", "20"),
    ];
    s.extend_from_slice(extra);
    dist("striker.nuclear_effect", &s)
}

/// T-NUKE: nested zones, boundaries included; tertiary hit on 2D 6+ (26/36), 8+ effectively under
/// cover (15/36).
#[test]
fn nuclear_zones_are_nested_rings() {
    let d = nuke("2", &[]);
    assert_eq!(p(&d, "zone", "inner_primary"), "1");
    assert_eq!(p(&d, "destroyed", "true"), "1");
    let d = nuke("1", &[]);
    assert_eq!(p(&d, "in_crater", "true"), "1");
    let d = nuke("1", &[("burst", "air_burst")]);
    assert_eq!(p(&d, "in_crater", "false"), "1");
    let d = nuke("2.5", &[]);
    assert_eq!(p(&d, "zone", "outer_primary"), "1");
    assert_eq!(p(&d, "penetration", "60"), "1");
    assert_eq!(p(&d, "vegetation_burns", "true"), "1");
    let d = nuke("10", &[]);
    assert_eq!(p(&d, "penetration", "20"), "1");
    assert_eq!(p(&d, "blown_down", "true"), "1");
    let d = nuke("20", &[]);
    assert_eq!(p(&d, "hit", "true"), "13/18"); // 26/36
    assert_eq!(p(&d, "penetration", "5"), "13/18");
    assert_eq!(p(&d, "contaminated", "true"), "1");
    let d = nuke("20", &[("personnel_under_cover", "true")]);
    assert_eq!(p(&d, "hit", "true"), "5/12"); // 15/36
    let d = nuke("20.5", &[]);
    assert_eq!(p(&d, "zone", "outside"), "1");
    assert_eq!(p(&d, "contaminated", "false"), "1");
    let r = refusals(attempt(
        "striker.nuclear_effect",
        &[
            ("direct_fire", "true"),
            ("burst", "air_burst"),
            ("distance_cm", "1"),
            ("primary_cm", "1"),
            ("secondary_cm", "2"),
            ("tertiary_cm", "3"),
        ],
        "",
    ));
    assert_eq!(r, vec!["direct fire is always a ground strike [Striker 39.A]".to_string()]);
}

/// T-COLLAPSE: 1-2 full (1/3); on d = 3..6 penetration -8d, burst -ceil(d/2), frag -2d.
#[test]
fn collapsing_rounds_follow_t_collapse() {
    let base = [
        ("gun", "mass_driver"),
        ("target", "vehicle"),
        ("hit", "true"),
        ("penetration", "60"),
        ("burst_cm", "3"),
        ("frag_penetration", "10"),
    ];
    let d = dist("striker.collapsing_round", &base);
    assert_eq!(p(&d, "detonation", "full"), "1/3");
    for (face, pen, burst, frag) in [
        (1, "60", "3", "10"),
        (2, "60", "3", "10"),
        (3, "36", "1", "4"),
        (4, "28", "1", "2"),
        (5, "20", "0", "0"),
        (6, "12", "0", "0"),
    ] {
        let o = resolve("striker.collapsing_round", &base, "", &[face]).unwrap();
        assert_eq!(field(&o, "penetration_now"), pen, "die {face}");
        assert_eq!(field(&o, "burst_now"), burst, "die {face}");
        assert_eq!(field(&o, "frag_now"), frag, "die {face}");
    }
    let miss = [
        ("gun", "high_velocity_cpr"),
        ("target", "structure"),
        ("hit", "false"),
        ("penetration", "60"),
        ("burst_cm", "3"),
        ("frag_penetration", "10"),
    ];
    assert_eq!(
        field(&resolve("striker.collapsing_round", &miss, "", &[]).unwrap(), "detonation"),
        "none"
    );
    let bad = [
        ("gun", "other"),
        ("target", "other"),
        ("hit", "true"),
        ("penetration", "1"),
        ("burst_cm", "1"),
        ("frag_penetration", "1"),
    ];
    assert_eq!(refusals(attempt("striker.collapsing_round", &bad, "")).len(), 2);
}

#[test]
fn contamination_lasts_thirty_minutes_over_the_tertiary_area() {
    let run = |s: &[(&str, &str)]| resolve("striker.nuclear_contamination", s, "", &[]).unwrap();
    let base = [("distance_cm", "15"), ("tertiary_cm", "20"), ("induced_cm", "5")];
    let mut s = base.to_vec();
    s.push(("minutes_since", "30"));
    assert_eq!(field(&run(&s), "contaminated"), "true");
    let mut s = base.to_vec();
    s.push(("minutes_since", "31"));
    assert_eq!(field(&run(&s), "contaminated"), "false");
    let mut s = base.to_vec();
    s.extend([("minutes_since", "0"), ("turns_inside", "11")]);
    assert_eq!(field(&run(&s), "serious_wound"), "true");
    assert_eq!(field(&run(&s), "may_enter"), "false");
    let mut s = base.to_vec();
    s.extend([("minutes_since", "0"), ("turns_inside", "11"), ("protected", "true")]);
    assert_eq!(field(&run(&s), "serious_wound"), "false");
    let mut s = base.to_vec();
    s.extend([("minutes_since", "0"), ("suppressed", "true")]);
    assert_eq!(field(&run(&s), "contaminated"), "false");
}

/// T-DAMPER: range 100 x separation at TL13, 1000 x at 14-15, capped by the fire control; one
/// metre is 0.1 cm on the table.
#[test]
fn damper_ranges_and_attacks_by_tech_level() {
    let run = |s: &[(&str, &str)]| resolve("striker.damper", s, "", &[]).unwrap();
    let o = run(&[("damper_tl", "14"), ("separation_m", "6")]);
    assert_eq!(field(&o, "range_m"), "6000");
    assert_eq!(field(&o, "range_cm"), "600");
    assert_eq!(field(&o, "dice_multiple"), "2");
    let o = run(&[("damper_tl", "15"), ("separation_m", "6"), ("fire_control_cm", "250")]);
    assert_eq!(field(&o, "range_cm"), "250");
    assert_eq!(field(&o, "direct_attacks_per_phase"), "3");
    assert_eq!(field(&o, "both_missions"), "true");
    let o = run(&[("damper_tl", "13"), ("separation_m", "6"), ("link", "verbal_only")]);
    assert_eq!(field(&o, "works"), "false");
    let r = refusals(attempt(
        "striker.damper_direct_fire",
        &[("damper_tl", "14"), ("round", "projectile"), ("firer_range_cm", "60")],
        "",
    ));
    assert_eq!(
        r,
        vec!["only tech level 15 dampers attack projectile rounds [Striker 40.D]".to_string()]
    );
    let o = resolve(
        "striker.damper_direct_fire",
        &[("damper_tl", "15"), ("round", "projectile"), ("firer_range_cm", "49")],
        "",
        &[],
    )
    .unwrap();
    assert_eq!(field(&o, "allowed"), "false");
}

// ------------------------------------------------------------------ launchers (34, 35, 37, 38)

#[test]
fn mrl_reload_and_minimum_range() {
    let run = |s: &[(&str, &str)]| resolve("striker.mrl_reload", s, "", &[]).unwrap();
    let o = run(&[("tubes", "40"), ("crew", "4"), ("full_crew", "4")]);
    assert_eq!((field(&o, "rate_of_fire"), field(&o, "reload_turns")), ("40".into(), "20".into()));
    let o = run(&[("tubes", "40"), ("crew", "3"), ("full_crew", "4"), ("extra_rockets", "true")]);
    assert_eq!(field(&o, "reload_turns"), "20"); // 10, doubled
    let o = run(&[("tubes", "40"), ("crew", "2"), ("full_crew", "4")]);
    assert_eq!((field(&o, "can_reload"), field(&o, "reload_turns")), ("true".into(), "40".into()));
    let o = run(&[("tubes", "40"), ("crew", "1"), ("full_crew", "4")]);
    assert_eq!(field(&o, "can_reload"), "false");
    let o = run(&[("tubes", "40"), ("crew", "4"), ("full_crew", "4"), ("remote", "true")]);
    assert_eq!(field(&o, "can_reload"), "false");
    let fire = |r: &str| attempt("striker.mrl_fire", &[("tl", "8"), ("range_cm", r)], "");
    assert_eq!(field(&fire("30").unwrap(), "sheaf"), "normal");
    assert_eq!(refusals(fire("29")).len(), 1);
    let o = resolve(
        "striker.mrl_fire",
        &[("tl", "8"), ("range_cm", "40"), ("superimposed", "2")],
        "",
        &[],
    )
    .unwrap();
    assert_eq!(field(&o, "sheaf"), "converged");
}

#[test]
fn meson_fire_only_from_tl15_within_the_stated_burst() {
    let r = refusals(attempt(
        "striker.meson_fire",
        &[("tl", "14"), ("burst_cm", "10"), ("distance_cm", "1"), ("target", "building")],
        "",
    ));
    assert_eq!(r.len(), 1);
    let r = refusals(attempt(
        "striker.meson_fire",
        &[
            ("tl", "15"),
            ("burst_cm", "10"),
            ("ordered_burst_cm", "12"),
            ("distance_cm", "1"),
            ("target", "building"),
        ],
        "",
    ));
    assert_eq!(r.len(), 1);
    let o = resolve(
        "striker.meson_fire",
        &[
            ("tl", "15"),
            ("burst_cm", "10"),
            ("ordered_burst_cm", "5"),
            ("distance_cm", "6"),
            ("target", "building"),
        ],
        "",
        &[],
    )
    .unwrap();
    assert_eq!(field(&o, "affected"), "false");
    let spot = |ph: &str, by: &str| {
        field(
            &resolve("striker.meson_spotting", &[("phase", ph), ("by", by)], "", &[]).unwrap(),
            "may_spot",
        )
    };
    assert_eq!(spot("movement", "other"), "true");
    assert_eq!(spot("fire", "other"), "false");
    assert_eq!(spot("movement", "counter_battery_radar"), "false");
}

#[test]
fn tac_launchers_load_and_fire() {
    let run = |s: &[(&str, &str)]| resolve("striker.tac_launcher_state", s, "", &[]).unwrap();
    let o = run(&[
        ("launcher", "launch_rail"),
        ("missile_kg", "50"),
        ("loaders", "1"),
        ("loaded", "1"),
        ("rail_just_loaded", "true"),
    ]);
    assert_eq!(
        (field(&o, "loaders_needed"), field(&o, "can_fire"), field(&o, "load_phases")),
        ("1".into(), "false".into(), "2".into())
    );
    let o = run(&[
        ("launcher", "tube"),
        ("missile_kg", "50.5"),
        ("loaders", "1"),
        ("loaded", "1"),
        ("gunner_loads", "true"),
    ]);
    assert_eq!(
        (field(&o, "loaders_needed"), field(&o, "can_load"), field(&o, "can_fire")),
        ("2".into(), "false".into(), "true".into())
    );
    assert_eq!(field(&o, "load_phases"), "1");
    assert_eq!(field(&o, "gunner_return_phases"), "2");
    let r = refusals(attempt(
        "striker.tac_launcher_state",
        &[
            ("launcher", "launch_rail"),
            ("on_vehicle", "false"),
            ("missile_kg", "10"),
            ("loaders", "1"),
            ("loaded", "1"),
        ],
        "",
    ));
    assert_eq!(r.len(), 1);
}

#[test]
fn drone_missiles_attack_and_are_fired_upon() {
    let dm = |imp: &str| {
        field(
            &resolve("striker.drone_missile_attack", &[("impact", imp), ("hit_dm", "1")], "", &[]).unwrap(),
            "dm",
        )
    };
    assert_eq!(dm("facing"), "1");
    assert_eq!(dm("deck"), "-1");
    assert_eq!(dm("side_not_facing"), "-1");
    assert_eq!(
        refusals(attempt("striker.drone_missile_attack", &[("impact", "belly"), ("hit_dm", "0")], "")).len(),
        1
    );
    let at = |f: &str, ph: &str| {
        let o = resolve("striker.fire_at_drone_missile", &[("firer", f), ("attack_phase", ph)], "", &[]).unwrap();
        (field(&o, "may_fire"), field(&o, "dm"))
    };
    assert_eq!(at("any_weapon", "false"), ("true".into(), "-5".into()));
    assert_eq!(at("pd_target_fire", "false"), ("true".into(), "0".into()));
    assert_eq!(at("pd_target_fire", "true"), ("false".into(), "0".into()));
    assert_eq!(at("pd_dedicated_support", "true"), ("true".into(), "0".into()));
    let o = resolve("striker.drone_spotting", &[("missile", "true")], "", &[]).unwrap();
    assert_eq!((field(&o, "spotting_dm"), field(&o, "spotted_as")), ("-1".into(), "popup".into()));
    let o = resolve("striker.drone_search", &[("radius_cm", "5"), ("circuit", "3")], "", &[]).unwrap();
    assert_eq!(field(&o, "circuit_radius_cm"), "15");
}

// ------------------------------------------------------------------ mounts, logistics (41-45)

#[test]
fn mounts_hull_down_and_hits() {
    let fire = |s: &[(&str, &str)]| field(&resolve("striker.mount_fire", s, "", &[]).unwrap(), "may_fire");
    assert_eq!(
        fire(&[("mount", "chassis"), ("place", "chassis_side"), ("posture", "hull_down")]),
        "false"
    );
    assert_eq!(
        fire(&[("mount", "turret"), ("place", "turret_side"), ("posture", "hull_down")]),
        "true"
    );
    assert_eq!(
        fire(&[("mount", "turret"), ("place", "turret_side"), ("posture", "turret_down")]),
        "false"
    );
    assert_eq!(
        fire(&[("mount", "remote"), ("place", "turret_top"), ("posture", "turret_down")]),
        "true"
    );
    assert_eq!(
        fire(&[("mount", "chassis"), ("place", "chassis_side"), ("off_axis_deg", "45")]),
        "true"
    );
    assert_eq!(
        fire(&[("mount", "chassis"), ("place", "chassis_side"), ("off_axis_deg", "46")]),
        "false"
    );
    assert_eq!(
        fire(&[("mount", "pintel"), ("place", "turret_top"), ("gunner_exposed", "false")]),
        "false"
    );
    let hit = |s: &[(&str, &str)]| field(&resolve("striker.mount_hit", s, "", &[]).unwrap(), "struck");
    assert_eq!(hit(&[("high", "true")]), "turret");
    assert_eq!(hit(&[("high", "false")]), "chassis");
    assert_eq!(hit(&[("high", "true"), ("deck_mount", "cupola")]), "cupola");
    assert_eq!(hit(&[("high", "true"), ("has_open_mount", "true")]), "open_mount_weapon_hit");
}

#[test]
fn t1_belt_fed_rounds_double_with_each_bonus() {
    for (bonus, rounds) in [(2, 20), (3, 40), (4, 80), (5, 160), (6, 320), (7, 640), (8, 1280), (9, 2560)] {
        let b = bonus.to_string();
        let o = resolve("striker.ammunition_use", &[("weapon", "belt_fed"), ("autofire_bonus", &b)], "", &[]).unwrap();
        assert_eq!(field(&o, "rounds"), rounds.to_string(), "bonus +{bonus}");
        assert_eq!(rounds, 20 * 2i64.pow(bonus - 2));
    }
    let use_ = |s: &[(&str, &str)], out: &str| field(&resolve("striker.ammunition_use", s, "", &[]).unwrap(), out);
    assert_eq!(use_(&[("weapon", "small_arm")], "magazines"), "0.5");
    assert_eq!(use_(&[("weapon", "small_arm"), ("automatic", "true")], "magazines"), "1");
    assert_eq!(use_(&[("weapon", "mass_driver"), ("rof", "7")], "rounds"), "3");
    assert_eq!(
        use_(&[("weapon", "mass_driver"), ("rof", "7"), ("indirect", "true")], "rounds"),
        "7"
    );
    assert_eq!(use_(&[("weapon", "cpr_gun"), ("rof", "12")], "rounds"), "4");
    assert_eq!(use_(&[("weapon", "cpr_gun"), ("rof", "12"), ("automatic", "true")], "rounds"), "6");
}

/// 40.B: "the maximum effective range is 100 times the separation between the two projectors ... At
/// tech levels 14 and 15, the range is 1000 times the separation", with no limit to whole metres:
/// projectors 2.5 m apart reach 250 m (25 cm) at TL13 and 2500 m at TL14; X5's 6 m still gives 600 m.
#[test]
fn damper_range_follows_a_decimal_separation() {
    let run = |tl: &str, sep: &str| resolve("striker.damper", &[("damper_tl", tl), ("separation_m", sep)], "", &[]).unwrap();
    let o = run("13", "2.5");
    assert_eq!((field(&o, "range_m"), field(&o, "range_cm")), ("250".into(), "25".into()));
    let o = run("14", "2.5");
    assert_eq!((field(&o, "range_m"), field(&o, "range_cm")), ("2500".into(), "250".into()));
    // A fraction of a cm on the table stays: 0.35 m x 100 = 35 m = 3.5 cm.
    let o = run("13", "0.35");
    assert_eq!((field(&o, "range_m"), field(&o, "range_cm")), ("35".into(), "3.5".into()));
    let o = run("13", "6");
    assert_eq!((field(&o, "range_m"), field(&o, "range_cm")), ("600".into(), "60".into()));
    // The fire control still caps the exact range.
    let o = resolve(
        "striker.damper",
        &[("damper_tl", "15"), ("separation_m", "0.25"), ("fire_control_cm", "20")],
        "",
        &[],
    )
    .unwrap();
    assert_eq!((field(&o, "range_m"), field(&o, "range_cm")), ("250".into(), "20".into()));
}

/// 42 with 74.B: "A K'kree is capable of carrying 4 times the amount of weight a human can", and runs
/// at three times the human rate (walking at the same): 40 kg normal and 120 kg encumbered (400 and
/// 800 kg in battle dress), encumbered walking 2.5 cm and running 3 x 6 = 18 cm. A human keeps 10 and 30.
#[test]
fn kkree_carry_four_times_a_human_load() {
    let run = |kg: &str, race: &str, bd: &str| {
        resolve(
            "striker.soldier_load",
            &[("carried_kg", kg), ("race", race), ("battle_dress", bd)],
            "",
            &[],
        )
        .unwrap()
    };
    let o = run("40", "kkree", "false");
    assert_eq!(field(&o, "load"), "normal_load");
    assert_eq!((field(&o, "free_kg"), field(&o, "max_kg")), ("40".into(), "120".into()));
    let o = run("40.5", "kkree", "false");
    assert_eq!(field(&o, "load"), "encumbered");
    assert_eq!((field(&o, "walk_cm"), field(&o, "run_cm")), ("2.5".into(), "18".into()));
    assert_eq!(field(&run("120", "kkree", "false"), "load"), "encumbered");
    assert_eq!(field(&run("121", "kkree", "false"), "load"), "too_heavy");
    assert_eq!(field(&run("400", "kkree", "true"), "load"), "normal_load");
    assert_eq!(field(&run("800", "kkree", "true"), "load"), "encumbered");
    assert_eq!(field(&run("801", "kkree", "true"), "load"), "too_heavy");
    // The same weights for a human, and for a race Book 2 gives no capacity of its own.
    let o = run("40", "human", "false");
    assert_eq!(field(&o, "load"), "too_heavy");
    assert_eq!((field(&o, "free_kg"), field(&o, "max_kg")), ("10".into(), "30".into()));
    let o = run("11", "vargr", "false");
    assert_eq!((field(&o, "load"), field(&o, "run_cm")), ("encumbered".into(), "6".into()));
}

#[test]
fn encumbrance_transport_and_animals() {
    let load = |kg: &str, bd: &str| {
        field(
            &resolve("striker.soldier_load", &[("carried_kg", kg), ("battle_dress", bd)], "", &[]).unwrap(),
            "load",
        )
    };
    assert_eq!(load("10", "false"), "normal_load");
    assert_eq!(load("10.5", "false"), "encumbered");
    assert_eq!(load("30", "false"), "encumbered");
    assert_eq!(load("31", "false"), "too_heavy");
    assert_eq!(load("100", "true"), "normal_load");
    assert_eq!(load("200", "true"), "encumbered");
    let o = resolve("striker.transport", &[("cargo_m3", "4.5")], "", &[]).unwrap();
    assert_eq!(field(&o, "max_cargo_t"), "4.5");
    assert_eq!(
        refusals(attempt(
            "striker.transport",
            &[("cargo_m3", "4"), ("grav", "true"), ("tows", "true")],
            ""
        ))
        .len(),
        1
    );
    let a = resolve(
        "striker.animal",
        &[("weight_kg", "400"), ("gait", "run"), ("harnessed", "2")],
        "",
        &[],
    )
    .unwrap();
    assert_eq!(
        (field(&a, "carry_kg"), field(&a, "tow_kg"), field(&a, "upkeep_cr")),
        ("120".into(), "400".into(), "4000".into())
    );
    let a = resolve("striker.animal", &[("weight_kg", "400"), ("turns_run", "20")], "", &[]).unwrap();
    assert_eq!(field(&a, "may_run"), "false");
}
