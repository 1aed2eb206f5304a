//! What a person reads (issue 42, points 7 and 8): `odds` of several varying fields, a procedure's
//! steps, and a long `roll`, run on the built binary.

mod common;

use common::rulebook;
use serde_json::Value;
use std::process::Output;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn odds_say_once_what_every_outcome_shares() {
    let out = rulebook(&["odds", "starleader.fire", "--set", "weapon=Ghazi 10/7"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let shared = text.split("\n  in every outcome: ").nth(1).unwrap_or("");
    let shared: String = shared
        .split("\n\n")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(shared.starts_with("stun=false heavy_hit=none"), "{text}");
    assert!(shared.ends_with("weapon_state=ready"), "{text}");
    // Issue 42, point 8: each varying field's own distribution first, then every combination in
    // a column per field under a header, not `field=value` pairs 200 characters wide.
    let (fields, table) = text
        .split_once("outcomes (12), every combination:\n")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        fields.contains("\nresult:\n") && fields.contains("\ndamage:\n") && !text.contains("\nstun:\n"),
        "{text}"
    );
    let table: Vec<&str> = table.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(table.len(), 13, "{text}");
    assert_eq!(table[0], "  result  damage", "{text}");
    assert!(table[1].starts_with("  hit     9  ") && table[1].contains("145/15552"), "{text}");
    assert!(table[12].starts_with("  miss    0  ") && table[12].contains("287/432"), "{text}");
    assert!(table.iter().all(|l| !l.contains('=')), "{text}");
    // With its options, a shot's widest line stays within 140 characters.
    let out = rulebook(&[
        "odds",
        "starleader.fire",
        "--set",
        "weapon=Ghazi 10/7",
        "--set",
        "special_results=true",
        "--set",
        "heavy_hits=true",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 140, "{widest}: {text}");
}

/// `odds --until` counts steps of the procedure (runs of the resolver), and says so: not "rounds",
/// which a book means otherwise (a Mercenary Battle Round is several steps). Issue 42, point 7.
#[test]
fn chain_odds_count_steps_not_rounds() {
    let args = [
        "odds",
        "risk.attack",
        "--rules",
        "benches/fixtures",
        "--set",
        "attackers=3",
        "--set",
        "defenders=2",
        "--until",
        "done",
    ];
    let out = rulebook(&args);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("exact odds, step after step until `done`"), "{text}");
    assert!(text.contains("\nover by step (a step is one run of the resolver):\n"), "{text}");
    assert!(!text.contains("round"), "{text}");
    let json: Value = serde_json::from_slice(&rulebook(&[&args[..], &["--json"]].concat()).stdout).unwrap();
    let by_step = json["finished_by_step"].as_array().unwrap();
    assert!(matches!(by_step.last().and_then(Value::as_str), Some("1" | "1/1")), "{json}");
    assert!(json.get("finished_by_round").is_none());
}

/// Issue 42, point 8: a battle's `roll` is readable. 2,400 lines of trace are folded to a line per
/// step, with each Battle Round's losses (a `note` of the rules) between them; the outcome, which
/// sums it up, comes first, a list of records a line per item; no line runs to thousands of
/// characters. `--depth 1` unfolds a level, `--full` everything.
#[test]
fn a_long_roll_is_folded_with_the_outcome_first() {
    let args = [
        "roll",
        "mercenary.battle",
        "--input",
        "examples/mercenary-combined-arms.yaml",
        "--seed",
        "7",
    ];
    let out = rulebook(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() < 200, "{} lines", lines.len());
    assert!(lines.iter().all(|l| l.chars().count() <= 150), "{text}");
    let outcome = text.find("\noutcome:\n").unwrap_or_else(|| panic!("{text}"));
    let trace = text.find("\ntrace (").unwrap_or_else(|| panic!("{text}"));
    assert!(outcome < trace, "the outcome comes first: {text}");
    assert!(
        text.contains("\n  final:        (9 items)\n    - {name: \"A Rifle Company\""),
        "{text}"
    );
    assert!(
        text.contains("lines; each call nested deeper than 0 is one line: --depth N shows more, --full all):"),
        "{text}"
    );
    assert!(
        text.contains("    battle_step — One step of a battle [Battle System: Execution of Battle]  … "),
        "{text}"
    );
    for round in 1..=3 {
        assert!(
            text.contains(&format!("note: Battle Round {round} over: army A has lost ")),
            "{text}"
        );
    }
    assert!(
        text.contains("note: Battle Round 4 over, and the battle (side_a_wins): army A has lost 11 members in all, army B 130"),
        "{text}"
    );
    let count = |extra: &[&str]| {
        let out = rulebook(&[&args[..], extra].concat());
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    let (deeper, full) = (count(&["--depth", "1"]), count(&["--full"]));
    assert!(
        lines.len() < deeper && deeper < full && full > 2000,
        "{} {deeper} {full}",
        lines.len()
    );
}

/// `--depth` takes any number: the largest opens every call, as a depth past the deepest call does.
#[test]
fn roll_depth_takes_any_number() {
    let base = ["roll", "starleader.fire", "--set", "weapon=Ghazi 10/7"];
    let all = rulebook(&[&base[..], &["--depth", "99"]].concat());
    let most = rulebook(&[&base[..], &["--depth", "18446744073709551615"]].concat());
    assert!(most.status.success(), "{}", stderr(&most));
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).replace("deeper than 18446744073709551615", "deeper than 99");
    assert_eq!(text(&most), text(&all));
}
