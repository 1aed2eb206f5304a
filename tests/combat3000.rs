//! Combat 3000: exact odds against the probabilities the reference derives from the book (A.4, A.5),
//! the reading switches of the damaged to-hit values (A.7.4), and the skirmish procedure's rules
//! (fire sub-phases, close combat, reloading). Each test cites the rule it checks; the readings are
//! in docs/ambiguities.md (part C3K).

mod common;

use common::{attempt, dist, field, odds, p, refusals, resolve};
use rulebook::runtime::{self, Prob};

// ------------------------------------------------------------------ to hit (p.12-13)

/// A.5 test vector: average human, weapon accuracy 0, short range, stationary target of size 0,
/// normal light, breakdown 2: p = 50, breakdown 2/100, hit 48/100, miss 50/100.
#[test]
fn the_base_shot_hits_48_in_100_and_breaks_down_2_in_100() {
    let d = dist("combat3000.shot", &[("range_cm", "20"), ("weapon_class", "s"), ("breakdown", "2")]);
    assert_eq!(p(&d, "chance", "50"), "1");
    assert_eq!(p(&d, "result", "hit"), "12/25");
    assert_eq!(p(&d, "result", "miss"), "1/2");
    assert_eq!(p(&d, "result", "breakdown"), "1/50");
}

/// A breakdown factor of 0 is "totally reliable": the d100 never reads 0 ("00" is 100).
#[test]
fn a_breakdown_factor_of_0_never_breaks_down() {
    let d = dist("combat3000.shot", &[("range_cm", "20"), ("weapon_class", "s"), ("breakdown", "0")]);
    assert_eq!(p(&d, "result", "breakdown"), "0");
    assert_eq!(p(&d, "result", "hit"), "1/2");
    // "00" reads 100: a chance of 99 misses only on it.
    let d = dist(
        "combat3000.shot",
        &[
            ("range_cm", "10"),
            ("weapon_class", "s"),
            ("breakdown", "0"),
            ("firer_accuracy", "29"),
        ],
    );
    assert_eq!(p(&d, "chance", "99"), "1");
    assert_eq!(p(&d, "result", "miss"), "1/100");
}

/// Range bands (T-A3): a shared end belongs to the nearer band, and at long range -10% for each
/// full metre (100 cm) of the range, counted from 0; the switch counts from 75 cm.
#[test]
fn range_bands_and_the_long_range_metres() {
    let chance = |range: &str, extra: &[(&str, &str)]| {
        let mut sets = vec![("range_cm", range), ("weapon_class", "s"), ("breakdown", "0")];
        sets.extend_from_slice(extra);
        field(&resolve("combat3000.shot", &sets, "", &[9, 9]).unwrap(), "chance")
    };
    assert_eq!(chance("15", &[]), "70"); // point blank +20
    assert_eq!(chance("16", &[]), "50"); // short 0
    assert_eq!(chance("30", &[]), "50");
    assert_eq!(chance("31", &[]), "35"); // medium -15
    assert_eq!(chance("75", &[]), "35");
    assert_eq!(chance("76", &[]), "25"); // long -25
    assert_eq!(chance("99", &[]), "25");
    assert_eq!(chance("100", &[]), "15"); // and -10 for the first full metre
    assert_eq!(chance("250", &[]), "5");
    // Counted beyond 75 cm: 174 cm is 99 cm past it, no full metre yet; 175 is one.
    assert_eq!(chance("174", &[("long_range_beyond_75", "true")]), "25");
    assert_eq!(chance("175", &[("long_range_beyond_75", "true")]), "15");
}

/// A.5 test vector: pistol at point blank, same target as last turn, bright light:
/// 50 + 20 + 8 + 5 + 5 = 88%. The damaged "+8" may be a 5: the switch gives 85%.
#[test]
fn the_pistol_point_blank_value_is_switchable() {
    let sets = [
        ("range_cm", "10"),
        ("weapon_class", "p"),
        ("same_target", "true"),
        ("light", "bright"),
        ("breakdown", "0"),
    ];
    assert_eq!(field(&resolve("combat3000.shot", &sets, "", &[9, 9]).unwrap(), "chance"), "88");
    let mut alt = sets.to_vec();
    alt.push(("pistol_point_blank_5", "true"));
    let d = dist("combat3000.shot", &alt);
    assert_eq!(p(&d, "chance", "85"), "1");
    assert_eq!(p(&d, "result", "hit"), "17/20");
}

/// The other damaged to-hit values (A.7.4) and their switches: pistol long -18 or -15, speaking -6
/// or -5, night -30 or -35; and the target size, 1% or 10% a step.
#[test]
fn the_damaged_to_hit_values_are_switchable() {
    let chance = |sets: &[(&str, &str)]| {
        let mut all = vec![("weapon_class", "p"), ("breakdown", "0")];
        all.extend_from_slice(sets);
        field(&resolve("combat3000.shot", &all, "", &[9, 9]).unwrap(), "chance")
    };
    // Long range, a pistol: 50 - 25 - 18.
    assert_eq!(chance(&[("range_cm", "80")]), "7");
    assert_eq!(chance(&[("range_cm", "80"), ("pistol_long_15", "true")]), "10");
    // An 'S' weapon fired one-handed takes the pistol lines too, and -15.
    let s_one = [
        ("range_cm", "80"),
        ("weapon_class", "s"),
        ("one_handed", "true"),
        ("breakdown", "0"),
    ];
    assert_eq!(field(&resolve("combat3000.shot", &s_one, "", &[9, 9]).unwrap(), "chance"), "-8");
    assert_eq!(chance(&[("range_cm", "20"), ("speaking", "true")]), "44");
    assert_eq!(chance(&[("range_cm", "20"), ("speaking", "true"), ("speaking_5", "true")]), "45");
    assert_eq!(chance(&[("range_cm", "20"), ("light", "night")]), "20");
    assert_eq!(chance(&[("range_cm", "20"), ("light", "night"), ("night_35", "true")]), "15");
    assert_eq!(chance(&[("range_cm", "20"), ("target_size", "-2")]), "48");
    assert_eq!(chance(&[("range_cm", "20"), ("target_size", "-2"), ("size_in_tens", "true")]), "30");
}

/// Aimed fire (p.11, p.13): +15%, and +5% for each of the 2nd and 3rd turns spent aiming (A.7.20),
/// no more after 3; the sight's accuracy counts only for aimed fire, its night bonus instead at night.
#[test]
fn aimed_fire_adds_up_to_25_and_the_sight() {
    let chance = |sets: &[(&str, &str)]| {
        let mut all = vec![
            ("range_cm", "20"),
            ("weapon_class", "s"),
            ("breakdown", "0"),
            ("sight_accuracy", "10"),
            ("sight_night", "20"),
        ];
        all.extend_from_slice(sets);
        field(&resolve("combat3000.shot", &all, "", &[9, 9]).unwrap(), "chance")
    };
    assert_eq!(chance(&[]), "50");
    assert_eq!(chance(&[("aimed", "true")]), "75");
    assert_eq!(chance(&[("aimed", "true"), ("aim_turns", "2")]), "80");
    assert_eq!(chance(&[("aimed", "true"), ("aim_turns", "3")]), "85");
    assert_eq!(chance(&[("aimed", "true"), ("aim_turns", "5")]), "85");
    // At night: -30, and the night bonus (20) in place of the accuracy (10).
    assert_eq!(chance(&[("aimed", "true"), ("light", "night")]), "55");
}

// ------------------------------------------------------------------ fire sub-phase (p.12)

/// A.4: with reflex 0 and no modifiers the sub-phase is uniform over 1..6; an 'H' weapon (+2) fires
/// in 3..6 on 1..4 and cannot fire on 5 or 6 (2/6). A score of 0 or less counts as 1.
#[test]
fn fire_subphase_odds() {
    let d = dist("combat3000.fire_subphase", &[("weapon_class", "s")]);
    for s in 1..=6 {
        assert_eq!(p(&d, "subphase", &s.to_string()), "1/6");
    }
    assert_eq!(p(&d, "can_fire", "true"), "1");
    let d = dist("combat3000.fire_subphase", &[("weapon_class", "h")]);
    assert_eq!(p(&d, "can_fire", "false"), "1/3");
    assert_eq!(p(&d, "subphase", "1"), "0");
    assert_eq!(p(&d, "subphase", "3"), "1/6");
    // Reflex +2, aimed, same target: 1d6 - 6, always 0 or less: sub-phase 1.
    let d = dist(
        "combat3000.fire_subphase",
        &[("weapon_class", "s"), ("reflex", "2"), ("aimed", "true"), ("same_target", "true")],
    );
    assert_eq!(p(&d, "subphase", "1"), "1");
}

// ------------------------------------------------------------------ kills and armour (p.13-14)

/// A.4: P(2d10 + m >= 12) for m = -3..+5: 21, 28, 36, 45, 55, 64, 72, 79, 85 in 100.
#[test]
fn kill_roll_odds_match_the_reference() {
    let want = ["21/100", "7/25", "9/25", "9/20", "11/20", "16/25", "18/25", "79/100", "17/20"];
    for (m, want) in (-3..=5).zip(want) {
        let d = dist("combat3000.kill", &[("effect", &m.to_string())]);
        assert_eq!(p(&d, "killed", "true"), want, "effect {m}");
    }
    // The target's strength and partial armour subtract; a confined explosion adds 3.
    let a = dist("combat3000.kill", &[("effect", "2"), ("strength", "1"), ("armour", "1")]);
    let b = dist("combat3000.kill", &[("effect", "0")]);
    assert_eq!(p(&a, "killed", "true"), p(&b, "killed", "true"));
    let c = dist("combat3000.kill", &[("effect", "0"), ("confined_explosion", "true")]);
    assert_eq!(p(&c, "killed", "true"), "18/25");
}

/// A.4: P(1d6 + E > A) = (6 - (A - E)) / 6, e.g. E = 3, A = 6: 3/6; excess = score - armour. A
/// weapon of negative effect cannot pierce (A.7.12) unless the switch says it may.
#[test]
fn penetration_odds_and_the_negative_effect_reading() {
    let d = dist("combat3000.penetration", &[("effect", "3"), ("armour", "6")]);
    assert_eq!(p(&d, "pierced", "true"), "1/2");
    assert_eq!(p(&d, "excess", "3"), "1/6");
    let d = dist("combat3000.penetration", &[("effect", "-1"), ("armour", "2")]);
    assert_eq!(p(&d, "pierced", "true"), "0");
    let d = dist(
        "combat3000.penetration",
        &[("effect", "-1"), ("armour", "2"), ("pierce_any_effect", "true")],
    );
    assert_eq!(p(&d, "pierced", "true"), "1/2");
}

/// T-A8: one d10 per point of excess; per roll none 2/10, immobilised, weapon, crewman and power
/// 1/10 each, knocked out 4/10. Two rolls: knocked out 1 - (6/10)^2 = 16/25.
#[test]
fn vehicle_damage_odds() {
    let d = dist("combat3000.vehicle_hits", &[("excess", "1")]);
    assert_eq!(p(&d, "knocked_out", "true"), "2/5");
    assert_eq!(p(&d, "immobilised", "true"), "1/10");
    assert_eq!(p(&d, "weapons_destroyed", "1"), "1/10");
    assert_eq!(p(&d, "crew_killed", "1"), "1/10");
    assert_eq!(p(&d, "power_lost", "true"), "1/10");
    let d = dist("combat3000.vehicle_hits", &[("excess", "2")]);
    assert_eq!(p(&d, "knocked_out", "true"), "16/25");
    assert_eq!(p(&d, "crew_killed", "2"), "1/100");
    let d = dist("combat3000.vehicle_hits", &[("excess", "0")]);
    assert_eq!(p(&d, "knocked_out", "false"), "1");
}

/// The whole fire and its steps agree: its hit chance is the shot's for the same chance and
/// breakdown, and its kill chance is P(hit) x P(kill).
#[test]
fn the_whole_fire_agrees_with_its_steps() {
    let shot = dist(
        "combat3000.shot",
        &[
            ("range_cm", "40"),
            ("weapon_class", "s"),
            ("breakdown", "3"),
            ("firer_accuracy", "10"),
        ],
    );
    assert_eq!(p(&shot, "chance", "45"), "1");
    let fire = dist(
        "combat3000.fire",
        &[("chance", "45"), ("breakdown", "3"), ("effect", "1"), ("strength", "1")],
    );
    for r in ["hit", "miss", "breakdown"] {
        assert_eq!(p(&fire, "result", r), p(&shot, "result", r), "{r}");
    }
    // P(hit) = 42/100; P(kill | hit) = P(2d10 >= 12) = 45/100.
    assert_eq!(
        p(&fire, "killed", "true"),
        (Prob::new(42, 100).unwrap().mul(&Prob::new(45, 100).unwrap())).to_string()
    );
    // Against complete armour: penetration first, then the kill roll without the armour.
    let fire = dist(
        "combat3000.fire",
        &[
            ("chance", "100"),
            ("breakdown", "0"),
            ("effect", "3"),
            ("target", "armoured_figure"),
            ("armour", "6"),
        ],
    );
    let kill = dist("combat3000.kill", &[("effect", "3")]);
    let want = Prob::new(1, 2)
        .unwrap()
        .mul(&kill.probability(|o| o.field("killed").map(|v| v.to_string()) == Some("true".into())));
    assert_eq!(p(&fire, "killed", "true"), want.to_string());
    // A vehicle: each point of excess is a damage roll.
    let fire = dist(
        "combat3000.fire",
        &[
            ("chance", "100"),
            ("breakdown", "0"),
            ("effect", "3"),
            ("target", "vehicle"),
            ("armour", "8"),
        ],
    );
    // Excess 1 on a 6 only: knocked out 1/6 x 4/10.
    assert_eq!(p(&fire, "knocked_out", "true"), "1/15");
}

// ------------------------------------------------------------------ weapons between shots

/// C3K-05: d10 + dexterity over 8 repairs, under 3 scraps; with dexterity 0, 2/10, 2/10, 6/10.
#[test]
fn repair_odds() {
    let d = dist("combat3000.repair", &[]);
    assert_eq!(p(&d, "result", "repaired"), "1/5");
    assert_eq!(p(&d, "result", "beyond_repair"), "1/5");
    assert_eq!(p(&d, "result", "still_jammed"), "3/5");
    let d = dist("combat3000.repair", &[("dexterity", "3")]);
    assert_eq!(p(&d, "result", "repaired"), "1/2");
    assert_eq!(p(&d, "result", "beyond_repair"), "0");
}

/// C3K-03: t = max(1, R - dex - crew cut); M with an extra crewman -2, H with one -2, with two -3.
#[test]
fn reload_times() {
    let turns = |sets: &[(&str, &str)]| field(&resolve("combat3000.reload", sets, "", &[]).unwrap(), "turns");
    assert_eq!(turns(&[("reload_time", "5"), ("weapon_class", "s")]), "5");
    assert_eq!(turns(&[("reload_time", "5"), ("weapon_class", "s"), ("dexterity", "-2")]), "7");
    assert_eq!(turns(&[("reload_time", "5"), ("weapon_class", "m"), ("extra_crew", "1")]), "3");
    assert_eq!(turns(&[("reload_time", "5"), ("weapon_class", "m"), ("extra_crew", "2")]), "3");
    assert_eq!(turns(&[("reload_time", "5"), ("weapon_class", "h"), ("extra_crew", "2")]), "2");
    assert_eq!(
        turns(&[("reload_time", "3"), ("weapon_class", "h"), ("extra_crew", "2"), ("dexterity", "2")]),
        "1"
    );
    // 'Bar' weapons load each barrel separately.
    assert_eq!(turns(&[("reload_time", "2"), ("weapon_class", "s"), ("barrels", "2")]), "4");
}

/// T-A9: deviation direction 1-2 under, 3 left, 4 right, 5-6 over; a launcher's distance on d10, a
/// grenade's on d6; on a wall, over and under halve it.
#[test]
fn deviation() {
    let d = dist("combat3000.deviate", &[]);
    assert_eq!(p(&d, "direction", "under"), "1/3");
    assert_eq!(p(&d, "direction", "left"), "1/6");
    assert_eq!(p(&d, "direction", "over"), "1/3");
    assert_eq!(p(&d, "distance_cm", "10"), "1/10");
    let r = resolve("combat3000.deviate", &[("vertical", "true")], "", &[6, 7]).unwrap();
    assert_eq!((field(&r, "direction"), field(&r, "distance_cm")), ("over".into(), "3.5".into()));
    let r = resolve("combat3000.deviate", &[("vertical", "true")], "", &[3, 7]).unwrap();
    assert_eq!(field(&r, "distance_cm"), "7");
}

/// C3K-36: an 'Inf' weapon with field f rests f turns after firing.
#[test]
fn inf_weapons_rest() {
    let can = |f: &str, since: &str| {
        field(
            &resolve("combat3000.inf_rest", &[("rest_turns", f), ("turns_since_fired", since)], "", &[]).unwrap(),
            "can_fire",
        )
    };
    assert_eq!(can("0", "1"), "true");
    assert_eq!(can("1", "1"), "false");
    assert_eq!(can("1", "2"), "true");
}

/// Communications: a link outside the net on a d10 of 8, 9 or 10 (3/10); another species' speech
/// rate is an open-ended d10: 10 and a 3 is 13 words.
#[test]
fn comms_and_speech_rate() {
    assert_eq!(p(&dist("combat3000.comms_link", &[]), "linked", "true"), "3/10");
    assert_eq!(field(&resolve("combat3000.speech_rate", &[], "", &[10, 3]).unwrap(), "words"), "13");
    let d = dist("combat3000.speech_rate", &[]);
    assert_eq!(p(&d, "words", "9"), "1/10");
    assert_eq!(p(&d, "words", "11"), "1/100");
    assert_eq!(p(&d, "words", "10"), "0");
    // An exploding d10 (`1d10 explode 9`): ten tens at most, the last not thrown again.
    assert_eq!(p(&d, "words", "100"), "1/10000000000");
    assert_eq!(p(&d, "words", "101"), "0");
    assert_eq!(d.outcomes.len(), 9 * 9 + 10);
    assert_eq!(d.total(), runtime::Prob::one());
    // Ten scripted tens read 100 and use every face (`resolve` refuses unused ones): no eleventh throw.
    assert_eq!(
        field(&resolve("combat3000.speech_rate", &[], "", &[10; 10]).unwrap(), "words"),
        "100"
    );
    let why = refusals(attempt("combat3000.speech", &[("distance_cm", "5"), ("running", "true")], ""));
    assert!(why.iter().any(|m| m.contains("running")), "{why:?}");
}

// ------------------------------------------------------------------ close combat (p.8-9)

/// C3K-15: 1d6 - dex - ref - handling (+1 several opponents, +1 two-handed in one hand, two weapons
/// +2 or, switched, -2); under 1 counts as 1, over 6 strikes no blow.
#[test]
fn strike_subphase() {
    let d = dist("combat3000.strike_subphase", &[("handling", "-2")]);
    assert_eq!(p(&d, "strikes", "false"), "1/3");
    let d = dist("combat3000.strike_subphase", &[("dexterity", "2"), ("reflex", "2")]);
    assert_eq!(p(&d, "subphase", "1"), "5/6");
    let d = dist("combat3000.strike_subphase", &[("two_weapons", "true")]);
    assert_eq!(p(&d, "strikes", "false"), "1/3");
    let d = dist(
        "combat3000.strike_subphase",
        &[("two_weapons", "true"), ("two_weapons_strike_earlier", "true")],
    );
    assert_eq!(p(&d, "subphase", "1"), "1/2");
}

/// C3K-16: 2d10 - the opponent's reflex, dexterity, strength and armour + own strength + the
/// weapon's effect >= 12. Fist (T-A6) 0/-3 against an average human: P(2d10 >= 15) = 21/100.
#[test]
fn close_combat_kill() {
    let d = dist("combat3000.cc_kill", &[("weapon_effect", "-3")]);
    assert_eq!(p(&d, "killed", "true"), "21/100");
    let d = dist(
        "combat3000.cc_kill",
        &[("weapon_effect", "2"), ("strength", "1"), ("opponent_armour", "3")],
    );
    assert_eq!(p(&d, "killed", "true"), "9/20");
}

const FIST: &str = "{name: X, strength: 0, dexterity: 0, reflex: 0, armour: 0, handling: 0, weapon_effect: -3, two_handed_in_one: false}";

/// C3K-14: a surprise attack is one free blow, and the target does not strike back.
#[test]
fn a_surprise_attack_is_one_free_blow() {
    let yaml = format!("first: {FIST}\nsecond: {FIST}\nsurprise: true");
    let d = odds("combat3000.melee", &[], &yaml).unwrap();
    assert_eq!(p(&d, "second_killed", "true"), "21/100");
    assert_eq!(p(&d, "first_killed", "true"), "0");
    // Scripted: 10 + 5 - 3 = 12, a kill.
    let r = resolve("combat3000.melee", &[], &yaml, &[10, 5]).unwrap();
    assert_eq!(field(&r, "second_killed"), "true");
}

/// C3K-15/16 with A.7.14: blows in the same strike sub-phase land together; a figure killed in an
/// earlier sub-phase strikes no blow.
#[test]
fn strike_subphases_in_order() {
    let yaml = format!("first: {FIST}\nsecond: {FIST}");
    // Sub-phases 2 and 5: the first strikes first (10 + 10 - 3 = 17 kills), the second never does.
    let r = resolve("combat3000.melee", &[], &yaml, &[2, 5, 10, 10]).unwrap();
    assert_eq!(
        (field(&r, "first_killed"), field(&r, "second_killed")),
        ("false".into(), "true".into())
    );
    // Both in sub-phase 3: both blows land, both fall.
    let r = resolve("combat3000.melee", &[], &yaml, &[3, 3, 10, 10, 9, 9]).unwrap();
    assert_eq!(
        (field(&r, "first_killed"), field(&r, "second_killed")),
        ("true".into(), "true".into())
    );
    // The odds sum to 1 and are symmetric between two equal fighters.
    let d = odds("combat3000.melee", &[], &yaml).unwrap();
    assert_eq!(d.total(), Prob::one());
    assert_eq!(p(&d, "first_killed", "true"), p(&d, "second_killed", "true"));
}

// ------------------------------------------------------------------ movement and vision

#[test]
fn movement_rates() {
    let rate = |sets: &[(&str, &str)], faces: &[i64]| field(&resolve("combat3000.move_rate", sets, "", faces).unwrap(), "max_cm");
    assert_eq!(rate(&[], &[]), "5");
    assert_eq!(rate(&[("mode", "run")], &[]), "15");
    assert_eq!(rate(&[("mode", "run"), ("stairs", "true"), ("difficult", "true")], &[]), "3.75");
    assert_eq!(rate(&[("mode", "crawl"), ("prone", "true")], &[]), "2.5");
    assert_eq!(rate(&[("mode", "very_steep")], &[2]), "1");
    assert_eq!(rate(&[("mode", "vertical")], &[9]), "0");
    let why = refusals(attempt("combat3000.move_rate", &[("mode", "crawl")], ""));
    assert!(why.iter().any(|m| m.contains("prone")), "{why:?}");
}

#[test]
fn vehicle_speed_limits() {
    let v = |sets: &[(&str, &str)]| {
        let r = resolve("combat3000.vehicle_speed", sets, "", &[]).unwrap();
        (field(&r, "min_speed"), field(&r, "top_speed"))
    };
    let base = [("last_speed", "20"), ("acceleration", "10"), ("max_speed", "40")];
    assert_eq!(v(&base), ("0".into(), "30".into()));
    let mut slip = base.to_vec();
    slip.push(("slippery", "true"));
    assert_eq!(v(&slip), ("10".into(), "30".into()));
    let mut obst = base.to_vec();
    obst.extend([("avoiding_obstacles", "true"), ("driver_dexterity", "2"), ("driver_reflex", "1")]);
    assert_eq!(v(&obst).1, "15");
    obst.push(("obstacle_speed_grouped", "true"));
    assert_eq!(v(&obst).1, "16");
}

/// p.4 Vehicles: "TROOP CARRYING CAPACITY ... M class weapons = ~ a trooper H class weapons = 1
/// trooper" (the "~" read as "½", C3K-W7): a vehicle of capacity 6 with an 'M' and an 'H' weapon has
/// the room of 4.5 troopers left, so it carries 4; two 'M' weapons take one trooper's room; pistols,
/// shoulder arms and launchers take none.
#[test]
fn vehicle_troop_capacity_counts_m_weapons_as_half_and_h_as_one_trooper() {
    let cap = |capacity: &str, weapons: &str, troopers: &str| {
        resolve(
            "combat3000.vehicle_capacity",
            &[("capacity", capacity), ("weapons", weapons), ("troopers", troopers)],
            "",
            &[],
        )
        .unwrap()
    };
    let o = cap("6", "m,h", "4");
    assert_eq!(field(&o, "weapon_space"), "1.5");
    assert_eq!(field(&o, "free_capacity"), "4.5");
    assert_eq!(field(&o, "troopers_max"), "4");
    assert_eq!(field(&o, "fits"), "true");
    assert_eq!(field(&cap("6", "m,h", "5"), "fits"), "false");
    let o = cap("6", "m,m", "5");
    assert_eq!((field(&o, "free_capacity"), field(&o, "fits")), ("5".into(), "true".into()));
    assert_eq!(field(&cap("6", "h,h", "0"), "troopers_max"), "4");
    assert_eq!(field(&cap("6", "p,s,l,lp", "6"), "free_capacity"), "6");
    assert_eq!(field(&cap("1", "m,m", "0"), "troopers_max"), "0");
    let why = refusals(attempt("combat3000.vehicle_capacity", &[("capacity", "1"), ("weapons", "h,m")], ""));
    assert_eq!(
        why,
        vec!["the weapons take the room of 1.5 troopers, more than the vehicle's capacity of 1 [Combat 3000 p.4 Vehicles]".to_string()]
    );
}

/// p.14 Special Weapons Effect: "Gas and smoke weapons spread by one extra template length per turn
/// after the turn in which it was fired ... they will last for 10 turns unless otherwise specified"
/// (C3K-F9): with a 3 cm template the cloud is 3 cm long on the turn it is fired, 6 cm the next turn,
/// 30 cm (10 lengths) on its tenth turn, and gone after that.
#[test]
fn gas_and_smoke_clouds_grow_a_template_length_a_turn_for_10_turns() {
    let cloud = |after: &str, extra: &[(&'static str, &'static str)]| {
        let mut sets = vec![("template_cm", "3"), ("turns_after", after)];
        sets.extend_from_slice(extra);
        resolve("combat3000.cloud", &sets, "", &[]).unwrap()
    };
    let o = cloud("0", &[]);
    assert_eq!(
        (
            field(&o, "present"),
            field(&o, "template_lengths"),
            field(&o, "length_cm"),
            field(&o, "turns_left")
        ),
        ("true".into(), "1".into(), "3".into(), "9".into())
    );
    assert_eq!(field(&o, "width_cm"), "3");
    let o = cloud("1", &[]);
    assert_eq!((field(&o, "template_lengths"), field(&o, "length_cm")), ("2".into(), "6".into()));
    let o = cloud("9", &[]);
    assert_eq!(
        (
            field(&o, "present"),
            field(&o, "template_lengths"),
            field(&o, "length_cm"),
            field(&o, "turns_left")
        ),
        ("true".into(), "10".into(), "30".into(), "0".into())
    );
    let o = cloud("10", &[]);
    assert_eq!((field(&o, "present"), field(&o, "length_cm")), ("false".into(), "0".into()));
    // "unless otherwise specified": a weapon whose clouds last 4 turns.
    assert_eq!(field(&cloud("3", &[("lasts_turns", "4")]), "present"), "true");
    assert_eq!(field(&cloud("4", &[("lasts_turns", "4")]), "present"), "false");
    // A template of 2.5 cm: 4 turns after firing, 5 lengths of 2.5 cm.
    let o = resolve("combat3000.cloud", &[("template_cm", "2.5"), ("turns_after", "4")], "", &[]).unwrap();
    assert_eq!(field(&o, "length_cm"), "12.5");
}

// ------------------------------------------------------------------ the skirmish

fn skirmish() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/combat3000-skirmish.yaml")).unwrap()
}

/// The skirmish ends when a side has no figure left; the survivors and the result agree, and the
/// turn limit gives a draw.
#[test]
fn a_skirmish_ends_with_a_side_wiped_out_or_a_draw() {
    let yaml = skirmish();
    for seed in 0..20 {
        let (r, inputs) = common::bind("combat3000.turn", &[], &yaml);
        let out = r
            .run_quiet(&mut runtime::Seeded::new(seed), &mut runtime::NoTrace, &inputs)
            .unwrap();
        let (a, b) = (field(&out, "survivors_a"), field(&out, "survivors_b"));
        let want = match (a.as_str(), b.as_str()) {
            ("0", "0") => "draw",
            ("0", _) => "side_b_wins",
            (_, "0") => "side_a_wins",
            _ => "draw",
        };
        assert_eq!(field(&out, "result"), want, "seed {seed}");
        let turns: i64 = field(&out, "turns").parse().unwrap();
        assert!((1..=20).contains(&turns), "seed {seed}: {turns} turns");
    }
    let one = yaml.replace("max_turns: 20", "max_turns: 1");
    let (r, inputs) = common::bind("combat3000.turn", &[], &one);
    let out = r.run_quiet(&mut runtime::Seeded::new(1), &mut runtime::NoTrace, &inputs).unwrap();
    assert_eq!(field(&out, "turns"), "1");
}

/// A skirmish needs both sides and distinct names.
#[test]
fn a_skirmish_refuses_a_bad_file() {
    let yaml = skirmish().replace("B Trooper 2", "B Trooper 1");
    let why = refusals(attempt("combat3000.turn", &[], &yaml));
    assert!(why.iter().any(|m| m.contains("two figures are called")), "{why:?}");
    let only_a = skirmish().replace("side: b", "side: a");
    let why = refusals(attempt("combat3000.turn", &[], &only_a));
    assert!(why.iter().any(|m| m.contains("both sides")), "{why:?}");
}

/// p.10 Target Eligibility: "no friends within 3cm. of any point along the line of sight"; a blast
/// weapon "may not aim at any point within 6cm. of friendly troops". Within includes the distance
/// itself, as for speech (15 cm) and base contact (2 cm).
#[test]
fn a_friend_at_exactly_3_or_6_cm_is_within() {
    let eligible = |sets: &[(&str, &str)]| {
        let mut all = vec![("aware_at_start", "true")];
        all.extend_from_slice(sets);
        field(&resolve("combat3000.eligible", &all, "", &[]).unwrap(), "eligible")
    };
    assert_eq!(eligible(&[("friend_near_line_cm", "3")]), "false");
    assert_eq!(eligible(&[("friend_near_line_cm", "4")]), "true");
    assert_eq!(eligible(&[("blast_weapon", "true"), ("friend_near_aim_cm", "6")]), "false");
    assert_eq!(eligible(&[("blast_weapon", "true"), ("friend_near_aim_cm", "7")]), "true");
}

/// Two figures 20 cm apart for one game turn: the sergeant last aimed at `last_target`, and this
/// turn's start is told whether he aimed at it last turn (`aimed_at`).
fn two_figures(last_target: &str, aimed_at: &str) -> String {
    let figure = |name: &str, side: &str, x: i64| {
        format!(
            "{{name: \"{name}\", side: {side}, accuracy: 10, strength: 1, dexterity: 1, reflex: 1, walk_cm: 5, \
             weapon: {{name: \"sample laser rifle\", class: s, area: false, accuracy: 10, effect: 2, loading: pos, supply: 20, reload: 2, breakdown: 2}}, \
             cc_handling: 0, cc_effect: -3, partial_armour: 1, armour: 0, size: 0, x_cm: {x}, y_cm: 0, orders: hold_position}}"
        )
    };
    let trooper = |f: String, n: i64, last: &str, aimed: &str| {
        format!(
            "  - {{f: {f}, order: {n}, alive: true, shots_left: 20, jammed: false, scrapped: false, reloading: 0, rest: 0, \
             last_target: \"{last}\", aimed_at: \"{aimed}\", fired_at_by: [], moved_cm: 0, in_close_combat: false, \
             hit_this_turn: false, kills: 0, doing: hold, charging: false}}\n"
        )
    };
    format!(
        "troopers:\n{}{}",
        trooper(figure("A Sergeant", "a", 0), 0, last_target, aimed_at),
        trooper(figure("B Rifleman", "b", 20), 1, "", "")
    )
}

/// p.12: "-2 Fired at the same target last turn" (and p.13 "+5% fired at same target last move")
/// count only last turn's target: a figure that aimed elsewhere, or not at all, last turn (a turn
/// spent reloading) has no bonus, though it fired at this target before.
#[test]
fn the_same_target_bonus_is_last_turns_target_only() {
    let run = |yaml: &str| traced("combat3000.game_turn", yaml, &mut runtime::Seeded::new(3));
    let aimed_last_turn = run(&two_figures("B Rifleman", "B Rifleman"));
    assert!(
        aimed_last_turn.contains("\"A Sergeant\" aims at \"B Rifleman\""),
        "{aimed_last_turn}"
    );
    assert!(aimed_last_turn.contains("fired at the same target last turn"), "{aimed_last_turn}");
    let not_last_turn = run(&two_figures("B Rifleman", ""));
    assert!(not_last_turn.contains("\"A Sergeant\" aims at \"B Rifleman\""), "{not_last_turn}");
    assert!(!not_last_turn.contains("fired at the same target last turn"), "{not_last_turn}");
    assert!(!not_last_turn.contains("fired at same target last move"), "{not_last_turn}");
}

/// p.2 Weapons f): "The reloading time given will be that for one barrel only": a 'Bar' weapon
/// reloads each empty barrel (reload 2 turns, dexterity 1: 1 turn a barrel, 3 barrels empty: 3).
#[test]
fn a_bar_weapon_reloads_each_empty_barrel() {
    let yaml = two_figures("", "")
        .replacen("loading: pos, supply: 20", "loading: bar, supply: 4", 1)
        .replace("shots_left: 20", "shots_left: 0"); // both reload: nobody fires
    let sets = [("reload_time", "2"), ("dexterity", "1"), ("weapon_class", "s"), ("barrels", "3")];
    assert_eq!(field(&resolve("combat3000.reload", &sets, "", &[]).unwrap(), "turns"), "3");
    let text = traced("combat3000.game_turn", &yaml, &mut runtime::Seeded::new(3));
    // The sergeant's weapon is empty: he reloads its 4 barrels, at 1 turn each.
    assert!(text.contains("\"A Sergeant\" reloads"), "{text}");
    assert!(text.contains("set turns = 4"), "{text}");
}

// ------------------------------------------------------------------ traced snapshots

/// Runs a resolver traced and renders the trace and outcome, as `rulebook roll` shows them.
fn traced(path: &str, yaml: &str, dice: &mut dyn runtime::Dice) -> String {
    let (r, inputs) = common::bind(path, &[], yaml);
    let mut trace = runtime::Recorder::new();
    let out = r.run_traced(dice, &mut trace, &inputs).unwrap_or_else(|e| panic!("{path}: {e}"));
    format!("{}\n{}", trace.render(), out)
}

/// A traced close combat: a sword (handling +1, effect +2; a sample profile) against a club, in
/// strike sub-phases 2 and 4 (3 - 1 and 2 + 2); the sword's blow, 8 + 7 + 2 less the clubman's
/// helmet (1) = 16, kills before the club strikes.
#[test]
fn traced_close_combat() {
    let yaml = "first: {name: Swordsman, strength: 0, dexterity: 0, reflex: 0, armour: 0, handling: 1, weapon_effect: 2, two_handed_in_one: false}\n\
                second: {name: Clubman, strength: 0, dexterity: 0, reflex: 0, armour: 1, handling: -2, weapon_effect: -1, two_handed_in_one: false}";
    let mut dice = runtime::Scripted::new(vec![3, 2, 8, 7]);
    let text = traced("combat3000.melee", yaml, &mut dice);
    assert!(text.contains("second_killed: true"), "{text}");
    insta::with_settings!({ snapshot_path => "../snapshots/combat3000", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("traced_close_combat", text);
    });
}

/// One traced game turn of the example skirmish (seed 7): orders, movement, fire sub-phases.
#[test]
fn traced_skirmish_turn() {
    let yaml = skirmish().replace("max_turns: 20", "max_turns: 1");
    let text = traced("combat3000.turn", &yaml, &mut runtime::Seeded::new(7));
    assert!(text.contains("turns: 1,"), "{text}");
    insta::with_settings!({ snapshot_path => "../snapshots/combat3000", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("traced_skirmish_turn", text);
    });
}

/// p.10 Weapon Use: no 'M', 'L' or 'H' weapon fires while the firer walks; several weapons at once
/// only under 30 cm by a firer who did not move.
#[test]
fn weapon_use_limits_are_refused() {
    let why = refusals(attempt(
        "combat3000.shot",
        &[
            ("range_cm", "20"),
            ("weapon_class", "m"),
            ("breakdown", "1"),
            ("movement", "walking"),
        ],
        "",
    ));
    assert!(
        why.iter()
            .any(|m| m.contains("walking figure") && m.ends_with("[Combat 3000 p.10 Weapon Use]")),
        "{why:?}"
    );
    assert!(resolve(
        "combat3000.shot",
        &[
            ("range_cm", "20"),
            ("weapon_class", "s"),
            ("breakdown", "1"),
            ("movement", "walking")
        ],
        "",
        &[5, 5]
    )
    .is_ok());
    let why = refusals(attempt(
        "combat3000.shot",
        &[
            ("range_cm", "30"),
            ("weapon_class", "p"),
            ("breakdown", "1"),
            ("several_weapons", "true"),
        ],
        "",
    ));
    assert!(why.iter().any(|m| m.contains("range 30 cm")), "{why:?}");
    let ok = resolve(
        "combat3000.shot",
        &[
            ("range_cm", "29"),
            ("weapon_class", "p"),
            ("breakdown", "1"),
            ("several_weapons", "true"),
        ],
        "",
        &[5, 5],
    )
    .unwrap();
    // 50 + 0 (short) - 12 (two or more weapons at once).
    assert_eq!(field(&ok, "chance"), "38");
}

/// "`odds` gives exact fractions for each non-procedural resolver": every Combat 3000 resolver
/// but the skirmish and its steps has exact odds summing to 1 with the inputs it requires.
#[test]
fn every_non_procedural_resolver_has_exact_odds() {
    let (sys, _) = runtime::find_resolver(rulebook::SYSTEMS, "combat3000.shot").unwrap();
    let required: &[(&str, &[(&str, &str)], &str)] = &[
        ("action_time", &[("action", "DC")], ""),
        ("eligible", &[("aware_at_start", "true")], ""),
        ("covering", &[("width_cm", "4"), ("depth_cm", "4")], ""),
        ("speech", &[("distance_cm", "10")], ""),
        ("shot", &[("range_cm", "20"), ("weapon_class", "s"), ("breakdown", "2")], ""),
        ("fire_subphase", &[("weapon_class", "m")], ""),
        ("fire", &[("chance", "50"), ("breakdown", "2"), ("effect", "1"), ("target", "vehicle"), ("armour", "5")], ""),
        ("kill", &[("effect", "1")], ""),
        ("penetration", &[("effect", "2"), ("armour", "5")], ""),
        ("vehicle_hits", &[("excess", "3")], ""),
        ("reload", &[("reload_time", "3"), ("weapon_class", "m")], ""),
        ("blast_shot", &[("chance", "40")], ""),
        ("inf_rest", &[("rest_turns", "1"), ("turns_since_fired", "1")], ""),
        ("cc_kill", &[], ""),
        ("improvised", &[("weapon", "Claws")], ""),
        ("melee", &[], "first: {name: A, strength: 1, dexterity: 0, reflex: 1, armour: 1, handling: 0, weapon_effect: 1, two_handed_in_one: false}\nsecond: {name: B, strength: 0, dexterity: 1, reflex: 0, armour: 0, handling: -2, weapon_effect: -1, two_handed_in_one: true}"),
        ("vehicle_speed", &[("last_speed", "10"), ("acceleration", "5"), ("max_speed", "30")], ""),
        ("sight_range", &[], ""),
        ("vehicle_capacity", &[("capacity", "6"), ("weapons", "m,h")], ""),
        ("cloud", &[("template_cm", "3"), ("turns_after", "2")], ""),
    ];
    let procedural = ["turn", "game_turn", "fire_at", "choose_order", "choose_target", "respond_to_charge"];
    for r in sys.resolvers {
        if procedural.contains(&r.name) {
            continue;
        }
        let path = format!("combat3000.{}", r.name);
        let (sets, yaml) = required
            .iter()
            .find(|(n, _, _)| *n == r.name)
            .map(|(_, s, y)| (s.to_vec(), *y))
            .unwrap_or_default();
        let d = odds(&path, &sets, yaml).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(d.total(), Prob::one(), "{path}");
        assert!(!d.outcomes.is_empty(), "{path}");
    }
}
