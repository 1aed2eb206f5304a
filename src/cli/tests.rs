//! CLI tests: every verb run end to end through `run` against the hand-built `fixture` registry,
//! asserting on exact text, parsed JSON, stderr and exit codes. Text snapshots live in
//! /snapshots/cli at the workspace root.

use super::fixture::SYSTEMS;
use super::run;
use rulebook_runtime::Prob;
use std::process::ExitCode;

fn cli(args: &[&str]) -> (ExitCode, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let argv = std::iter::once("rulebook").chain(args.iter().copied());
    let code = run(&SYSTEMS, argv, &mut out, &mut err);
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = cli(args);
    assert_eq!(code, ExitCode::SUCCESS, "{args:?}: {err}");
    assert_eq!(err, "", "{args:?}");
    out
}

fn fails(args: &[&str], expected: u8) -> String {
    let (code, out, err) = cli(args);
    assert_eq!(code, ExitCode::from(expected), "{args:?}: stdout {out:?} stderr {err:?}");
    assert_eq!(out, "", "{args:?}");
    err
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

macro_rules! snap {
    ($name:expr, $value:expr) => {
        insta::with_settings!({snapshot_path => "../../snapshots/cli", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

/// A file in the temp dir unique to this test, removed on drop.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("rulebook-cli-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn list_systems_text_and_json() {
    assert_eq!(
        ok(&["list"]),
        "skirmish  Skirmish Test Rules  (3 resolvers, 2 tables, 1 optional rule)\n\n\
         run `rulebook list SYSTEM` for a system's resolvers and tables\n"
    );
    let v = json(&ok(&["list", "--json"]));
    assert_eq!(v["systems"][0]["name"], "skirmish");
    assert_eq!(v["systems"][0]["resolvers"], serde_json::json!(["attack", "burst", "volley"]));
}

#[test]
fn list_system_text() {
    snap!("list_skirmish", ok(&["list", "skirmish"]));
}

#[test]
fn list_system_json_has_types_defaults_and_switches() {
    let v = json(&ok(&["list", "skirmish", "--json"]));
    let inputs = &v["resolvers"][0]["inputs"];
    assert_eq!(inputs[0]["name"], "target");
    assert_eq!(inputs[0]["type"], "int 2..=12");
    assert_eq!(inputs[0]["default"], serde_json::Value::Null);
    assert_eq!(inputs[2]["type"], "key of weapons");
    assert_eq!(inputs[3]["type"], "Stance (careful|reckless)");
    assert_eq!(inputs[4]["optional_rule"], true);
    assert_eq!(inputs[4]["default"], "off");
    // Types as data too, for building a form.
    assert_eq!(inputs[0]["type_info"], serde_json::json!({"kind": "int", "min": 2, "max": 12}));
    assert_eq!(inputs[2]["type_info"]["kind"], "key");
    assert_eq!(inputs[2]["type_info"]["tables"][0]["name"], "weapons");
    assert_eq!(inputs[2]["type_info"]["choices"], inputs[2]["type_info"]["tables"][0]["keys"]);
    assert_eq!(
        inputs[3]["type_info"],
        serde_json::json!({"kind": "enum", "name": "Stance", "choices": ["careful", "reckless"]})
    );
    assert_eq!(inputs[4]["type_info"], serde_json::json!({"kind": "bool"}));
    assert_eq!(inputs[4]["default_value"], false);
    assert_eq!(inputs[0]["default_value"], serde_json::Value::Null);
    assert_eq!(v["resolvers"][0]["outputs"][1]["name"], "damage");
    assert_eq!(v["tables"][1]["kind"], "range");
    assert_eq!(v["tables"][0]["rows"], 2);
    assert_eq!(v["options"][0]["title"], "Heroic Fire");
}

#[test]
fn list_one_resolver() {
    let out = ok(&["list", "skirmish.attack"]);
    assert!(
        out.starts_with("skirmish.attack — 2.0 Attack  [Skirmish 2.0]\n  One attack roll and its damage.\n"),
        "{out}"
    );
    assert!(
        out.contains("heroic_fire  bool = off [optional rule] — +1 to hit  [Skirmish 9.1]"),
        "{out}"
    );
    assert!(!out.contains("burst"));
}

#[test]
fn list_unknown_names_suggest() {
    let err = fails(&["list", "skirmsh"], 2);
    assert_eq!(err, "error: unknown system `skirmsh`; did you mean `skirmish`\n");
    let err = fails(&["list", "skirmish.atack"], 2);
    assert_eq!(err, "error: unknown resolver `skirmish.atack`; did you mean `skirmish.attack`\n");
}

#[test]
fn roll_scripted_text() {
    let out = ok(&[
        "roll",
        "skirmish.attack",
        "--set",
        "target=7",
        "--set",
        "weapon=ghazi 10/7",
        "--dice",
        "3,4,5",
    ]);
    snap!("roll_scripted", out);
}

#[test]
fn roll_reports_unused_faces() {
    let (code, out, err) = cli(&["roll", "skirmish.attack", "--set", "target=12", "--dice", "1,1,6,6"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(err, "warning: 2 scripted face(s) not used: 6,6\n");
    assert!(out.contains("  result: miss\n  damage: 0\n"), "{out}");
}

#[test]
fn roll_seeded_is_reproducible() {
    let args = ["roll", "skirmish.attack", "--set", "target=7", "--seed", "7"];
    let first = ok(&args);
    assert_eq!(first, ok(&args));
    assert!(first.contains("dice: seed 7\n"));
    // Seed 7's first d6 faces are 6 and 5 (pinned in the runtime's dice tests): a hit.
    assert!(first.contains("roll to-hit 2d6: [6, 5] = 11"), "{first}");
    let default = ok(&["roll", "skirmish.attack", "--set", "target=7"]);
    assert!(
        default.contains("dice: seed 0 (the default; choose with --seed N or --dice F,F,...)\n"),
        "{default}"
    );
    assert_eq!(
        default.replace("seed 0 (the default; choose with --seed N or --dice F,F,...)", "seed 0"),
        ok(&["roll", "skirmish.attack", "--set", "target=7", "--seed", "0"])
    );
}

#[test]
fn roll_json_shape() {
    let v = json(&ok(&["roll", "skirmish.attack", "--set", "target=7", "--dice", "3,4,5", "--json"]));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["format_version", "resolver", "inputs", "outcome", "trace"]);
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["resolver"], "skirmish.attack");
    let input_names: Vec<&str> = v["inputs"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(input_names, ["target", "modifier", "weapon", "stance", "heroic_fire"]);
    assert_eq!(v["inputs"]["weapon"], "Vacpak");
    assert_eq!(v["outcome"], serde_json::json!({"result": "hit", "damage": 5}));
    assert_eq!(v["trace"][0]["kind"], "enter");
    assert_eq!(v["trace"][1]["faces"], serde_json::json!([3, 4]));
    assert_eq!(v["trace"].as_array().unwrap().len(), 6);
}

#[test]
fn roll_input_errors_exit_2() {
    let err = fails(&["roll", "skirmish.attack"], 2);
    assert_eq!(err, "error: missing required input `target` (int 2..=12)\n");
    let err = fails(&["roll", "skirmish.attack", "--set", "target=13"], 2);
    assert_eq!(err, "error: target = 13 is out of range 2..=12\n");
    let err = fails(&["roll", "skirmish.attack", "--set", "traget=7"], 2);
    assert_eq!(err, "error: unknown input `traget`; did you mean `target`\n");
    let err = fails(&["roll", "skirmish.attack", "--set", "target=7", "--set", "weapon=Ghazzi 10/7"], 2);
    assert_eq!(err, "error: unknown weapon `Ghazzi 10/7`; did you mean `Ghazi 10/7`\n");
    let err = fails(&["roll", "skirmish.attack", "--set", "target=7", "--dice", "3"], 2);
    assert!(err.starts_with("error: dice script ran out"), "{err}");
    let err = fails(&["roll", "skirmish.attack", "--set", "target=7", "--dice", "3,7"], 2);
    assert_eq!(
        err,
        "error: scripted face 7 at script position 2 is not on a d6; valid faces are 1 to 6\n"
    );
    let err = fails(&["roll", "skirmish.attack", "--set", "target"], 2);
    assert!(err.contains("expected NAME=VALUE, got `target`"), "{err}");
    let err = fails(&["roll", "skirmish.attack", "--seed", "1", "--dice", "1,2"], 2);
    assert!(err.contains("cannot be used with"), "{err}");
    let err = fails(&["roll", "nope.attack"], 2);
    assert!(err.starts_with("error: unknown system `nope`"), "{err}");
}

#[test]
fn roll_rejection_exits_1() {
    let err = fails(
        &[
            "roll",
            "skirmish.attack",
            "--set",
            "target=7",
            "--set",
            "stance=reckless",
            "--set",
            "modifier=2",
        ],
        1,
    );
    assert_eq!(
        err,
        "error: the rules reject this situation: a reckless attack gets no positive modifiers [Skirmish 3.2]\n"
    );
    let err = fails(
        &[
            "odds",
            "skirmish.attack",
            "--set",
            "target=7",
            "--set",
            "stance=reckless",
            "--set",
            "modifier=2",
        ],
        1,
    );
    assert!(err.starts_with("error: the rules reject this situation"), "{err}");
}

#[test]
fn input_file_binding_and_errors() {
    let file = TempFile::new("ok.yaml", "target: 9\nmodifier: -1\nheroic_fire: yes\n");
    let v = json(&ok(&[
        "roll",
        "skirmish.attack",
        "--input",
        file.path(),
        "--set",
        "target=8",
        "--dice",
        "4,4,2",
        "--json",
    ]));
    assert_eq!(v["inputs"]["target"], 8);
    assert_eq!(v["inputs"]["modifier"], -1);
    assert_eq!(v["inputs"]["heroic_fire"], true);
    assert_eq!(v["outcome"], serde_json::json!({"result": "hit", "damage": 2}));
    // 4+4-1+1 = 8 >= 8: a hit whose damage die is missing from the script.
    let err = fails(
        &[
            "roll",
            "skirmish.attack",
            "--input",
            file.path(),
            "--set",
            "target=8",
            "--dice",
            "4,4",
        ],
        2,
    );
    assert!(err.starts_with("error: dice script ran out"), "{err}");

    let missing = std::env::temp_dir().join("rulebook-cli-definitely-missing.yaml");
    let err = fails(&["roll", "skirmish.attack", "--input", missing.to_str().unwrap()], 2);
    assert!(
        err.starts_with(&format!("error: cannot read input file {}: ", missing.display())),
        "{err}"
    );

    let bad = TempFile::new("bad.yaml", "target: 7\nmodifier: [1, 2\nweapon: vp\n");
    let err = fails(&["odds", "skirmish.attack", "--input", bad.path()], 2);
    // The line of the error comes right after the file name (serde_yaml's own copy is removed).
    assert!(
        err.starts_with(&format!("error: malformed YAML in {} at line 3, column 7: ", bad.path())),
        "{err}"
    );
    assert!(!err.contains("line 3 column 7"), "{err}");

    let unknown = TempFile::new("unknown.yaml", "target: 7\nmodifer: 1\n");
    let err = fails(&["odds", "skirmish.attack", "--input", unknown.path()], 2);
    assert_eq!(
        err,
        format!("error: {}: unknown input `modifer`; did you mean `modifier`\n", unknown.path())
    );

    let list = TempFile::new("list.yaml", "- 1\n- 2\n");
    let err = fails(&["odds", "skirmish.attack", "--input", list.path()], 2);
    assert!(err.contains("expected a mapping of input names to values"), "{err}");
}

#[test]
fn odds_text() {
    snap!(
        "odds_attack",
        ok(&["odds", "skirmish.attack", "--set", "target=7", "--set", "weapon=vp"])
    );
}

#[test]
fn odds_json_is_exact_and_sums_to_one() {
    let v = json(&ok(&["odds", "skirmish.attack", "--set", "target=7", "--json"]));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["resolver", "inputs", "outcomes"]);
    let outcomes = v["outcomes"].as_array().unwrap();
    // miss (damage 0) plus hits with damage 1..=6.
    assert_eq!(outcomes.len(), 7);
    let mut total = Prob::zero();
    let mut hit = Prob::zero();
    for o in outcomes {
        let text = o["probability"].as_str().unwrap();
        let (n, d) = text.split_once('/').unwrap();
        let (n, d): (u128, u128) = (n.parse().unwrap(), d.parse().unwrap());
        let p = Prob::new(n, d).unwrap();
        assert_eq!(p.numer_denom_string(), text, "fractions are reduced");
        total = total.add(&p);
        if o["outcome"]["result"] == "hit" {
            hit = hit.add(&p);
        }
    }
    assert_eq!(total, Prob::one());
    assert_eq!(hit, Prob::new(7, 12).unwrap());
    assert_eq!(outcomes[0]["outcome"], serde_json::json!({"result": "hit", "damage": 1}));
    assert_eq!(outcomes[0]["probability"], "7/72");
}

#[test]
fn odds_group_list_outcomes_as_multisets() {
    // 27 ordered outcomes, more than a table shows as they are: [1, 2, 3] and its other orders
    // are one row, with the note that order is ignored; `--ordered` and `--json` keep every order.
    snap!("odds_volley", ok(&["odds", "skirmish.volley"]));
    let ordered = ok(&["odds", "skirmish.volley", "--ordered"]);
    assert!(
        ordered.contains("outcomes (27), every combination:\n") && ordered.contains("[3, 2, 1]"),
        "{ordered}"
    );
    assert!(!ordered.contains("multisets"), "{ordered}");
    let v = json(&ok(&["odds", "skirmish.volley", "--json"]));
    assert_eq!(v["outcomes"].as_array().map(Vec::len), Some(27));
}

#[test]
fn sim_says_once_what_every_run_shares() {
    let (code, out, _) = cli(&["sim", "skirmish.volley", "--runs", "300", "--seed", "1", "--threads", "1"]);
    assert_eq!(code, ExitCode::SUCCESS);
    snap!("sim_volley", out);
}

#[test]
fn odds_of_a_bare_value_has_no_marginals() {
    let out = ok(&["odds", "skirmish.burst"]);
    assert!(
        out.starts_with("skirmish.burst: exact odds\n\ninputs:\n  (none)\n\noutcomes (11):\n"),
        "{out}"
    );
    // 3d6 keep highest 2: 16 of 216 throws read 12, 36 read 9 (the mode, longest bar).
    assert!(out.contains("\n  12    2/27    7.41%  ███\n"), "{out}");
    assert!(out.contains("\n  9      1/6   16.67%  ███████\n"), "{out}");
    assert_eq!(out.lines().count(), 17);
}

#[test]
fn help_has_examples() {
    for verb in ["list", "roll", "odds", "check"] {
        let (code, out, _) = cli(&[verb, "--help"]);
        assert_eq!(code, ExitCode::SUCCESS);
        assert!(out.contains("Examples:"), "{verb}: {out}");
    }
    let (code, out, _) = cli(&["--help"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(out.contains("Exit status:"), "{out}");
    let (code, _, err) = cli(&["frobnicate"]);
    assert_eq!(code, ExitCode::from(2));
    assert!(err.contains("unrecognized subcommand"), "{err}");
}

#[test]
fn check_passes_on_the_builtin_rules() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(super::run_check(None, false, &mut out, &mut err), Ok(true));
    assert!(String::from_utf8_lossy(&out).starts_with("ok: "));
}
