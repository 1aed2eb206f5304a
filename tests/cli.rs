//! The acceptance interface of the `rulebook` binary, run as a user runs it.

mod common;

use common::{prob, rulebook};
use rulebook::runtime::Prob;
use serde_json::Value;
use std::process::Output;

fn json(args: &[&str]) -> Value {
    let out = rulebook(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn num(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn check_is_clean_on_builtin_rules_and_names_file_line_col_on_errors() {
    let ok = rulebook(&["check"]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stdout));

    let dir = std::env::temp_dir().join(format!("rulebook-check-{}", std::process::id()));
    let sys = dir.join("starleader");
    std::fs::create_dir_all(&sys).unwrap();
    for entry in std::fs::read_dir("rules-src/starleader").unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, sys.join(p.file_name().unwrap())).unwrap();
    }
    let fire = sys.join("fire.rules");
    let text = std::fs::read_to_string(&fire)
        .unwrap()
        .replace("weapon.density + target_size", "weapon.densty + target_size");
    std::fs::write(&fire, text).unwrap();
    let bad = rulebook(&["check", "--rules", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&bad.stderr);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(bad.status.code(), Some(1));
    assert!(out.contains("starleader/fire.rules:"), "{out}");
    assert!(out.contains("[E0101]") && out.contains("did you mean `density`?"), "{out}");
    let loc = out.lines().next().unwrap().rsplit(" at ").next().unwrap();
    let parts: Vec<&str> = loc.rsplitn(3, ':').collect();
    assert!(
        parts[0].parse::<u32>().is_ok() && parts[1].parse::<u32>().is_ok(),
        "no line:col in {loc}"
    );
}

/// Issue 14: hostile rules text ends in diagnostics and exit 1, never a crash (exit 134), both
/// for `check` and for `--rules` loading.
#[test]
fn hostile_rules_are_diagnostics_not_crashes() {
    let dir = std::env::temp_dir().join(format!("rulebook-hostile-{}", std::process::id()));
    let sys = dir.join("t");
    std::fs::create_dir_all(&sys).unwrap();
    let resolver = |expr: &str| format!("resolver r \"R\" [1] {{\n  in a: int 0..1\n  out x: int\n  let v = {expr}\n  set x = 0\n}}\n");
    for (name, text) in [
        ("sum", resolver(&vec!["a"; 2000].join(" + "))),
        ("neg", resolver(&format!("{}a", "-".repeat(4000)))),
        ("not", resolver(&format!("{}a", "not ".repeat(100_000)))),
    ] {
        std::fs::write(sys.join("a.rules"), format!("system t \"T\"\n{text}")).unwrap();
        let check = rulebook(&["check", "--rules", dir.to_str().unwrap()]);
        let out = stderr(&check);
        assert_eq!(check.status.code(), Some(1), "{name}: {out}");
        assert!(out.contains("[E0002]: expression nests too deeply"), "{name}: {out}");
        let roll = rulebook(&["roll", "t.r", "--rules", dir.to_str().unwrap(), "--set", "a=1"]);
        assert_eq!(roll.status.code(), Some(1), "{name}: {}", stderr(&roll));
        assert!(stderr(&roll).contains("[E0002]"), "{name}: {}", stderr(&roll));
    }
    std::fs::write(sys.join("a.rules"), b"system t \"T\"\n// caf\xe9\n").unwrap();
    let check = rulebook(&["check", "--rules", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stderr(&check).contains("[E0003]") && stderr(&check).contains("/t/a.rules:2:7"),
        "{}",
        stderr(&check)
    );
}

#[test]
fn character_acceptance() {
    let v = json(&[
        "roll",
        "starleader.character",
        "--set",
        "iq=11",
        "--set",
        "prowess=12",
        "--set",
        "emotions=9",
        "--set",
        "armor=Alloid-A",
        "--set",
        "gadgets=Vapcak,Sealall,Syter",
        "--json",
    ]);
    let o = &v["outcome"];
    assert_eq!(num(&o["adjusted_ap"]), "7.5");
    assert_eq!(num(&o["usable_ap"]), "7");
    assert_eq!(num(&o["combat_order"]), "19.5");
    // The book's spellings of VACPAK resolve to the same gadget.
    for spelling in ["Vacpak", "VacPak", "Vapcak", "Vapcap", "VACPAK"] {
        let v = json(&[
            "roll",
            "starleader.character",
            "--set",
            "iq=11",
            "--set",
            "prowess=12",
            "--set",
            "emotions=9",
            "--set",
            "armor=Alloid-A",
            "--set",
            &format!("gadgets={spelling}"),
            "--json",
        ]);
        assert_eq!(v["inputs"]["gadgets"], serde_json::json!(["Vacpak"]), "{spelling}");
    }
}

#[test]
fn fire_odds_are_an_exact_joint_distribution() {
    let v = json(&[
        "odds",
        "starleader.fire",
        "--set",
        "weapon=Ghazi 10/7",
        "--set",
        "target_size=2",
        "--set",
        "armor_rating=5",
        "--set",
        "range_hexes=5",
        "--set",
        "special_results=true",
        "--set",
        "heavy_hits=true",
        "--json",
    ]);
    let outcomes = v["outcomes"].as_array().unwrap();
    let (mut total, mut p_hit) = (Prob::zero(), Prob::zero());
    for o in outcomes {
        let out = &o["outcome"];
        let result = out["result"].as_str().unwrap();
        assert!(["hit", "miss", "jammed", "blown"].contains(&result));
        let damage = out["damage"].as_i64().unwrap();
        if result != "hit" {
            assert_eq!(damage, 0);
        }
        if out["heavy_hit"] != "none" {
            assert!(result == "hit" && damage >= 5);
        }
        let p = prob(o["probability"].as_str().unwrap());
        total = total.add(&p);
        if result == "hit" {
            p_hit = p_hit.add(&p);
        }
    }
    assert_eq!(total, Prob::one(), "probabilities sum to exactly 1");
    // Ghazi 10/7 at an UP target: 4d6 <= 12, and with special results a roll of 10 or less always
    // hits: P = P(4d6 <= 12) = 145/432 (reference B.4 table).
    assert_eq!(p_hit, prob("145/432"));
}

#[test]
fn scripted_dice_are_used_exactly_and_errors_are_clear() {
    let v = json(&[
        "roll",
        "starleader.fire",
        "--set",
        "weapon=Ghazi 10/7",
        "--set",
        "special_results=true",
        "--dice",
        "6,6,6,5,4,3",
        "--json",
    ]);
    assert_eq!(v["outcome"]["result"], "blown");
    let faces: Vec<Value> = v["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "roll")
        .map(|e| e["faces"].clone())
        .collect();
    assert_eq!(faces, vec![serde_json::json!([6, 6, 6, 5]), serde_json::json!([4, 3])]);

    let few = rulebook(&["roll", "starleader.fire", "--set", "weapon=Ghazi 10/7", "--dice", "1,2,3,4"]);
    assert_eq!(few.status.code(), Some(2));
    assert!(stderr(&few).to_lowercase().contains("dice"), "{}", stderr(&few));
    let bad = rulebook(&["roll", "starleader.fire", "--set", "weapon=Ghazi 10/7", "--dice", "1,2,7,4"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains('7'), "{}", stderr(&bad));
}

#[test]
fn a_seed_gives_byte_identical_output() {
    let args = [
        "roll",
        "starleader.fire",
        "--set",
        "weapon=Mazer 14/13",
        "--set",
        "special_results=true",
        "--set",
        "heavy_hits=true",
        "--seed",
        "7",
    ];
    let a = rulebook(&args);
    let b = rulebook(&args);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let mut j = args.to_vec();
    j.push("--json");
    assert_eq!(rulebook(&j).stdout, rulebook(&j).stdout);
}

#[test]
fn bad_input_is_a_clear_error_never_a_panic() {
    let unknown = rulebook(&["roll", "starleader.fire", "--set", "weapon=Ghazzi 10/7"]);
    assert_eq!(unknown.status.code(), Some(2));
    let e = stderr(&unknown);
    assert!(e.contains("Ghazi 10/7"), "nearest names: {e}");
    assert!(!e.contains("panicked"));

    let armor = rulebook(&[
        "roll",
        "starleader.character",
        "--set",
        "iq=11",
        "--set",
        "prowess=12",
        "--set",
        "emotions=9",
        "--set",
        "armor=Aloid-A",
    ]);
    assert!(stderr(&armor).contains("Alloid-A"), "{}", stderr(&armor));

    // Over the weapon cord limit and the tech limit: a validation error naming each limit.
    let over = rulebook(&[
        "roll",
        "starleader.character",
        "--set",
        "iq=10",
        "--set",
        "prowess=14",
        "--set",
        "emotions=8",
        "--set",
        "weapons=Ghazi 10/7,Hanza 6/-3,Lugon 6/-2",
    ]);
    assert_eq!(over.status.code(), Some(1));
    let e = stderr(&over);
    assert!(e.contains("may carry 2"), "{e}");
    assert!(e.contains("tech limit"), "{e}");
    assert!(e.contains("Starleader 4.3") && e.contains("Starleader 4.1"), "{e}");

    let missing = rulebook(&["roll", "starleader.character", "--set", "iq=11"]);
    assert_eq!(missing.status.code(), Some(2));
    let e = stderr(&missing);
    assert!(e.contains("prowess") && e.contains("int"), "{e}");

    let range = rulebook(&["roll", "starleader.fire", "--set", "weapon=Ghazi 10/7", "--set", "target_size=99"]);
    assert_eq!(range.status.code(), Some(2));
    assert!(stderr(&range).contains("12"), "{}", stderr(&range));
}

#[test]
fn list_shows_optional_rules_and_inputs() {
    let out = rulebook(&["list", "starleader"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "special_results",
        "heavy_hits",
        "five_hits",
        "reduced_prowess",
        "mounted_weapons",
        "stunners",
        "dodging",
        "range_note",
        "panic_checks",
    ] {
        assert!(text.contains(name), "{name} missing from list: {text}");
    }
    let help = rulebook(&["roll", "--help"]);
    assert!(help.status.success());
}

#[test]
fn sim_is_thread_independent_and_agrees_with_exact_odds() {
    let args = |threads: &str| {
        vec![
            "sim",
            "starleader.to_hit",
            "--set",
            "weapon=Ghazi 10/7",
            "--runs",
            "20000",
            "--seed",
            "11",
            "--threads",
            threads,
            "--json",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let run = |threads: &str| {
        let a = args(threads);
        let refs: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
        rulebook(&refs)
    };
    let one = run("1");
    let three = run("3");
    assert!(one.status.success(), "{}", stderr(&one));
    assert_eq!(one.stdout, three.stdout, "the report must not depend on --threads");
    let v: Value = serde_json::from_slice(&one.stdout).unwrap();
    let outcomes = v["outcomes"].as_object().unwrap();
    let total: f64 = outcomes.values().map(|o| o["probability"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-12, "probabilities sum to {total}");
    // Seeded Monte Carlo against the exact 145/432: the 95% interval must contain it.
    let ci = outcomes["hit"]["ci95"].as_array().unwrap();
    let exact = 145.0 / 432.0;
    assert!(ci[0].as_f64().unwrap() <= exact && exact <= ci[1].as_f64().unwrap(), "{ci:?}");
}

#[test]
fn sim_lists_enum_outcomes_in_rule_order() {
    let out = rulebook(&["sim", "t5.btsd", "--runs", "500", "--seed", "2", "--threads", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let block: Vec<&str> = text
        .split("result:\n")
        .nth(1)
        .unwrap_or("")
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    // The order of `enum btsd_result` in rules-src/t5, not the alphabet.
    assert_eq!(
        block,
        ["very_heavy", "heavy", "common", "light", "slight", "scratch", "not"],
        "{text}"
    );
    // Declared results no run produced are named, with the bound 500 runs put on them.
    assert!(
        text.contains("not seen: complete, total, disastrous, near_total, surface, none (each below 0.762% at 95%)"),
        "{text}"
    );
}

#[test]
fn nonsense_counts_and_repeated_inputs_are_refused_plainly() {
    // Issue 14: `--threads 0` was accepted ("0 thread(s)"), `--runs 0` ran nothing, and a repeated
    // `--set` silently kept the last value.
    for (args, want) in [
        (
            &[
                "sim",
                "mercenary.battle",
                "--input",
                "examples/mercenary-infantry-clash.yaml",
                "--threads",
                "0",
            ][..],
            "--threads",
        ),
        (
            &[
                "sim",
                "mercenary.battle",
                "--input",
                "examples/mercenary-infantry-clash.yaml",
                "--runs",
                "0",
            ][..],
            "--runs",
        ),
        (
            &["roll", "starleader.to_hit", "--set", "range_hexes=3", "--set", "range_hexes=5"][..],
            "`range_hexes` is set twice",
        ),
    ] {
        let out = rulebook(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed on stdout");
    }
}

#[test]
fn an_oversized_input_file_is_refused_before_it_is_read() {
    let path = std::env::temp_dir().join(format!("rulebook-big-{}.yaml", std::process::id()));
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(80 * 1024 * 1024).unwrap(); // sparse: no disk used, and never read
    let out = rulebook(&["roll", "starleader.to_hit", "--input", path.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("limit"), "{err}");
}

#[test]
fn check_writes_diagnostics_to_stderr_and_json_to_stdout() {
    let dir = std::env::temp_dir().join(format!("rulebook-check-streams-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("tiny")).unwrap();
    std::fs::write(
        dir.join("tiny/a.rules"),
        "system tiny \"Tiny\"\nresolver r \"R\" [1] {\n  out x: int\n  set x = nope [1]\n}\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let text = rulebook(&["check", "--rules", d]);
    let json = rulebook(&["check", "--rules", d, "--json"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(text.status.code(), Some(1));
    assert!(
        text.stdout.is_empty(),
        "diagnostics belong on stderr: {}",
        String::from_utf8_lossy(&text.stdout)
    );
    assert!(stderr(&text).contains("a.rules:4:"), "{}", stderr(&text));
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["errors"], 1);
    // Each diagnostic says where it is field by field, for editors and CI annotations: `nope`
    // on line 4, columns 11 to 15 (the column after its last character).
    let d = &doc["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert!(d["code"].as_str().is_some_and(|c| c.starts_with('E')), "{d}");
    assert!(d["message"].as_str().is_some_and(|m| m.contains("nope")), "{d}");
    assert!(d["file"].as_str().is_some_and(|f| f.ends_with("tiny/a.rules")), "{d}");
    assert_eq!((&d["line"], &d["column"]), (&Value::from(4), &Value::from(11)), "{d}");
    assert_eq!((&d["end_line"], &d["end_column"]), (&Value::from(4), &Value::from(15)), "{d}");
    assert_eq!(
        d["location"].as_str(),
        Some(format!("{}:4:11", d["file"].as_str().unwrap_or("")).as_str())
    );
    assert!(d.get("help").is_some(), "{d}");
}

#[test]
fn exact_odds_that_would_run_for_hours_stop_at_their_budget_and_are_estimated_instead() {
    // Issue 14: this ran 300 s without output, under the branch limit but far from done. Issue
    // 15: past its budget, `sim` estimates instead, for as long again at most, and says so first.
    let out = rulebook(&[
        "odds",
        "mercenary.panic_fire",
        "--set",
        "skill=1",
        "--set",
        "damage_dice=20",
        "--set",
        "auto=4",
        "--set",
        "rounds=40",
        "--budget",
        "1",
    ]);
    let err = stderr(&out);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    assert!(first.starts_with("no exact odds: exact odds stopped after 1 s"), "{text}");
    assert_eq!(
        lines.next(),
        Some("estimated instead, by simulation (`rulebook sim` with the same inputs):"),
        "{text}"
    );
    assert!(text.contains("mercenary.panic_fire") && text.contains(" runs, seed 0"), "{text}");
    assert!(text.contains("95% CI ["), "{text}");
    assert!(err.contains(" runs in "), "{err}");
    // A chain of steps says how far it got in steps and states, not in one state's dice tree;
    // the estimate plays the rounds, and --json says why it is an estimate.
    let out = rulebook(&[
        "odds",
        "mercenary.battle_step",
        "--input",
        "examples/mercenary-two-a-side.yaml",
        "--set",
        "max_rounds=3",
        "--until",
        "ended",
        "--field",
        "result",
        "--budget",
        "1",
        "--json",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let why = doc["estimated_because"].as_str().unwrap_or_default();
    assert!(
        why.contains("stopped after 1 s in step ") && why.contains(" states worked out"),
        "{doc}"
    );
    assert_eq!(doc["until"]["field"], "ended", "{doc}");
    // --field result: only the battle's result is reported, and its shares add up to the runs
    // that ended (a battle of 3 rounds ends within the 200 steps allowed).
    let outcomes = doc["outcomes"].as_object().unwrap();
    assert!(outcomes.contains_key("side_a_wins") && outcomes.contains_key("draw"), "{doc}");
    assert!(
        doc["fields"]
            .as_object()
            .is_none_or(|f| f.keys().all(|k| k == "result" || k.starts_with("result."))),
        "{doc}"
    );
    assert_eq!(doc["until"]["unfinished"], 0, "{doc}");
    let total: f64 = outcomes.values().map(|o| o["probability"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-6, "{doc}");
}

/// `sim --until`: a step resolver played step after step in each run. Seeded alike, the steps
/// of `battle_step` throw the dice that `battle` (the same step in a loop) throws, so the two
/// simulations count the same results run for run; and the estimate lies around the exact odds of
/// the same chain.
#[test]
fn sim_until_plays_the_rounds_as_the_whole_procedure_does() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mercenary-two-a-side.yaml");
    // `sim mercenary.battle_step --input FILE --until ended`, then `more`.
    let steps = |more: &[&'static str]| -> Vec<&'static str> {
        [&["sim", "mercenary.battle_step", "--input", file, "--until", "ended"][..], more].concat()
    };
    let common = ["--set", "max_rounds=4", "--runs", "300", "--seed", "5", "--json"];
    let stepped = json(&[&steps(&["--steps", "1000", "--field", "result"])[..], &common[..]].concat());
    let whole = json(&[&["sim", "mercenary.battle", "--input", file][..], &common[..]].concat());
    assert_eq!(stepped["outcomes"], whole["outcomes"], "{stepped}\n{whole}");
    assert_eq!(stepped["runs"], 300);
    // Too few steps for a battle: every run is still going, and says so (`--rounds`, the old
    // spelling, still works).
    let out = rulebook(&steps(&["--rounds", "3", "--runs", "50"]));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("each step after step until `ended`"), "{text}");
    assert!(text.contains("still running after 3 steps: 50 of the runs (100.000%)"), "{text}");
    // An output that is not there cannot end the rounds: a usage error, with the nearest.
    for verb in ["sim", "odds"] {
        let out = rulebook(&[verb, "mercenary.battle_step", "--input", file, "--until", "ende"]);
        assert_eq!(out.status.code(), Some(2), "{verb}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--until: `battle_step` has no output `ende`; did you mean ended?"),
            "{verb}: {}",
            stderr(&out)
        );
    }
    // The estimate beside the exact odds of the same chain (one Battle Round, as the file says).
    let v = json(&steps(&[
        "--field",
        "result",
        "--runs",
        "2000",
        "--seed",
        "3",
        "--exact-check",
        "--json",
    ]));
    let rows = v["exact_check"].as_array().unwrap();
    let exact = |value: &str| rows.iter().find(|r| r["value"] == value).map(|r| r["exact"].clone());
    // README: army A wins 86515873667/156728328192 of one-round battles.
    assert_eq!(exact("side_a_wins"), Some(Value::from("86515873667/156728328192")), "{v}");
    assert!(rows.iter().filter(|r| r["inside"] == true).count() >= rows.len() - 1, "{v}");
}

#[test]
fn roll_and_odds_help_name_the_optional_rules_briefly() {
    // Issue 13: the help listed every option of every system with its title, 25+ ragged lines.
    for verb in ["roll", "odds"] {
        let out = rulebook(&[verb, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout).to_string();
        let section = help.split("Optional rules are inputs").nth(1).unwrap_or_else(|| panic!("{help}"));
        assert!(section.contains("`rulebook list SYSTEM`"), "{section}");
        assert!(
            section.contains("special_results") && section.contains("artillery_dash_at_5"),
            "{section}"
        );
        assert!(section.lines().count() <= 12, "{section}");
        assert!(section.lines().all(|l| l.chars().count() <= 100), "{section}");
    }
}

#[test]
fn check_without_rules_checks_the_rules_built_in() {
    // Issue 13: with no `--rules`, `check` read `./rules-src` when the working folder had one, so
    // an installed binary run in a checkout checked text it was not built from.
    let dir = std::env::temp_dir().join(format!("rulebook-check-builtin-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("rules-src/tiny")).unwrap();
    std::fs::write(dir.join("rules-src/tiny/a.rules"), "system tiny \"Tiny\"\nthis is not rules text\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .arg("check")
        .current_dir(&dir)
        .output()
        .unwrap();
    let broken = rulebook(&["check", "--rules", dir.join("rules-src").to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let files = rulebook::RULES_SOURCES.len();
    assert!(text.starts_with(&format!("ok: {files} rules files in ")), "{text}");
    // The folder itself is broken, as `--rules` shows.
    assert_eq!(broken.status.code(), Some(1), "{}", stderr(&broken));
}

#[test]
fn list_shows_list_defaults_as_brackets_and_optional_rules_once() {
    // Issue 13: list defaults showed as `""`, and optional rules as
    // `bool = false [optional rule] — optional rule: ...`.
    for system in ["starleader", "t5", "mercenary"] {
        let out = rulebook(&["list", system]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            assert!(line.matches("optional rule").count() <= 1, "{system}: {line}");
            if line.contains(" list of ") && line.contains(" = ") {
                assert!(!line.contains("= \"\""), "{system}: {line}");
            }
        }
    }
    let text = String::from_utf8_lossy(&rulebook(&["list", "starleader.character"]).stdout).to_string();
    let gadgets = text.lines().find(|l| l.trim_start().starts_with("gadgets ")).unwrap();
    assert!(gadgets.contains("list of key of gadgets = [] — "), "{gadgets}");
    let armor = text.lines().find(|l| l.trim_start().starts_with("armor ")).unwrap();
    assert!(armor.contains("key of armors or none = none — "), "{armor}");
    let text = String::from_utf8_lossy(&rulebook(&["list", "starleader.record_damage"]).stdout).to_string();
    let stunners = text.lines().find(|l| l.trim_start().starts_with("stunners ")).unwrap();
    assert!(
        stunners.contains("bool = false — optional rule: Stunner fire and stun damage"),
        "{stunners}"
    );
}

#[test]
fn an_unknown_weapon_is_named_as_such_with_the_key_meant() {
    // Issue 13: `--set weapon=Banana` said "unknown key of scenario_pistols|scenario_rifles|...".
    let out = rulebook(&["roll", "starleader.fire", "--set", "weapon=Banana"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with("error: unknown weapon `Banana`; "), "{err}");
    assert!(!err.contains("scenario_pistols"), "{err}");
    // A plausible spelling of `Ghazi 10/7`: `/` is kept by the matching (`6/-3` is not `6/3`),
    // so it is not accepted, but it is the one suggestion.
    let out = rulebook(&["roll", "starleader.fire", "--set", "weapon=Ghazi 10-7"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "error: unknown weapon `Ghazi 10-7`; did you mean `Ghazi 10/7`\n");
    // The book's misspellings are aliases: accepted, but suggested as the right spelling.
    let out = rulebook(&[
        "roll",
        "starleader.character",
        "--set",
        "iq=11",
        "--set",
        "prowess=12",
        "--set",
        "emotions=9",
        "--set",
        "gadgets=Vapcck",
    ]);
    let err = stderr(&out);
    assert!(err.contains("unknown gadgets `Vapcck`; did you mean `Vacpak`"), "{err}");
    assert!(!err.contains("Vapcak"), "{err}");
}

#[test]
fn odds_tables_align_whatever_the_label_widths() {
    // Issue 13: a long outcome label, list outcomes and negative numbers in one table.
    let dir = std::env::temp_dir().join(format!("rulebook-odds-align-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("tiny")).unwrap();
    let long = "a_very_long_outcome_label_wider_than_every_other_label_in_this_table";
    std::fs::write(
        dir.join("tiny/a.rules"),
        format!(
            "system tiny \"Tiny\"\nenum verdict \"Verdict\" [1] {{ ok, {long} }}\nresolver r \"R\" [1] {{\n  out v: verdict\n  out n: int\n  out hits: list int\n  roll d = 1d6 [1]\n  set n = 2 - d\n  if d >= 5 {{\n    set v = {long}\n    set hits = [d, 0 - d]\n  }} else {{\n    set v = ok\n    set hits = []\n  }}\n}}\n"
        ),
    )
    .unwrap();
    let out = rulebook(&["odds", "tiny.r", "--rules", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains(long) && text.contains("[6, -6]") && text.contains("\n  -4 ") && text.contains("  v  "),
        "{text}"
    );
    // Every table (a run of rows with a percentage): the fractions end in one column, and so do
    // the percentages.
    let mut tables = 0;
    for block in text.split("\n\n") {
        let rows: Vec<&str> = block.lines().filter(|l| l.starts_with("  ") && l.contains('%')).collect();
        if rows.is_empty() {
            continue;
        }
        tables += 1;
        let column = |l: &str, needle: char| l.chars().position(|c| c == needle);
        let percent: Vec<_> = rows.iter().map(|l| column(l, '%')).collect();
        assert!(percent.windows(2).all(|w| w[0] == w[1]), "{block}");
        let fraction_end: Vec<_> = rows
            .iter()
            .map(|l| {
                let before_percent: String = l.chars().take(column(l, '%').unwrap()).collect();
                let trimmed = before_percent.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').trim_end();
                trimmed.chars().count()
            })
            .collect();
        assert!(fraction_end.windows(2).all(|w| w[0] == w[1]), "{block}");
    }
    assert_eq!(tables, 4, "one table per varying field and every combination: {text}");
}

/// "How lucky was that?": `odds --observed FIELD=VALUE` gives the exact chance of at least, at
/// most and exactly that value. A Combat 3000 kill roll is 2d10 + effect: with effect 1 a total of
/// 19 or more needs 18+ on 2d10 (6/100), exactly 19 needs 18 (3/100); a total no roll can give
/// still has its odds; a field or value that does not exist is a usage error naming the choices.
#[test]
fn odds_observed_gives_the_chance_of_doing_at_least_that_well() {
    let base = ["odds", "combat3000.kill", "--set", "effect=1"];
    let with = |obs: &str| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend(["--observed", obs, "--json"]);
        json(&a.iter().map(|s| &**s).collect::<Vec<_>>())["observed"].clone()
    };
    let o = with("total=19");
    assert_eq!(
        (num(&o["at_least"]), num(&o["at_most"]), num(&o["exactly"])),
        ("3/50".into(), "97/100".into(), "3/100".into())
    );
    let o = with("total=2");
    assert_eq!((num(&o["at_least"]), num(&o["exactly"])), ("1/1".into(), "0/1".into()));
    let o = with("killed=true");
    assert_eq!(num(&o["at_least"]), num(&o["exactly"]));
    let out = rulebook(&["odds", "combat3000.kill", "--set", "effect=1", "--observed", "totl=3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no field `totl`; did you mean total"), "{}", stderr(&out));
    let out = rulebook(&["odds", "combat3000.kill", "--set", "effect=1", "--observed", "killed=maybe"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("it takes false, true"), "{}", stderr(&out));
    let text = rulebook(&["odds", "combat3000.kill", "--set", "effect=1", "--observed", "total=19"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("observed total = 19:\n  at least 19    3/50    6.00%"), "{text}");
}

#[test]
fn sim_precision_runs_until_every_interval_is_narrow_enough_whatever_the_threads() {
    let args = |threads: &'static str| -> Vec<&'static str> {
        vec![
            "sim",
            "starleader.to_hit",
            "--set",
            "weapon=Ghazi 10/7",
            "--precision",
            "1%",
            "--seed",
            "11",
            "--threads",
            threads,
            "--json",
        ]
    };
    let one = rulebook(&args("1"));
    assert!(one.status.success(), "{}", stderr(&one));
    assert_eq!(
        one.stdout,
        rulebook(&args("3")).stdout,
        "where --precision stops must not depend on --threads"
    );
    let v: Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(v["precision"]["met"], Value::Bool(true), "{v}");
    assert_eq!(v["precision"]["target"].as_f64(), Some(0.01));
    // p near 1/3 needs about 1.96² p(1-p) / 0.01² = 8,600 runs: more than the first batch.
    let runs = v["runs"].as_u64().unwrap();
    assert!((8_000..=20_000).contains(&runs), "{runs} runs");
    for (value, o) in v["outcomes"].as_object().unwrap() {
        let ci = o["ci95"].as_array().unwrap();
        let half = (ci[1].as_f64().unwrap() - ci[0].as_f64().unwrap()) / 2.0;
        assert!(half <= 0.01, "{value}: ±{half}");
    }
    // The same report comes from --runs with the number of runs it took.
    let runs_text = runs.to_string();
    let fixed = json(&[
        "sim",
        "starleader.to_hit",
        "--set",
        "weapon=Ghazi 10/7",
        "--runs",
        &runs_text,
        "--seed",
        "11",
        "--json",
    ]);
    assert_eq!(fixed["outcomes"], v["outcomes"]);
    assert_eq!(fixed["means"], v["means"]);
    // Text says how many runs it took.
    let text = rulebook(&[
        "sim",
        "starleader.to_hit",
        "--set",
        "weapon=Ghazi 10/7",
        "--precision",
        "0.01",
        "--seed",
        "11",
    ]);
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(
        text.contains(&format!("precision: every probability within ±1.000% at 95% after {runs} runs")),
        "{text}"
    );
}

#[test]
fn sim_precision_says_when_the_most_runs_allowed_were_not_enough() {
    let v = json(&[
        "sim",
        "starleader.to_hit",
        "--set",
        "weapon=Ghazi 10/7",
        "--precision",
        "0.1%",
        "--runs",
        "3000",
        "--seed",
        "1",
        "--json",
    ]);
    assert_eq!(v["runs"].as_u64(), Some(3000));
    assert_eq!(v["precision"]["met"], Value::Bool(false));
    assert!(v["precision"]["widest"]["half_width"].as_f64().unwrap() > 0.001);
    let text = rulebook(&[
        "sim",
        "starleader.to_hit",
        "--set",
        "weapon=Ghazi 10/7",
        "--precision",
        "0.1%",
        "--runs",
        "3000",
    ]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("precision: NOT reached"));
    for bad in ["0", "-1%", "60%", "abc"] {
        let arg = format!("--precision={bad}");
        let out = rulebook(&["sim", "starleader.to_hit", &arg]);
        assert_eq!(out.status.code(), Some(2), "--precision {bad}");
        assert!(stderr(&out).contains("--precision"), "{}", stderr(&out));
    }
}

#[test]
fn sim_exact_check_puts_each_exact_value_beside_its_estimate() {
    let args = [
        "sim",
        "starleader.to_hit",
        "--set",
        "weapon=Ghazi 10/7",
        "--runs",
        "20000",
        "--seed",
        "11",
        "--exact-check",
    ];
    let v = json(&[&args[..], &["--json"]].concat());
    let rows = v["exact_check"].as_array().unwrap();
    let row = |value: &str| {
        rows.iter()
            .find(|r| r["field"] == "result" && r["value"] == value)
            .unwrap_or_else(|| panic!("no {value}: {v}"))
    };
    // The exact odds of a hit with a Ghazi 10/7 at the default range: 145/432.
    assert_eq!(row("hit")["exact"], "145/432");
    assert_eq!(row("miss")["exact"], "287/432");
    assert_eq!(row("jammed")["exact"], "0/1");
    assert_eq!(row("hit")["estimate"], v["outcomes"]["hit"]["probability"]);
    for r in rows {
        let (lo, hi) = (r["ci95"][0].as_f64().unwrap(), r["ci95"][1].as_f64().unwrap());
        let exact = match r["exact"].as_str().unwrap().split_once('/') {
            Some((n, d)) => n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap(),
            None => panic!("{r}"),
        };
        assert_eq!(r["inside"], Value::Bool(lo <= exact && exact <= hi), "{r}");
    }
    let text = rulebook(&args);
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(text.contains("result = hit       33.565%"), "{text}");
    assert!(text.contains("4 of 4 exact values lie inside their 95% intervals"), "{text}");
    // A battle is past exact odds: the error says so, and nothing else is printed.
    let out = rulebook(&[
        "sim",
        "mercenary.battle",
        "--input",
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mercenary-infantry-clash.yaml"),
        "--runs",
        "50",
        "--exact-check",
        "--budget",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("--exact-check: too many dice outcomes"), "{}", stderr(&out));
}

/// `odds --field F` reports only that output, merging outcomes that agree on it: the Combat 3000
/// kill roll's `--field killed` gives two outcomes, `killed` the only field, and the chance of a
/// kill is the sum over every whole outcome that kills. An output that does not exist is a usage
/// error, before anything is worked out, naming the nearest one.
#[test]
fn odds_field_reports_only_the_outputs_asked_for() {
    let doc = json(&["odds", "combat3000.kill", "--set", "effect=1", "--field", "killed", "--json"]);
    let outcomes = doc["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 2, "{doc}");
    let killed = outcomes.iter().find(|o| o["outcome"]["killed"] == true).unwrap();
    assert_eq!(killed["outcome"].as_object().unwrap().len(), 1, "{doc}");
    let whole = json(&["odds", "combat3000.kill", "--set", "effect=1", "--json"]);
    let mut sum = num_rational::BigRational::from_integer(0.into());
    for o in whole["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["outcome"]["killed"] == true)
    {
        sum += num(&o["probability"]).parse::<num_rational::BigRational>().unwrap();
    }
    assert_eq!(num(&killed["probability"]), sum.to_string());
    let out = rulebook(&["odds", "combat3000.kill", "--set", "effect=1", "--field", "kiled"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("has no output `kiled`; did you mean killed"),
        "{}",
        stderr(&out)
    );
}

/// Issue 42: diagnostics name paths the user can open. From the folder above it, `check --rules
/// rules/house` gave `house/sys/f.rules` (the folder's last name only); an absolute `--rules` gave
/// the same. Paths are now relative to the working folder when the rules are under it, absolute
/// otherwise; and one system's folder given as `--rules` says to pass the folder that holds it.
#[test]
fn diagnostic_paths_open_from_where_the_command_runs() {
    let base = std::env::temp_dir().join(format!("rulebook-paths-{}", std::process::id()));
    let sys = base.join("rules/house/sys");
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::write(
        sys.join("f.rules"),
        "system sys \"S\"\nresolver r \"R\" [1] {\n  out x: int\n  set x = y\n}\n",
    )
    .unwrap();
    let base = std::fs::canonicalize(&base).unwrap();
    let elsewhere = base.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let file_of = |rules: &str, from: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(["check", "--json", "--rules", rules])
            .current_dir(from)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (v["diagnostics"][0]["file"].as_str().unwrap_or("").to_string(), stderr(&out))
    };
    assert_eq!(file_of("rules/house", &base).0, "rules/house/sys/f.rules");
    let absolute = base.join("rules/house");
    assert_eq!(file_of(absolute.to_str().unwrap(), &base).0, "rules/house/sys/f.rules");
    // Not under the working folder: absolute, whether given so or not.
    let want = format!("{}/sys/f.rules", absolute.display());
    assert_eq!(file_of(absolute.to_str().unwrap(), &elsewhere).0, want);
    assert_eq!(file_of("../rules/house", &elsewhere).0, want);
    let (_, err) = file_of("rules/house/sys", &base);
    assert!(
        err.contains("rules/house/sys is one system's folder") && err.contains("pass the folder that holds it, rules/house"),
        "{err}"
    );
    std::fs::remove_dir_all(&base).ok();
}

/// Issue 42: `list` said `--set NAME=on` while `--help` said `=true`; one spelling everywhere.
#[test]
fn optional_rules_are_switched_on_one_way_everywhere() {
    for args in [&["list", "starleader"][..], &["roll", "--help"], &["odds", "--help"]] {
        let out = rulebook(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("--set NAME=true"), "{args:?}: {text}");
        assert!(!text.contains("=on"), "{args:?}: {text}");
    }
}
