//! The rules editor's loop with the installed binary alone: `--rules DIR` runs a folder through
//! the interpreter with the same bytes as the compiled rules; `export` gives a folder to edit;
//! `diff` shows what an edit does to the odds; broken rules are refused with their diagnostics.

mod common;

use common::rulebook;
use std::path::PathBuf;

fn text(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A fresh folder under the target directory (no temp-dir crate needed; each test its own name).
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn every_verb_prints_the_same_bytes_through_the_interpreter() {
    let cases: &[&[&str]] = &[
        &["list"],
        &["list", "starleader"],
        &["list", "mercenary.battle", "--json"],
        &[
            "roll",
            "starleader.fire",
            "--set",
            "weapon=Ghazi 10/7",
            "--set",
            "special_results=true",
            "--seed",
            "7",
        ],
        &[
            "roll",
            "starleader.fire",
            "--set",
            "weapon=Ghazi 10/7",
            "--dice",
            "6,6,6,5,4,3",
            "--json",
        ],
        &["roll", "t5.combat", "--input", "examples/t5-combat-squad.yaml", "--seed", "3"],
        &[
            "roll",
            "mercenary.battle",
            "--input",
            "examples/mercenary-combined-arms.yaml",
            "--seed",
            "7",
            "--full",
        ],
        &[
            "odds",
            "starleader.fire",
            "--set",
            "weapon=Ghazi 10/7",
            "--set",
            "armor_rating=5",
            "--set",
            "heavy_hits=true",
        ],
        &["odds", "t5.btsd", "--json"],
        &["odds", "mercenary.unit_attack", "--json"],
        &[
            "sim",
            "mercenary.battle",
            "--input",
            "examples/mercenary-infantry-clash.yaml",
            "--runs",
            "200",
            "--seed",
            "7",
            "--threads",
            "2",
        ],
        // Errors too: the same message for the same mistake.
        &["roll", "starleader.fire", "--set", "weapon=Banana"],
        &["odds", "starleader.to_hit", "--set", "range_hexes=-4"],
    ];
    for args in cases {
        let compiled = rulebook(args);
        let mut with_rules = args.to_vec();
        with_rules.extend(["--rules", "rules-src"]);
        let interpreted = rulebook(&with_rules);
        assert_eq!(compiled.status.code(), interpreted.status.code(), "exit code of {args:?}");
        assert_eq!(text(&compiled), text(&interpreted), "stdout of {args:?}");
        // stderr too, but for `sim`'s timing line (wall-clock, different on every run).
        let stderr = |o: &std::process::Output| -> String {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .filter(|l| !l.contains(" runs in "))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(stderr(&compiled), stderr(&interpreted), "stderr of {args:?}");
        assert!(
            !text(&compiled).is_empty() || !compiled.stderr.is_empty(),
            "{args:?} printed nothing"
        );
    }
}

#[test]
fn export_edit_odds_and_diff_without_a_rebuild() {
    let dir = scratch("editor-loop");
    let d = dir.to_string_lossy().to_string();
    let out = rulebook(&["export", &d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Exporting again would overwrite the editor's work: refused.
    let again = rulebook(&["export", &d]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    // The README's edit: the Ghazi 10/7 gets a density of 11.
    let weapons = dir.join("starleader/weapons.rules");
    let before = std::fs::read_to_string(&weapons).unwrap();
    let line = before.lines().find(|l| l.trim_start().starts_with("\"Ghazi 10/7\"")).unwrap();
    let edited_line = line.replacen("| 10 |", "| 11 |", 1);
    assert_ne!(line, edited_line, "the row's density cell was not found");
    std::fs::write(&weapons, before.replacen(line, &edited_line, 1)).unwrap();

    assert!(rulebook(&["check", "--rules", &d]).status.success());
    let odds = text(&rulebook(&[
        "odds",
        "starleader.to_hit",
        "--set",
        "weapon=Ghazi 10/7",
        "--rules",
        &d,
    ]));
    assert!(odds.contains("575/1296"), "{odds}");

    let diff = text(&rulebook(&[
        "diff",
        "builtin",
        &d,
        "starleader.to_hit",
        "--set",
        "weapon=Ghazi 10/7",
    ]));
    for want in [
        "145/432  33.56%",
        "575/1296  44.37%",
        "+10.80 pp",
        "-10.80 pp",
        "unchanged: raw_roll",
    ] {
        assert!(diff.contains(want), "diff lacks `{want}`:\n{diff}");
    }
    // What the README shows for this edit, line for line.
    readme_review_shows_what_it_says(0, &d);
    let all = text(&rulebook(&["diff", "builtin", &d, "--all"]));
    assert!(all.contains("starleader.pistols row \"Ghazi 10/7\": density 10 → 11"), "{all}");
    assert!(all.contains("starleader.to_hit") && all.contains("`result` 10.80% moved"), "{all}");
    // Unchanged rules move nothing.
    let same = text(&rulebook(&["diff", "builtin", "rules-src", "--all"]));
    assert!(same.contains("what changed (0):") && same.contains("calls (0 of"), "{same}");
    let json: serde_json::Value =
        serde_json::from_slice(&rulebook(&["diff", "builtin", &d, "starleader.to_hit", "--set", "weapon=Ghazi 10/7", "--json"]).stdout)
            .unwrap();
    let hit = json["fields"]["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["value"] == "hit")
        .unwrap()
        .clone();
    assert_eq!(
        (hit["before"].as_str(), hit["after"].as_str(), hit["change"].as_str()),
        (Some("145/432"), Some("575/1296"), Some("35/324"))
    );
}

#[test]
fn broken_rules_are_refused_with_their_diagnostics() {
    let dir = scratch("broken-rules");
    std::fs::create_dir_all(dir.join("tiny")).unwrap();
    std::fs::write(
        dir.join("tiny/a.rules"),
        "system tiny \"Tiny\"\nresolver r \"R\" [1] {\n  out x: int\n  set x = nope [1]\n}\n",
    )
    .unwrap();
    let d = dir.to_string_lossy().to_string();
    let out = rulebook(&["odds", "tiny.r", "--rules", &d]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a.rules:4:") && err.contains("nope"), "{err}");
    assert!(out.stdout.is_empty(), "nothing on stdout when refused");
    let missing = rulebook(&["list", "--rules", "no/such/folder"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/folder"));
}

#[test]
fn the_readme_diagnostic_is_what_check_prints() {
    // README step 4 shows the diagnostic for a misspelled column; it must not drift from the truth.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let shown = readme
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("error[E0101]"))
        .expect("README shows a diagnostic");
    let dir = scratch("readme-diagnostic").join("my-rules");
    let d = dir.to_string_lossy().to_string();
    assert!(rulebook(&["export", &d]).status.success());
    let fire = dir.join("starleader/fire.rules");
    let text = std::fs::read_to_string(&fire).unwrap();
    std::fs::write(&fire, text.replacen("weapon.density", "weapon.densty", 1)).unwrap();
    // Run from the folder that holds `my-rules`, as the README does: paths open from there.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(["check", "--rules", "my-rules"])
        .current_dir(dir.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let printed = format!("{}{}", text_of(&out.stdout), text_of(&out.stderr));
    assert!(printed.contains(shown), "README shows\n{shown}\nbut check printed\n{printed}");
    assert!(printed.contains("help: did you mean `density`?"), "{printed}");
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

#[test]
fn the_readme_erratum_review_shows_what_it_says() {
    // README: the Mercenary Artillery row with its "-" moved from distance 0 to 5 (ambiguity B8).
    let dir = scratch("erratum");
    let d = dir.to_string_lossy().to_string();
    assert!(rulebook(&["export", &d]).status.success());
    let attack = dir.join("mercenary/attack.rules");
    let text = std::fs::read_to_string(&attack).unwrap();
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("artillery") && l.contains("|  - | -1 |"))
        .expect("the Artillery row");
    std::fs::write(&attack, text.replacen(row, "  artillery      | -1 |  1 |  2 |  2 | 2 |  -", 1)).unwrap();
    let all = text_of(&rulebook(&["diff", "builtin", &d, "--all"]).stdout);
    assert!(
        all.contains("mercenary.range_attack_modifiers row \"artillery\": [0] – → -1, [1] -1 → 1, [2] 1 → 2, [5] 2 → –"),
        "{all}"
    );
    let sets = [
        "attacker=artillery",
        "defender=infantry",
        "skill=2",
        "range=1",
        "attacker_size=3",
        "attacker_tl=12",
        "defender_tl=12",
        "morale=6",
    ];
    let mut args = vec!["diff", "builtin", d.as_str(), "mercenary.unit_attack"];
    for s in &sets {
        args.extend(["--set", s]);
    }
    readme_review_shows_what_it_says(1, &d);
    let one = text_of(&rulebook(&args).stdout);
    assert!(one.contains("failed      5/18  27.78%   1/12   8.33%  -19.44 pp"), "{one}");
    assert!(one.contains("succeeded  13/18  72.22%  11/12  91.67%  +19.44 pp"), "{one}");
}

#[test]
fn an_unterminated_string_is_one_error_where_it_starts() {
    // Issue 13: a missing closing quote on the Ghazi 10/7 row gave "unexpected `"Ghazi`" and eight
    // more errors in other files, one of them "did you mean `Ghazi 10/8`?".
    let dir = scratch("unterminated");
    let d = dir.to_string_lossy().to_string();
    assert!(rulebook(&["export", &d]).status.success());
    let weapons = dir.join("starleader/weapons.rules");
    let text = std::fs::read_to_string(&weapons).unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with("\"Ghazi 10/7\"")).unwrap();
    std::fs::write(&weapons, text.replacen(line, &line.replacen("10/7\"", "10/7 ", 1), 1)).unwrap();
    let out = rulebook(&["check", "--rules", &d]);
    assert_eq!(out.status.code(), Some(1));
    let err = text_of(&out.stderr);
    assert!(err.starts_with("error[E0001]: unterminated string at "), "{err}");
    let at = text.lines().position(|l| l == line).unwrap() + 1;
    let col = line.find('"').unwrap() + 1;
    assert!(err.contains(&format!("/starleader/weapons.rules:{at}:{col}\n")), "{err}");
    assert!(err.contains("╰── unterminated string starting here"), "{err}");
    assert!(err.contains("\n1 error, 0 warnings\n"), "{err}");
    assert!(!err.contains("Ghazi 10/8"), "{err}");
}

/// Runs the README's `n`th code block of `$ rulebook ... my-rules ...` commands (0: the density
/// edit, 1: the erratum review) on `dir`, the folder with that edit made, and demands every line
/// the README shows under each command among the lines it prints.
fn readme_review_shows_what_it_says(n: usize, dir: &str) {
    let commands = common::readme_commands();
    let mut blocks: Vec<Option<usize>> = commands
        .iter()
        .filter(|c| !c.output.is_empty() && c.args.iter().any(|a| a == "my-rules"))
        .map(|c| c.block)
        .collect();
    blocks.dedup();
    assert_eq!(blocks.len(), 2, "the README's two reviews of an edit: {blocks:?}");
    for c in commands.iter().filter(|c| c.block == blocks[n] && !c.output.is_empty()) {
        let args: Vec<&str> = c.args.iter().map(|a| if a == "my-rules" { dir } else { a.as_str() }).collect();
        let out = rulebook(&args);
        assert!(out.status.success(), "README.md:{}: {}", c.line, text_of(&out.stderr));
        let printed = text_of(&out.stdout);
        let lines: Vec<&str> = printed.lines().map(str::trim_end).collect();
        for shown in &c.output {
            assert!(
                lines.contains(&shown.as_str()),
                "README.md:{} shows `{shown}`, which `rulebook {}` does not print:\n{printed}",
                c.line,
                c.args.join(" ")
            );
        }
    }
}

#[test]
fn diff_all_lists_modifier_and_cell_edits_and_their_readers() {
    // Issue 42: a modifier's value and a gadget's to-hit cell, each once reported as "0 of 270".
    let dir = scratch("modifier-edit");
    let d = dir.to_string_lossy().to_string();
    assert!(rulebook(&["export", &d]).status.success());
    let edit = |file: &str, from: &str, to: &str| {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(from).count(), 1, "{from:?} in {file}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    };
    edit("starleader/fire.rules", "+3 \"close range, pistol\"", "+2 \"close range, pistol\"");
    edit(
        "starleader/gadgets.rules",
        "\"Syter\"       | 6 |  0.0 |  300 | 1 |",
        "\"Syter\"       | 6 |  0.0 |  300 | 2 |",
    );
    let all = text(&rulebook(&["diff", "builtin", &d, "--all"]));
    for want in [
        "what changed (2):",
        "starleader.gadgets row \"Syter\": to_hit 1 → 2",
        "starleader.to_hit: modifier \"close range, pistol\": changed",
        "was  rules-src/starleader/fire.rules:100",
        "+3 \"close range, pistol\" when range_hexes <= 2 and weapon is pistol [6.3]",
        "+2 \"close range, pistol\" when range_hexes <= 2 and weapon is pistol [6.3]",
        "starleader.to_hit              its own rules; table gadgets",
        "starleader.fire                table gadgets; calls to_hit",
        // The default situation takes the edited gadget, so the odds show the edit.
        "starleader.fire                `result` 10.80% moved",
    ] {
        assert!(all.contains(want), "diff --all lacks `{want}`:\n{all}");
    }
    let json: serde_json::Value = serde_json::from_slice(&rulebook(&["diff", "builtin", &d, "--all", "--json"]).stdout).unwrap();
    let kinds: Vec<&str> = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["row", "resolver"]);
    let fire = json["readers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resolver"] == "starleader.fire")
        .unwrap();
    assert_eq!(fire["default_situation"]["status"], "moved", "{fire}");
}

/// docs/dsl.md, the editor's guide: every `rulebook` command it shows runs, and under each
/// `$ rulebook` line the lines it shows are lines the command prints, with the walkthrough's
/// density edit made in `my-rules` (commands without `--rules my-rules` read the built-in rules,
/// as the guide says). Issue 42, point 4.
#[test]
fn the_rules_guide_walkthrough_shows_what_it_says() {
    let dir = scratch("dsl-guide");
    let my_rules = dir.join("my-rules");
    let d = my_rules.to_string_lossy().to_string();
    let commands = common::doc_commands("docs/dsl.md");
    assert!(commands.len() >= 10, "{commands:#?}");
    assert_eq!(
        commands
            .iter()
            .find(|c| c.args.iter().any(|a| a == "my-rules"))
            .map(|c| c.args[0].as_str()),
        Some("export")
    );
    for c in &commands {
        let args: Vec<&str> = c
            .args
            .iter()
            .map(|a| if a == "my-rules" { d.as_str() } else { a.as_str() })
            .collect();
        if c.args[0] == "export" {
            // Each export the guide shows starts from a new folder, as a reader's first would.
            let _ = std::fs::remove_dir_all(&my_rules);
        }
        let out = rulebook(&args);
        assert!(
            out.status.success(),
            "docs/dsl.md:{}: rulebook {}\n{}",
            c.line,
            c.args.join(" "),
            text_of(&out.stderr)
        );
        if c.args[0] == "export" {
            // The guide's edit, made once the folder exists.
            let weapons = my_rules.join("starleader/weapons.rules");
            let before = std::fs::read_to_string(&weapons).unwrap();
            let line = before.lines().find(|l| l.trim_start().starts_with("\"Ghazi 10/7\"")).unwrap();
            std::fs::write(&weapons, before.replacen(line, &line.replacen("| 10 |", "| 11 |", 1), 1)).unwrap();
        }
        let printed = text_of(&out.stdout).replace(&d, "my-rules");
        let lines: Vec<&str> = printed.lines().map(str::trim_end).collect();
        for shown in &c.output {
            assert!(
                lines.contains(&shown.as_str()),
                "docs/dsl.md:{} shows `{shown}`, which `rulebook {}` does not print:\n{printed}",
                c.line,
                c.args.join(" ")
            );
        }
    }
}
