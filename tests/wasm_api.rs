//! The JavaScript package's answers (`rulebook-wasm`'s `api`, run natively) are the command line's
//! `--json` output, byte for byte: the same seed throws the same dice (ChaCha8), the same script
//! reads the same faces, and `list`, `odds` and `sim` print the same documents. The tool that
//! writes the package's glue (wasm/bindgen/) is pinned to the wasm-bindgen the package links.

mod common;

use common::{rulebook, stdout};
use rulebook_wasm::api::Registry;

/// An example input file as the JSON object a JavaScript caller passes.
fn example_json(file: &str) -> String {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let yaml: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    serde_json::to_string(&yaml).unwrap()
}

#[test]
fn a_seeded_starleader_fire_is_the_command_lines() {
    let inputs = example_json("examples/starleader-fire.yaml");
    assert_eq!(inputs, r#"{"weapon":"Ghazi 10/7","range_hexes":5,"armor_rating":2}"#);
    let reg = Registry::builtin().unwrap();
    for seed in ["0", "7", "42", "18446744073709551615"] {
        let cli = stdout(&[
            "roll",
            "starleader.fire",
            "--input",
            "examples/starleader-fire.yaml",
            "--seed",
            seed,
            "--json",
        ]);
        let wasm = reg.roll("starleader.fire", &inputs, seed.parse().unwrap()).unwrap();
        assert_eq!(cli, format!("{wasm}\n"), "seed {seed}");
    }
}

#[test]
fn scripted_dice_odds_lists_and_sims_are_the_command_lines() {
    let reg = Registry::builtin().unwrap();
    let inputs = example_json("examples/starleader-fire.yaml");
    let cli = stdout(&[
        "roll",
        "starleader.fire",
        "--input",
        "examples/starleader-fire.yaml",
        "--dice",
        "6,6,6,5,4,3",
        "--json",
    ]);
    assert_eq!(
        cli,
        format!("{}\n", reg.roll_with_dice("starleader.fire", &inputs, "6,6,6,5,4,3").unwrap())
    );
    let cli = stdout(&["odds", "starleader.to_hit", "--set", "weapon=Ghazi 10/7", "--json"]);
    assert_eq!(
        cli,
        format!("{}\n", reg.odds("starleader.to_hit", r#"{"weapon": "Ghazi 10/7"}"#).unwrap())
    );
    assert_eq!(stdout(&["list", "--json"]), format!("{}\n", reg.list().unwrap()));
    assert_eq!(
        stdout(&["list", "mercenary", "--json"]),
        format!("{}\n", reg.resolvers("mercenary").unwrap())
    );
    let battle = example_json("examples/mercenary-infantry-clash.yaml");
    let cli = stdout(&[
        "sim",
        "mercenary.battle",
        "--input",
        "examples/mercenary-infantry-clash.yaml",
        "--runs",
        "300",
        "--seed",
        "7",
        "--json",
    ]);
    assert_eq!(cli, format!("{}\n", reg.sim("mercenary.battle", &battle, 300, 7).unwrap()));
}

#[test]
fn rules_text_checks_as_the_command_line_checks_a_folder() {
    let files: serde_json::Map<String, serde_json::Value> = rulebook::RULES_SOURCES
        .iter()
        .map(|(p, t)| (p.to_string(), serde_json::Value::from(*t)))
        .collect();
    let mut broken = files.clone();
    let fire = broken["starleader/fire.rules"].as_str().unwrap().replacen("density", "densty", 1);
    broken.insert("starleader/fire.rules".into(), fire.clone().into());
    let ours: serde_json::Value =
        serde_json::from_str(&rulebook_wasm::api::check_rules(&serde_json::to_string(&broken).unwrap()).unwrap()).unwrap();
    // The same folder on disk, checked by the command line.
    let dir = std::env::temp_dir().join(format!("rulebook-wasm-check-{}", std::process::id()));
    for (path, text) in &broken {
        let target = dir.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, text.as_str().unwrap()).unwrap();
    }
    let out = rulebook(&["check", "--rules", dir.to_str().unwrap(), "--json"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ours["ok"], false);
    assert_eq!(ours["errors"], cli["errors"]);
    let strip = |d: &serde_json::Value| {
        let mut d = d.clone();
        let loc = d["location"].as_str().unwrap().to_string();
        d["location"] = loc
            .rsplit_once("starleader/")
            .map(|(_, rest)| rest.to_string())
            .unwrap_or(loc)
            .into();
        // The folder's name differs (a scratch folder against the text's own names).
        let file = d["file"].as_str().unwrap_or("").to_string();
        d["file"] = file
            .rsplit_once("starleader/")
            .map(|(_, rest)| rest.to_string())
            .unwrap_or(file)
            .into();
        d
    };
    let (a, b): (Vec<_>, Vec<_>) = (
        ours["diagnostics"].as_array().unwrap().iter().map(strip).collect(),
        cli["diagnostics"].as_array().unwrap().iter().map(strip).collect(),
    );
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert!(ours["diagnostics"][0]["location"]
        .as_str()
        .unwrap()
        .starts_with("starleader/fire.rules:"));
}

#[test]
fn the_readme_shows_web_example_js_verbatim() {
    // The browser test (web/test/browser-test.sh) runs web/example.js; the README shows it.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("web/example.js")).unwrap();
    let section = readme
        .split("## JavaScript / WebAssembly\n")
        .nth(1)
        .expect("README.md has a \"JavaScript / WebAssembly\" section");
    let block = section
        .split("```js\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n").next())
        .expect("the section shows a ```js block");
    assert_eq!(block, example, "README.md's JavaScript block must be web/example.js, verbatim");
    assert!(
        example.contains("roll(\"starleader.fire\"") && example.contains(", 7)"),
        "{example}"
    );
}

#[test]
fn the_glue_tool_is_the_wasm_bindgen_of_cargo_lock() {
    // wasm/build.sh writes the package's JavaScript glue with wasm/bindgen/ (wasm-bindgen's own
    // library, pinned): it must be the very wasm-bindgen the package links, whose glue format
    // changes from version to version. wasm/bindgen/Cargo.toml says how to follow an update.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |file: &str| std::fs::read_to_string(root.join(file)).unwrap();
    let locked = |lock: &str, name: &str| -> String {
        let text = read(lock);
        let mut lines = text.lines();
        lines
            .find(|l| *l == format!("name = \"{name}\""))
            .unwrap_or_else(|| panic!("{lock} has no {name}"));
        let version = lines.next().unwrap_or_default();
        version.trim_start_matches("version = ").trim_matches('"').to_string()
    };
    let version = locked("Cargo.lock", "wasm-bindgen");
    let manifest = read("wasm/bindgen/Cargo.toml");
    for dep in ["wasm-bindgen-cli-support", "wasm-bindgen-shared"] {
        assert_eq!(
            locked("wasm/bindgen/Cargo.lock", dep),
            version,
            "wasm/bindgen/Cargo.lock's {dep} must be Cargo.lock's wasm-bindgen (wasm/bindgen/Cargo.toml says how)"
        );
        let pin = format!("{dep} = \"={version}\"");
        assert!(manifest.contains(&pin), "wasm/bindgen/Cargo.toml must say `{pin}`");
    }
}

#[test]
fn a_sweep_and_its_merged_shards_are_the_command_lines() {
    let reg = Registry::builtin().unwrap();
    let vary = vec![
        ("weapon".to_string(), "Jaffna 9/4,Ghazi 10/7".to_string()),
        ("range_hexes".to_string(), "0..3".to_string()),
    ];
    let fields = vec!["result".to_string()];
    let fixed = r#"{"target_size": 1}"#;
    let cli = stdout(&[
        "sweep",
        "starleader.to_hit",
        "--vary",
        "weapon=Jaffna 9/4,Ghazi 10/7",
        "--vary",
        "range_hexes=0..3",
        "--set",
        "target_size=1",
        "--field",
        "result",
        "--json",
    ]);
    let one = reg.sweep("starleader.to_hit", &vary, fixed, &fields, None, 2, 60).unwrap();
    assert_eq!(cli, format!("{one}\n"));
    let shards: Vec<String> = (1..=3)
        .map(|i| reg.sweep("starleader.to_hit", &vary, fixed, &fields, Some((i, 3)), 1, 60).unwrap())
        .collect();
    assert_eq!(rulebook_wasm::sweep::merge_sweeps(&shards).unwrap(), one);
    // Each shard is the command line's `--shard I/3`.
    let second = stdout(&[
        "sweep",
        "starleader.to_hit",
        "--vary",
        "weapon=Jaffna 9/4,Ghazi 10/7",
        "--vary",
        "range_hexes=0..3",
        "--set",
        "target_size=1",
        "--field",
        "result",
        "--shard",
        "2/3",
        "--json",
    ]);
    assert_eq!(second, format!("{}\n", shards[1]));
}
