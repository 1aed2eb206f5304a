//! `rulebook sweep` and `rulebook merge` (issue 41, point 2): each point of the grid has the odds
//! that `odds` gives for the same inputs; shards merged are one run, byte for byte, in CSV and
//! JSON; a point the rules reject is a row with its error; mistakes in `--vary` are usage errors.

mod common;

use common::{rulebook, stdout};
use serde_json::Value;

const GRID: &[&str] = &[
    "sweep",
    "starleader.to_hit",
    "--vary",
    "weapon=Jaffna 9/4,Ghazi 10/7,Welker 8/0",
    "--vary",
    "range_hexes=0..9",
    "--set",
    "target_size=1",
    "--field",
    "result",
];

#[test]
fn every_point_has_the_odds_that_odds_gives() {
    let csv = stdout(GRID);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("point,weapon,range_hexes,result,probability,percent,simulated,error")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // 30 points, each with its outcomes; the points in order, the first input varying slowest.
    let points: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(points.first(), Some(&"0"));
    assert_eq!(points.last(), Some(&"29"));
    assert_eq!(rows.iter().find(|r| r[0] == "10").map(|r| (r[1], r[2])), Some(("Ghazi 10/7", "0")));
    for point in ["0", "13", "29"] {
        let mine: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == point).collect();
        let (weapon, range) = (mine[0][1], mine[0][2]);
        let doc: Value = serde_json::from_str(&stdout(&[
            "odds",
            "starleader.to_hit",
            "--set",
            &format!("weapon={weapon}"),
            "--set",
            &format!("range_hexes={range}"),
            "--set",
            "target_size=1",
            "--field",
            "result",
            "--json",
        ]))
        .unwrap();
        let theirs: Vec<(String, String)> = doc["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                (
                    o["outcome"]["result"].as_str().unwrap().to_string(),
                    o["probability"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let mine: Vec<(String, String)> = mine.iter().map(|r| (r[3].to_string(), r[4].to_string())).collect();
        assert_eq!(mine, theirs, "point {point}: {weapon} at {range}");
    }
}

#[test]
fn shards_merged_are_one_run_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("rulebook-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for json in [false, true] {
        let mut whole: Vec<&str> = GRID.to_vec();
        if json {
            whole.push("--json");
        }
        let one = stdout(&whole);
        let mut files = Vec::new();
        for shard in ["3/3", "1/3", "2/3"] {
            let mut args = whole.clone();
            args.extend(["--shard", shard]);
            let part = stdout(&args);
            assert!(part.len() < one.len() / 2, "shard {shard} is not a third of the grid");
            let f = dir.join(format!("{}-{}.out", json, shard.replace('/', "-")));
            std::fs::write(&f, part).unwrap();
            files.push(f.to_string_lossy().to_string());
        }
        let mut merge = vec!["merge"];
        merge.extend(files.iter().map(String::as_str));
        if json {
            merge.push("--json");
        }
        assert!(stdout(&merge) == one, "merged shards differ from one run (json: {json})");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_point_the_rules_reject_is_a_row_with_its_error() {
    let csv = stdout(&["sweep", "striker.gravity_movement", "--vary", "gravity=0..2", "--set", "rate_cm=10"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "point,gravity,outcome,probability,percent,simulated,error");
    assert!(
        lines[1].starts_with("0,0,,,,,\"the rules reject this situation: gravity must be above 0 G [Striker 53.B]"),
        "{csv}"
    );
    assert_eq!(lines[2], "1,1,{rate_cm: 10},1/1,100.0000,,");
    assert_eq!(lines[3], "2,2,{rate_cm: 5},1/1,100.0000,,");
}

#[test]
fn mistakes_in_the_grid_are_usage_errors() {
    for (args, says) in [
        (vec!["--vary", "gravty=0..2"], "has no input `gravty`; its inputs: rate_cm, gravity"),
        (vec!["--vary", "rate_cm=all"], "has too many values to list"),
        (vec!["--vary", "rate_cm=5..1"], "give LO..HI with LO <= HI"),
        (vec!["--vary", "rate_cm=1..3", "--shard", "4/3"], "expected I/N with 1 <= I <= N"),
        (
            vec!["--vary", "rate_cm=1..3", "--set", "rate_cm=4", "--set", "gravity=1"],
            "`rate_cm` is set twice",
        ),
    ] {
        let mut all = vec!["sweep", "striker.gravity_movement"];
        all.extend(args.iter());
        let out = rulebook(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(says), "{all:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{all:?} wrote output");
    }
}

/// Issue 41: a point out of reach of exact odds (here, a whole battle past a 1 s budget) is
/// estimated by simulation when one field is asked for: its runs are seeded by the point's
/// number, so the shares are `sim`'s with that seed, and the point says how many runs it took;
/// with `--sim-runs 0` it is a row with its error.
#[test]
fn a_point_out_of_reach_is_simulated_and_says_so() {
    let args = [
        "sweep",
        "mercenary.battle",
        "--input",
        "examples/mercenary-infantry-clash.yaml",
        "--vary",
        "max_rounds=1..2",
        "--field",
        "result",
        "--budget",
        "1",
        "--sim-runs",
        "300",
    ];
    let mut json = args.to_vec();
    json.push("--json");
    let doc: Value = serde_json::from_str(&stdout(&json)).unwrap();
    for (k, point) in doc["points"].as_array().unwrap().iter().enumerate() {
        assert_eq!(point["simulated"], serde_json::json!({"runs": 300, "seed": k}), "{point}");
        let rounds = point["inputs"]["max_rounds"].as_str().unwrap();
        let sim: Value = serde_json::from_str(&stdout(&[
            "sim",
            "mercenary.battle",
            "--input",
            "examples/mercenary-infantry-clash.yaml",
            "--set",
            &format!("max_rounds={rounds}"),
            "--runs",
            "300",
            "--seed",
            &k.to_string(),
            "--json",
        ]))
        .unwrap();
        let mut total = 0;
        for o in point["outcomes"].as_array().unwrap() {
            let (n, d) = o["probability"].as_str().unwrap().split_once('/').unwrap();
            let (n, d): (u64, u64) = (n.parse().unwrap(), d.parse().unwrap());
            assert_eq!(300 % d, 0, "a share of 300 runs: {n}/{d}");
            total += n * (300 / d);
            let result = o["outcome"]["result"].as_str().unwrap();
            let share = sim["outcomes"][result]["probability"].as_f64().unwrap();
            assert!(
                (share - n as f64 / d as f64).abs() < 1e-6,
                "{result}: {n}/{d} against sim's {share}"
            );
        }
        assert_eq!(total, 300, "{point}");
    }
    let csv = stdout(&args);
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",300,")), "{csv}");
    let mut off = args.to_vec();
    let last = off.len() - 1;
    off[last] = "0";
    let csv = stdout(&off);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(rows.iter().all(|l| l.contains("estimate with `rulebook sim`")), "{csv}");
}
