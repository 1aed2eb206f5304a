//! Resolvers that compute the same thing at two levels must agree wherever they overlap: a whole
//! resolution and the step it calls, over many inputs. They must accept and refuse the same
//! situations (with the same reasons), and where both accept, the shared result must have the same
//! exact distribution.

mod common;

use common::bind;
use rulebook::runtime::{self, Distribution, Error, Prob, Ty, Value};
use std::collections::BTreeMap;

/// Accepted (with the exact distribution of the chosen outputs) or refused (with the reasons).
#[derive(Debug, PartialEq)]
enum Verdict {
    Accepted(Vec<(String, Prob)>),
    Refused(Vec<String>),
}

fn verdict(path: &str, sets: &[(&str, &str)], yaml: &str, shared: &[&str]) -> Verdict {
    let (r, inputs) = bind(path, sets, yaml);
    match runtime::odds_dyn(r, &inputs) {
        Ok(d) => Verdict::Accepted(marginal(&d, shared)),
        Err(e) => match e.cause() {
            Error::Rejected { violations } => Verdict::Refused(violations.iter().map(|v| format!("{} [{}]", v.message, v.cite)).collect()),
            _ => panic!("{path} {sets:?} {yaml}: {e}"),
        },
    }
}

/// The joint distribution of `fields`, as text, in a stable order.
fn marginal(d: &Distribution<Value>, fields: &[&str]) -> Vec<(String, Prob)> {
    let mut m: BTreeMap<String, Prob> = BTreeMap::new();
    for (o, p) in &d.outcomes {
        let key: Vec<String> = fields
            .iter()
            .map(|f| format!("{f}={}", o.field(f).map(|v| v.to_string()).unwrap_or_default()))
            .collect();
        let slot = m.entry(key.join(" ")).or_insert_with(Prob::zero);
        *slot = slot.add(p);
    }
    m.into_iter().collect()
}

/// Every key of the tables a keyed input may name (every weapon of every weapon table).
fn keys_of(path: &str, input: &str) -> Vec<&'static str> {
    let (_, r) = runtime::find_resolver(rulebook::SYSTEMS, path).unwrap();
    match r.input(input).map(|i| i.ty) {
        Some(Ty::Key(tables)) | Some(Ty::Opt(Ty::Key(tables))) => tables.iter().flat_map(|t| t.keys.iter().copied()).collect(),
        other => panic!("{path}.{input} is not a keyed input: {other:?}"),
    }
}

/// Starleader 6.0 "Weapon Fire" calls the To Hit die roll (6.3) and adds damage: for every weapon
/// of the four weapon tables, in situations that touch each rule of `to_hit` (mounts 7.1, range
/// 6.65 and the RANGE column, line of sight 6.21, special results 6.64, dodging 5.62, gadgets 9.0,
/// close range 6.3), `fire` and `to_hit` accept and refuse alike, and hit, miss, jam and blow up
/// with the same exact odds.
#[test]
fn starleader_fire_and_to_hit_agree_for_every_weapon() {
    let situations: &[&[(&str, &str)]] = &[
        &[],
        &[("mounted_weapons", "true")],
        &[("mounted_weapons", "true"), ("mount", "braced")],
        &[("mounted_weapons", "true"), ("mount", "deployed"), ("special_results", "true")],
        &[("mount", "braced")],
        &[("action", "counter_fire"), ("range_hexes", "1"), ("special_results", "true")],
        &[("range_m", "250"), ("range_note", "true")],
        &[("range_m", "600")],
        &[("range_hexes", "300")],
        &[("obstacle_size", "6")],
        &[("obstacle_size", "3"), ("target_size", "1"), ("special_results", "true")],
        &[
            ("dodging", "true"),
            ("firer_dodging", "true"),
            ("target_dodging", "true"),
            ("firer_gadgets", "Syter-X"),
            ("target_gadgets", "Scrambler"),
            ("action", "snap_fire"),
        ],
    ];
    let weapons = keys_of("starleader.to_hit", "weapon");
    assert!(weapons.len() > 60, "every weapon of the tables: {}", weapons.len());
    let (mut accepted, mut refused) = (0, 0);
    for weapon in &weapons {
        for situation in situations {
            let mut sets = vec![("weapon", *weapon)];
            sets.extend_from_slice(situation);
            let step = verdict("starleader.to_hit", &sets, "", &["result"]);
            let whole = verdict("starleader.fire", &sets, "", &["result"]);
            assert_eq!(step, whole, "to_hit and fire disagree for {sets:?}");
            match step {
                Verdict::Accepted(_) => accepted += 1,
                Verdict::Refused(_) => refused += 1,
            }
        }
    }
    // Both kinds of case were exercised.
    assert!(accepted > 0 && refused > 0, "accepted {accepted}, refused {refused}");
}

/// Mercenary Battle System, Attack Actions: the battle's attack between two units (`attack`, which
/// `perform` uses for every Attack action) reads its numbers off the units and calls the table-level
/// attack (`unit_attack`). For every pair of unit types, at several distances, with and without
/// flanking, a low morale and a lost Command Unit, both give the same result, Effect and casualties
/// with the same exact odds.
#[test]
fn mercenary_attack_and_unit_attack_agree_for_every_pair_of_unit_types() {
    let system = runtime::find_system(rulebook::SYSTEMS, "mercenary").unwrap();
    let types = system.enums.iter().find(|e| e.name == "unit_type").unwrap().variants;
    let zones = system.enums.iter().find(|e| e.name == "zone").unwrap().variants;
    assert_eq!(zones.len(), 6);
    // Zones lie on one line, army A's rear to army B's rear (docs/ambiguities.md, Battle System B7):
    // the distance is the number of steps between them.
    let pairs = [(2, 3), (2, 2), (1, 4), (0, 5), (3, 3)];
    let shared = ["result", "acted", "success", "effect", "casualties"];
    for attacker in types {
        for defender in types {
            for &(za, zd) in &pairs {
                for (flanking, morale, no_command, tl) in [(false, 10, false, 12), (true, 3, true, 12), (false, 4, false, 3)] {
                    let unit = |name: &str, side: &str, ty: &str, zone: usize, tl: i64| {
                        format!(
                            "{{name: {name}, side: {side}, unit_type: {ty}, strength: 40, start_strength: 40, size: 3, rating: 3, skill: 1, \
                             morale: {morale}, start_morale: 10, leadership: 1, tactics: 1, tl: {tl}, zone: {}, status: active, cas_rounds: 0}}",
                            zones[zone]
                        )
                    };
                    let yaml = format!(
                        "{{attacker: {}, defender: {}, flanking: {flanking}, no_command: {no_command}}}",
                        unit("A", "a", attacker, za, tl),
                        unit("B", "b", defender, zd, 10)
                    );
                    let whole = verdict("mercenary.attack", &[], &yaml, &shared);
                    let range = za.abs_diff(zd).to_string();
                    // Flanking fire counts only against a unit in the zone the attacker moved into.
                    let flanks = (flanking && za == zd).to_string();
                    let (m, nc, t) = (morale.to_string(), no_command.to_string(), tl.to_string());
                    let sets = [
                        ("attacker", *attacker),
                        ("defender", *defender),
                        ("skill", "1"),
                        ("range", range.as_str()),
                        ("attacker_size", "3"),
                        ("attacker_tl", t.as_str()),
                        ("defender_tl", "10"),
                        ("morale", m.as_str()),
                        ("no_command", nc.as_str()),
                        ("flanking", flanks.as_str()),
                        ("defender_strength", "40"),
                    ];
                    let step = verdict("mercenary.unit_attack", &sets, "", &shared);
                    assert_eq!(step, whole, "unit_attack {sets:?} and attack {yaml} disagree");
                }
            }
        }
    }
}

/// Starleader 5.3: a turn's actions (`turn_actions`) are priced one by one by `action_cost` (5.31,
/// 5.5, 5.61) against the turn's AP (`turn_ap`). For every Combat Action, every movement and every
/// named Special Action, from both positions, with the optional actions on and off, a one-action turn
/// is refused exactly when `action_cost` refuses the action (same reasons) and otherwise spends what
/// `action_cost` charges. Two actions differ by the book: Counter Fire was paid when announced (5.2
/// step 3) and Dodging is announced, not executed (5.62); they are checked on their own.
#[test]
fn starleader_turn_actions_and_action_cost_agree_for_every_action() {
    let actions = keys_of("starleader.action_cost", "action");
    let movements = keys_of("starleader.action_cost", "movement_type");
    let specials = keys_of("starleader.action_cost", "special");
    let (mut accepted, mut refused) = (0, 0);
    for action in &actions {
        let extras: Vec<(&str, &str)> = match *action {
            "Movement" => movements.iter().map(|m| ("movement", *m)).collect(),
            "Special Action" => specials.iter().map(|s| ("special", *s)).chain([("special", "-")]).collect(),
            _ => vec![("movement", "-")],
        };
        for (slot, value) in extras {
            for position in ["up", "down"] {
                for options in ["false", "true"] {
                    let input = if slot == "movement" { "movement_type" } else { "special" };
                    let sets = [
                        ("action", *action),
                        (input, value),
                        ("position", position),
                        ("handle_object", options),
                        ("special_action", options),
                        ("dodging", options),
                    ];
                    let cost = verdict("starleader.action_cost", &sets, "", &["ap_cost"]);
                    let item = if value == "-" {
                        format!("{{action: {action:?}}}")
                    } else {
                        format!("{{action: {action:?}, {slot}: {value:?}}}")
                    };
                    let yaml = format!(
                        "{{adjusted_ap: 8, prowess_now: 12, position: {position}, counter_fire: {}, handle_object: {options}, \
                         special_action: {options}, dodging: {options}, actions: [{item}]}}",
                        *action == "Counter Fire"
                    );
                    let turn = verdict("starleader.turn_actions", &[], &yaml, &["spent"]);
                    match *action {
                        "Counter Fire" => assert_eq!(turn, Verdict::Accepted(vec![("spent=0".into(), Prob::one())]), "{yaml}"),
                        "Dodging" => assert!(matches!(turn, Verdict::Refused(_)), "{yaml}: {turn:?}"),
                        _ => {
                            let expected = match cost {
                                Verdict::Accepted(d) => {
                                    Verdict::Accepted(d.into_iter().map(|(k, p)| (k.replace("ap_cost", "spent"), p)).collect())
                                }
                                refused => refused,
                            };
                            match expected {
                                Verdict::Accepted(_) => accepted += 1,
                                Verdict::Refused(_) => refused += 1,
                            }
                            assert_eq!(turn, expected, "action_cost {sets:?} and turn_actions {yaml} disagree");
                        }
                    }
                }
            }
        }
    }
    assert!(accepted > 20 && refused > 20, "accepted {accepted}, refused {refused}");
}

/// Combat 3000: `fire` (a shot and its effect, from a chance already worked out) and `shot` (the
/// chance from the to-hit list, then the d100) resolve the same d100. For situations across every
/// range band, weapon class, light and accuracy (chances from below 0 to above 100) and breakdown
/// factors 0 to 5, `fire` given the chance `shot` computes hits, misses and breaks down with the
/// same exact odds; and its kill odds are P(hit) x P(kill roll).
#[test]
fn combat3000_fire_and_shot_agree() {
    let mut n = 0;
    for range in ["5", "20", "50", "120", "340"] {
        for class in ["p", "s", "m", "h"] {
            for (light, acc) in [("bright", "60"), ("normal", "0"), ("night", "-40")] {
                for breakdown in ["0", "3", "5"] {
                    let sets = [
                        ("range_cm", range),
                        ("weapon_class", class),
                        ("light", light),
                        ("firer_accuracy", acc),
                        ("breakdown", breakdown),
                    ];
                    let (r, inputs) = bind("combat3000.shot", &sets, "");
                    let d = runtime::odds_dyn(r, &inputs).unwrap();
                    let chances = marginal(&d, &["chance"]);
                    assert_eq!(chances.len(), 1, "{sets:?}: one chance");
                    let chance = chances[0].0.trim_start_matches("chance=").to_string();
                    let shot = marginal(&d, &["result"]);
                    let fire = verdict(
                        "combat3000.fire",
                        &[("chance", &chance), ("breakdown", breakdown), ("effect", "0")],
                        "",
                        &["result"],
                    );
                    assert_eq!(fire, Verdict::Accepted(shot.clone()), "{sets:?} (chance {chance})");
                    // Killed = P(hit) x P(2d10 >= 12) = P(hit) x 45/100.
                    let (r, inputs) = bind(
                        "combat3000.fire",
                        &[("chance", &chance), ("breakdown", breakdown), ("effect", "0")],
                        "",
                    );
                    let f = runtime::odds_dyn(r, &inputs).unwrap();
                    let hit = shot
                        .iter()
                        .find(|(k, _)| k == "result=hit")
                        .map(|(_, p)| p.clone())
                        .unwrap_or_else(Prob::zero);
                    let killed = f.probability(|o| o.field("killed").map(|v| v.to_string()) == Some("true".into()));
                    assert_eq!(killed, hit.mul(&Prob::new(45, 100).unwrap()), "{sets:?}");
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 180);
}
