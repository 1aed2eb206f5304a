//! Starleader rules that need more than one worked example to pin down: refusals (a `require` of
//! the rules), multi-turn effects and the combat turn over several characters. Each test cites the
//! rule it checks; the readings are in docs/ambiguities.md.

mod common;

use common::{attempt, field, odds, refusals, resolve};

// ------------------------------------------------------------------ weapon range (Starleader Tables, 6.1, 6.65)

/// Starleader Tables: "RANGE: Maximum range of fire in meters". The Hanza 6/-3 reaches 50 m: a
/// target 60 m away cannot be fired at, with the outdoor range note (6.65) off or on.
#[test]
fn a_target_beyond_the_maximum_range_cannot_be_fired_at() {
    for resolver in ["starleader.to_hit", "starleader.fire"] {
        for range_note in ["false", "true"] {
            let sets = [("weapon", "Hanza 6/-3"), ("range_m", "60"), ("range_note", range_note)];
            let why = refusals(attempt(resolver, &sets, ""));
            assert!(
                why.iter().any(|m| m.contains("maximum range")),
                "{resolver}, range note {range_note}: {why:?}"
            );
        }
        // At its maximum range it still fires (4d6, then 2d6 for damage if `fire` hits).
        let sets = [("weapon", "Hanza 6/-3"), ("range_m", "50")];
        assert_eq!(field(&resolve(resolver, &sets, "", &[6, 6, 6, 6]).unwrap(), "result"), "miss");
    }
}

/// 6.1: inside structures every target is in range; outdoors the RANGE column holds.
#[test]
fn inside_structures_every_target_is_in_range() {
    // 6.1: "For weapon fire inside structures all targets are considered in range": a distance in
    // hexes (1 1/3 m each, 11.0) is never refused, even past the Hanza's 50 m.
    let r = resolve(
        "starleader.to_hit",
        &[("weapon", "Hanza 6/-3"), ("range_hexes", "60")],
        "",
        &[6, 6, 6, 6],
    );
    assert_eq!(field(&r.unwrap(), "result"), "miss");
    // Outdoors the RANGE column holds, whatever the options: 51 m is beyond the Hanza's 50 m.
    let why = refusals(attempt("starleader.to_hit", &[("weapon", "Hanza 6/-3"), ("range_m", "51")], ""));
    assert!(why.iter().any(|m| m.contains("51 m") && m.contains("maximum range")), "{why:?}");
    assert!(resolve(
        "starleader.to_hit",
        &[("weapon", "Hanza 6/-3"), ("range_m", "50")],
        "",
        &[6, 6, 6, 6]
    )
    .is_ok());
}

// ------------------------------------------------------------------ mounted weapons (7.1)

/// 7.1: a weapon with mount "cannot be fired being held only by hands". The To Hit roll alone must
/// refuse it as the whole fire resolution does.
#[test]
fn to_hit_refuses_a_mounted_weapon_held_by_hand() {
    let sets = [("weapon", "Karbyn 10/-1"), ("mounted_weapons", "true"), ("mount", "none")];
    for resolver in ["starleader.to_hit", "starleader.fire"] {
        let why = refusals(attempt(resolver, &sets, ""));
        assert!(
            why.iter()
                .any(|m| m.contains("deployed or braced") && m.ends_with("[Starleader 7.1]")),
            "{resolver}: {why:?}"
        );
    }
}

// ------------------------------------------------------------------ heavy hit 6 (6.61)

/// 6.61, Heavy Hit Table: "6 - Knocked DOWN, unconscious rest of this turn and next two turns of
/// combat". No Action Points in any of those turns; in the third turn after, the AP are back.
#[test]
fn heavy_hit_6_leaves_no_action_points_for_the_rest_of_the_turn_and_the_next_two() {
    let ap = |sets: &[(&str, &str)]| {
        let mut all = vec![("adjusted_ap", "7.5"), ("prowess_now", "10"), ("heavy_hits", "true")];
        all.extend_from_slice(sets);
        field(&resolve("starleader.turn_ap", &all, "", &[]).unwrap(), "ap")
    };
    assert_eq!(ap(&[]), "7");
    assert_eq!(ap(&[("heavy_hit_this_turn", "down_unconscious")]), "0");
    assert_eq!(ap(&[("heavy_hit_last_turn", "down_unconscious")]), "0");
    assert_eq!(ap(&[("heavy_hit_two_turns_ago", "down_unconscious")]), "0");
    // The other results of the table: two and four AP lost in the next turn only.
    assert_eq!(ap(&[("heavy_hit_last_turn", "down_lose_4_ap")]), "3");
    assert_eq!(ap(&[("heavy_hit_two_turns_ago", "down_lose_4_ap")]), "7");
}

/// A heavy hit exists only under the optional Heavy Hit Table (6.61): without it, `turn_ap` refuses
/// one rather than ignoring it.
#[test]
fn a_heavy_hit_needs_the_heavy_hit_table() {
    let sets = [
        ("adjusted_ap", "8"),
        ("prowess_now", "10"),
        ("heavy_hit_last_turn", "down_unconscious"),
    ];
    let why = refusals(attempt("starleader.turn_ap", &sets, ""));
    assert!(why.iter().any(|m| m.contains("heavy_hits")), "{why:?}");
}

// ------------------------------------------------------------------ panic timing (5.64)

/// 5.64: the result applies "the next time the character has the option to act"; 6-7 "will not fire a
/// weapon next combat round. Make another Panic Check ... at the end of next combat round"; 8-9
/// "moves as far away from danger as he can the next combat turn. He won't fire ... add +3"; 10 "He
/// makes no actions for next 3 combat turns and will then react as if he had an 8 or 9 difference.
/// Make another Panic check for him at the end of the third turn."
#[test]
fn panic_results_take_hold_in_the_turns_the_book_gives() {
    let at = |effect: &str, turn: &str| resolve("starleader.panic_effects", &[("effect", effect), ("turns_since", turn)], "", &[]).unwrap();
    let take_cover = at("take_cover", "1");
    assert_eq!(field(&take_cover, "takes_cover"), "true");
    assert_eq!(field(&take_cover, "toward_enemy"), "false");
    assert_eq!(field(&take_cover, "fires"), "true");
    assert_eq!(field(&at("take_cover", "2"), "toward_enemy"), "true");

    let no_fire = at("cover_no_fire", "1");
    assert_eq!(field(&no_fire, "fires"), "false");
    assert_eq!(field(&no_fire, "check_at_end"), "true");
    assert_eq!(field(&no_fire, "check_bonus"), "0");

    let flee = at("flee", "1");
    assert_eq!(
        (field(&flee, "flees"), field(&flee, "fires"), field(&flee, "acts")),
        ("true".into(), "false".into(), "true".into())
    );
    assert_eq!(
        (field(&flee, "check_at_end"), field(&flee, "check_bonus")),
        ("true".into(), "3".into())
    );

    for turn in ["1", "2", "3"] {
        assert_eq!(field(&at("collapse", turn), "acts"), "false", "turn {turn}");
    }
    assert_eq!(field(&at("collapse", "1"), "drops_weapons"), "true");
    assert_eq!(field(&at("collapse", "3"), "check_at_end"), "true");
    assert_eq!(field(&at("collapse", "2"), "check_at_end"), "false");
    let after = at("collapse", "4");
    assert_eq!(
        (field(&after, "acts"), field(&after, "flees"), field(&after, "fires")),
        ("true".into(), "true".into(), "false".into())
    );
    assert_eq!(field(&at("collapse", "5"), "flees"), "false");
}

/// B.4 "0 if ... panic 'no actions'": in the three turns after a 10 the character has no AP.
#[test]
fn a_collapsed_character_has_no_action_points() {
    let ap = |turn: &str| {
        let sets = [
            ("adjusted_ap", "8"),
            ("prowess_now", "10"),
            ("panic_checks", "true"),
            ("panic", "collapse"),
            ("panic_turns_since", turn),
        ];
        field(&resolve("starleader.turn_ap", &sets, "", &[]).unwrap(), "ap")
    };
    assert_eq!(ap("3"), "0");
    assert_eq!(ap("4"), "8");
}

// ------------------------------------------------------------------ a turn's actions (5.3, 5.4, 6.61)

/// Note under the Heavy Hit Table: a dropped weapon not on a cord takes "a Special Action to pick
/// up the weapon at a cost of 2 AP"; other Special Actions cost 3 (5.31 "3+", 6.64, 7.1).
#[test]
fn picking_up_a_dropped_weapon_is_a_two_ap_special_action() {
    let cost = |special: &str| {
        let sets = [("action", "Special Action"), ("special", special), ("special_action", "true")];
        field(&resolve("starleader.action_cost", &sets, "", &[]).unwrap(), "ap_cost")
    };
    assert_eq!(cost("Pick up dropped weapon"), "2");
    assert_eq!(cost("Unjam"), "3");
    assert_eq!(cost("Deploy weapon mount"), "3");
}

const TURN: &str = "{adjusted_ap: 8, prowess_now: 12, counter_fire: true, handle_object: true, special_action: true}";

fn turn(actions: &str) -> Result<rulebook::runtime::Value, rulebook::runtime::Error> {
    let yaml = format!("{}, actions: [{actions}]}}", TURN.trim_end_matches('}'));
    resolve("starleader.turn_actions", &[], &yaml, &[])
}

/// 5.3: "He may perform an Action more than once in a turn WITH THE EXCEPTION OF COUNTER-FIRE";
/// 5.4: "A character may only counter-fire once per turn".
#[test]
fn counter_fire_at_most_once_a_turn() {
    let once = turn("{action: Counter Fire}").unwrap();
    assert_eq!(field(&once, "counter_fired"), "true");
    let why = refusals(turn("{action: Counter Fire}, {action: Counter Fire}"));
    assert!(
        why.iter().any(|m| m.contains("once per turn") && m.ends_with("[Starleader 5.4]")),
        "{why:?}"
    );
}

/// 5.2 step 3 and 5.4: counter-fire's four AP are "considered expended now", at the announcement,
/// so a character who announced it has 8 - 4 = 4 AP for his other actions, and executing it costs
/// nothing more; without the announcement he cannot counter-fire at all.
#[test]
fn counter_fire_is_paid_when_announced() {
    let t = turn("{action: Counter Fire}, {action: Weapon Fire}").unwrap();
    assert_eq!(
        (field(&t, "ap"), field(&t, "spent"), field(&t, "left")),
        ("4".into(), "4".into(), "0".into())
    );
    let unannounced = attempt(
        "starleader.turn_actions",
        &[],
        "{adjusted_ap: 8, prowess_now: 12, actions: [{action: Counter Fire}]}",
    );
    assert!(refusals(unannounced)
        .iter()
        .any(|m| m.contains("did not announce counter-fire") && m.ends_with("[Starleader 5.2]")));
}

/// 5.3: "A character allocates his adjusted Action Points to Actions until all his Action Points
/// have been used": the actions of a whole turn must fit the turn's AP (5.2, 5.11).
#[test]
fn a_turn_s_actions_must_fit_its_action_points() {
    // 4 AP after the counter-fire announcement: Handle Object 1 + Special Action (pick up) 2 = 3 fits.
    let fits = turn("{action: Handle Object}, {action: Special Action, special: Pick up dropped weapon}").unwrap();
    assert_eq!((field(&fits, "spent"), field(&fits, "left")), ("3".into(), "1".into()));
    // Snap Fire 2 + Snap Fire 2 + Handle Object 1 = 5 does not.
    let why = refusals(turn("{action: Snap Fire}, {action: Snap Fire}, {action: Handle Object}"));
    assert!(why.iter().any(|m| m.contains("5 AP") && m.ends_with("[Starleader 5.3]")), "{why:?}");
}

/// 5.32 and 5.5: changing position costs 1 AP and crawling needs the DOWN position; the turn keeps
/// track of the position from one action to the next.
#[test]
fn a_turn_follows_the_character_s_position() {
    let yaml = "{adjusted_ap: 8, prowess_now: 12, actions: [{action: Movement, movement: Change positions}, {action: Movement, movement: Crawl one hex}]}";
    let t = resolve("starleader.turn_actions", &[], yaml, &[]).unwrap();
    assert_eq!((field(&t, "spent"), field(&t, "position")), ("4".into(), "down".into()));
    let yaml = "{adjusted_ap: 8, prowess_now: 12, actions: [{action: Movement, movement: Crawl one hex}]}";
    assert!(refusals(attempt("starleader.turn_actions", &[], yaml))
        .iter()
        .any(|m| m.contains("DOWN") || m.contains("down")));
}

// ------------------------------------------------------------------ the combat turn (5.2)

const COMBATANTS: &str = r#"
characters:
  - {name: Rescuer, side: attackers, combat_order: 19.5, adjusted_ap: 7.5, prowess_now: 12, emotions: 9,
     actions: [{action: Weapon Fire}, {action: Snap Fire}]}
  - {name: Zdanthan, side: defenders, combat_order: 22, adjusted_ap: 8, prowess_now: 14, emotions: 8,
     hit: true, damage_taken: 3, actions: [{action: Weapon Fire}, {action: Weapon Fire}]}
"#;

/// 5.2: "When you have completed steps 1 thru 6, you have completed one Combat Turn" is followed by
/// eight steps; all eight make the turn (SL-D2). Turn 1: the attackers have initiative (step 1), the
/// Zdanthan acts first on Combat Order (step 4), each spends his AP (step 5), the Zdanthan, hit this
/// turn, makes a panic check (step 7), and both sides can go on (step 8).
#[test]
fn the_combat_turn_runs_its_eight_steps() {
    let yaml = format!("{COMBATANTS}\npanic_checks: true\n");
    // Step 7: the Zdanthan's panic check, 3d6 = 5 + 6 + 6 = 17 - EM 8 = 9: flee.
    let t = resolve("starleader.combat_turn", &[], &yaml, &[5, 6, 6]).unwrap();
    assert_eq!(field(&t, "steps").matches(',').count() + 1, 8, "{}", field(&t, "steps"));
    assert_eq!(field(&t, "initiative"), "attackers");
    assert_eq!(field(&t, "order"), "[Zdanthan, Rescuer]");
    assert_eq!(field(&t, "over"), "false");
    let results = t.field("results").unwrap().to_string();
    assert!(results.contains("flee"), "{results}");
    // Without the optional panic rule no die is rolled in step 7.
    let t = resolve("starleader.combat_turn", &[], COMBATANTS, &[]).unwrap();
    assert!(!t.field("results").unwrap().to_string().contains("flee"));
}

/// 5.2 step 8: "Combat is now over if one side is unable to continue combat because all its
/// characters are dead, unconscious, surrendered or withdrawn."
#[test]
fn the_combat_ends_when_a_side_has_no_able_character() {
    let yaml = COMBATANTS.replace("damage_taken: 3", "damage_taken: 14");
    let t = resolve("starleader.combat_turn", &[], &yaml, &[]).unwrap();
    assert_eq!(field(&t, "over"), "true");
}

/// Step 5 checks every character's actions against his AP: the Zdanthan's third Weapon Fire (12 AP
/// of 8) is refused, naming him.
#[test]
fn the_combat_turn_refuses_actions_beyond_a_character_s_ap() {
    let yaml = COMBATANTS.replace(
        "actions: [{action: Weapon Fire}, {action: Weapon Fire}]",
        "actions: [{action: Weapon Fire}, {action: Weapon Fire}, {action: Weapon Fire}]",
    );
    let why = refusals(attempt("starleader.combat_turn", &[], &yaml));
    assert!(why.iter().any(|m| m.contains("Zdanthan") && m.contains("12 AP")), "{why:?}");
}

// ------------------------------------------------------------------ gadgets (9.0)

/// MEDIKIT (9.0): "Temporarily restores 2 PR of hits of damage. All hits felt after 10 more combat
/// turns." An unconscious character (PR 12, 12 hits) is back to PR 2; on turn 3 + 10 = 13 the two
/// hits are felt again and he is unconscious once more.
#[test]
fn the_medikit_restores_two_prowess_for_ten_turns() {
    let used = resolve(
        "starleader.medikit",
        &[("prowess", "12"), ("normal_damage", "12"), ("gadgets", "Medikit"), ("turn", "3")],
        "",
        &[],
    )
    .unwrap();
    assert_eq!(
        (field(&used, "prowess_now"), field(&used, "condition")),
        ("2".into(), "able".into())
    );
    assert_eq!(
        (field(&used, "held_normal"), field(&used, "felt_on_turn")),
        ("2".into(), "13".into())
    );
    let felt = resolve(
        "starleader.medikit_wears_off",
        &[("prowess", "12"), ("normal_damage", "10"), ("held_normal", "2")],
        "",
        &[],
    )
    .unwrap();
    assert_eq!(
        (field(&felt, "prowess_now"), field(&felt, "condition")),
        ("0".into(), "unconscious".into())
    );
    // Without a Medikit, or on a dead character, it does nothing: refused.
    let none = refusals(attempt("starleader.medikit", &[("prowess", "12"), ("normal_damage", "5")], ""));
    assert!(
        none.iter()
            .any(|m| m.contains("no working Medikit") && m.ends_with("[Starleader 9.0]")),
        "{none:?}"
    );
    let dead = refusals(attempt(
        "starleader.medikit",
        &[("prowess", "12"), ("normal_damage", "13"), ("gadgets", "Medikit")],
        "",
    ));
    assert!(
        dead.iter().any(|m| m.contains("dead") && m.ends_with("[Starleader 6.5]")),
        "{dead:?}"
    );
}

/// HEALER (9.0): "Permanently restores 1 PR of damage per combat turn up to total of 3 PR."
#[test]
fn the_healer_restores_one_prowess_a_turn_up_to_three() {
    let heal = |restored: &str| {
        resolve(
            "starleader.healer",
            &[
                ("prowess", "12"),
                ("normal_damage", "6"),
                ("gadgets", "Healer"),
                ("restored", restored),
            ],
            "",
            &[],
        )
        .unwrap()
    };
    let first = heal("0");
    assert_eq!(
        (field(&first, "normal_damage"), field(&first, "restored")),
        ("5".into(), "1".into())
    );
    let spent = heal("3");
    assert_eq!(
        (field(&spent, "normal_damage"), field(&spent, "restored")),
        ("6".into(), "3".into())
    );
    // The healed point shows in his Prowess now: 12 - 5, and 12 - 6 once the Healer is spent.
    assert_eq!(
        (field(&first, "prowess_now"), field(&first, "condition")),
        ("7".into(), "able".into())
    );
    assert_eq!(field(&spent, "prowess_now"), "6");
}

/// A character knocked out at exactly his Prowess in hits (6.5) is healed back to 1 and is able again.
#[test]
fn the_healer_wakes_a_character_knocked_out_at_his_prowess() {
    let out = resolve(
        "starleader.healer",
        &[("prowess", "12"), ("normal_damage", "12"), ("gadgets", "Healer")],
        "",
        &[],
    )
    .unwrap();
    assert_eq!(
        (field(&out, "normal_damage"), field(&out, "prowess_now"), field(&out, "condition")),
        ("11".into(), "1".into(), "able".into())
    );
}

/// STASIZER (9.0): "Preserves life of dead character for 1 hour if Prowess 0 to -10. Medical Module
/// can revive on a die roll of 1,2 or 3." The revival is a 1d6: exactly 1/2.
#[test]
fn the_stasizer_preserves_the_dead_and_the_medical_module_revives_half() {
    let dead = [("prowess", "12"), ("normal_damage", "17"), ("gadgets", "Stasizer")];
    let revived = resolve("starleader.stasizer", &dead, "", &[3]).unwrap();
    assert_eq!(
        (field(&revived, "revived"), field(&revived, "condition")),
        ("true".into(), "unconscious".into())
    );
    let lost = resolve("starleader.stasizer", &dead, "", &[4]).unwrap();
    assert_eq!(
        (field(&lost, "preserved"), field(&lost, "revived"), field(&lost, "condition")),
        ("true".into(), "false".into(), "dead".into())
    );
    let d = odds("starleader.stasizer", &dead, "").unwrap();
    assert_eq!(
        d.probability(|o| o.field("revived").map(|v| v.to_string()) == Some("true".into()))
            .to_string(),
        "1/2"
    );
    // Beyond -10, or after the hour, or without the gadget: dead, no die rolled.
    for sets in [
        vec![("prowess", "12"), ("normal_damage", "23"), ("gadgets", "Stasizer")],
        vec![
            ("prowess", "12"),
            ("normal_damage", "17"),
            ("gadgets", "Stasizer"),
            ("minutes", "61"),
        ],
        vec![("prowess", "12"), ("normal_damage", "17")],
    ] {
        let o = resolve("starleader.stasizer", &sets, "", &[]).unwrap();
        assert_eq!(
            (field(&o, "revived"), field(&o, "condition")),
            ("false".into(), "dead".into()),
            "{sets:?}"
        );
    }
}

/// examples/starleader-combat-turn.yaml (the README's combat turn) runs: the Zdanthan spends his 4
/// AP left after announcing counter-fire (5.2 step 3), the Rescuer 6 of his 7.
#[test]
fn the_combat_turn_example_file_runs() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/starleader-combat-turn.yaml")).unwrap();
    let t = attempt("starleader.combat_turn", &[], &text).unwrap();
    let results = field(&t, "results");
    assert!(results.contains("name: Zdanthan, ap: 4, spent: 4, left: 0"), "{results}");
    assert!(results.contains("name: Rescuer, ap: 7, spent: 6, left: 1"), "{results}");
    assert_eq!(field(&t, "over"), "false");
}
