//! `sweep --chart FILE.svg` (issue 41, point 2), run on the built binary and read back with
//! roxmltree: each heatmap cell says its point's exact probability (from the CSV of the same run),
//! its colour gets lighter as the probability grows, the points land in the right cells when three
//! inputs vary, a line chart has a point per value and series placed by probability, and what
//! cannot be drawn is refused before the work.

mod common;

use common::rulebook;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Font size of a heatmap cell's text as plotters writes it (13 px / 1.24).
const CELL_FONT: f64 = 13.0 / 1.24;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sweep-chart").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the sweep with `--chart` into a fresh folder; returns the CSV and the SVG.
fn sweep(name: &str, args: &[&str]) -> (String, String) {
    let file = scratch(name).join("chart.svg");
    let mut all = vec!["sweep"];
    all.extend(args);
    let f = file.to_string_lossy().to_string();
    all.extend(["--chart", &f]);
    let out = rulebook(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{all:?}: {stderr}");
    assert!(stderr.contains(&format!("chart written to {f}")), "{stderr}");
    (String::from_utf8(out.stdout).unwrap(), std::fs::read_to_string(&file).unwrap())
}

/// `n/d` rounded to a whole percentage as a cell says it (`<1%` and `>99%` for what is not
/// exactly 0 or 1), in exact arithmetic.
fn cell_text(n: u128, d: u128) -> String {
    let pct = (200 * n + d) / (2 * d);
    if n > 0 && pct < 1 {
        "<1%".into()
    } else if n < d && pct > 99 {
        ">99%".into()
    } else {
        format!("{pct}%")
    }
}

/// The exact probability, summed, of the rows of each point whose column `col` is `value`.
fn by_point(csv: &str, col: usize, value: &str) -> BTreeMap<usize, (u128, u128)> {
    let mut out: BTreeMap<usize, (u128, u128)> = BTreeMap::new();
    for row in csv.lines().skip(1) {
        let cells: Vec<&str> = row.split(',').collect();
        let point: usize = cells[0].parse().unwrap();
        let entry = out.entry(point).or_insert((0, 1));
        if cells[col] == value {
            let (n, d) = cells[cells.len() - 4].split_once('/').unwrap();
            let (n, d): (u128, u128) = (n.parse().unwrap(), d.parse().unwrap());
            *entry = (entry.0 * d + n * entry.1, entry.1 * d);
        }
    }
    out
}

/// The heatmap cells in the order drawn (row by row): each cell's fill and its text.
fn cells(svg: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let nodes: Vec<roxmltree::Node> = doc.descendants().filter(|n| n.is_element()).collect();
    let mut out = Vec::new();
    for pair in nodes.windows(2) {
        let (rect, text) = (&pair[0], &pair[1]);
        let size: f64 = text.attribute("font-size").and_then(|s| s.parse().ok()).unwrap_or(0.0);
        if rect.has_tag_name("rect") && text.has_tag_name("text") && (size - CELL_FONT).abs() < 0.01 {
            let fill = rect.attribute("fill").unwrap().to_string();
            out.push((fill, text.text().unwrap_or("").trim().to_string()));
        }
    }
    out
}

fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

fn lightness(fill: &str) -> u32 {
    let hex = fill.trim_start_matches('#');
    (0..3).map(|i| u32::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).sum()
}

const FIRE: &[&str] = &[
    "starleader.fire",
    "--vary",
    "weapon=Jaffna 9/4,Mazer 14/13",
    "--vary",
    "range_hexes=1..3",
    "--set",
    "special_results=true",
    "--field",
    "result",
];

#[test]
fn each_cell_says_its_points_exact_probability_in_a_colour_that_grows_lighter() {
    let (csv, svg) = sweep("heat", FIRE);
    let all = texts(&svg);
    for t in [
        "P(result = hit)",
        "P(result = miss)",
        "weapon",
        "range_hexes",
        "Jaffna 9/4",
        "Mazer 14/13",
        "1",
        "3",
        "100%",
        "0%",
    ] {
        assert!(all.iter().any(|x| x == t), "no `{t}` in {all:?}");
    }
    let drawn = cells(&svg);
    // Four panels at most, one per result by default: hit, miss, jammed, blown (in CSV order).
    assert_eq!(drawn.len(), 4 * 6, "{drawn:?}");
    for (k, result) in ["hit", "miss", "jammed", "blown"].iter().enumerate() {
        let exact = by_point(&csv, 3, result);
        let expected: Vec<String> = exact.values().map(|&(n, d)| cell_text(n, d)).collect();
        let shown: Vec<String> = drawn[6 * k..6 * k + 6].iter().map(|(_, t)| t.clone()).collect();
        assert_eq!(shown, expected, "{result}");
        // Lighter with a larger probability, the same colour for the same one.
        let mut by_p: Vec<(f64, u32)> = exact
            .values()
            .zip(&drawn[6 * k..6 * k + 6])
            .map(|(&(n, d), (fill, _))| (n as f64 / d as f64, lightness(fill)))
            .collect();
        by_p.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(by_p.windows(2).all(|w| w[0].1 <= w[1].1), "{result}: {by_p:?}");
    }
    // Close range helps the pistol and hurts the rifle (Starleader 6.3): the cells differ.
    let hit: Vec<&String> = drawn[..6].iter().map(|(_, t)| t).collect();
    assert_ne!(hit[0], hit[2]);
    assert_ne!(hit[3], hit[5]);
}

#[test]
fn with_three_inputs_each_value_of_the_third_has_its_heatmap_of_the_right_points() {
    let mut args = FIRE.to_vec();
    args.extend(["--vary", "target_size=1..2", "--chart-outcome", "result=hit"]);
    let (csv, svg) = sweep("three", &args);
    let all = texts(&svg);
    assert!(all.iter().any(|t| t == "P(result = hit) at target_size=1"), "{all:?}");
    assert!(all.iter().any(|t| t == "P(result = hit) at target_size=2"), "{all:?}");
    let exact = by_point(&csv, 4, "hit");
    // Point numbers: weapon slowest, then range, then target size fastest.
    for (panel, size) in [(0usize, 0usize), (1, 1)] {
        let expected: Vec<String> = (0..6).map(|cell| exact[&(cell * 2 + size)]).map(|(n, d)| cell_text(n, d)).collect();
        let shown: Vec<String> = cells(&svg)[6 * panel..6 * panel + 6].iter().map(|(_, t)| t.clone()).collect();
        assert_eq!(shown, expected, "target_size={}", size + 1);
    }
}

#[test]
fn one_input_is_a_line_per_value_with_its_points_placed_by_probability() {
    let args = [
        "t5.attack",
        "--vary",
        "range=0..9",
        "--set",
        "characteristic=8",
        "--set",
        "skill=2",
        "--field",
        "result",
    ];
    let (csv, svg) = sweep("lines", &args);
    let all = texts(&svg);
    assert!(
        all.iter().any(|t| t == "result = hit") && all.iter().any(|t| t == "result = miss"),
        "{all:?}"
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let first: Vec<f64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some("#4477AA"))
        .map(|n| n.attribute("cy").unwrap().parse().unwrap())
        .collect();
    assert_eq!(first.len(), 10, "a point for each range band");
    // The first line is `hit`: the higher its probability, the higher its point (smaller y).
    let exact: Vec<f64> = by_point(&csv, 2, "hit").values().map(|&(n, d)| n as f64 / d as f64).collect();
    for i in 0..10 {
        for j in 0..10 {
            if exact[i] > exact[j] + 0.01 {
                assert!(first[i] < first[j], "range {i} ({}) drawn below range {j} ({})", exact[i], exact[j]);
            }
        }
    }
    assert!(exact[0] > 0.9 && exact[9] < 0.01, "{exact:?}");
}

#[test]
fn what_cannot_be_drawn_is_refused_before_the_work() {
    let dir = scratch("refused");
    let file = dir.join("c.svg").to_string_lossy().to_string();
    let mut three = FIRE.to_vec();
    three.extend(["--vary", "target_size=1..2"]);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (three, "draws one outcome a heatmap for each value of `target_size`"),
        ([FIRE, &["--shard", "1/2"]].concat(), "run the sweep without --shard"),
        ([FIRE, &["--chart-outcome", "result=hit"]].concat(), "--chart-outcome"),
    ];
    for (k, (args, says)) in cases.into_iter().enumerate() {
        let mut all = vec!["sweep"];
        all.extend(&args);
        if k < 2 {
            all.extend(["--chart", &file]);
        }
        let out = rulebook(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(says), "{all:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{all:?} did the work");
    }
    assert!(!dir.join("c.svg").exists());
    // An outcome that no point has: the CSV is still written, the chart is not, and the error
    // lists the outcomes there are.
    let mut typo = FIRE.to_vec();
    typo.extend(["--chart-outcome", "result=hti", "--chart", &file]);
    let mut all = vec!["sweep"];
    all.extend(&typo);
    let out = rulebook(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no point has that outcome; outcomes: result = hit, result = miss"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("point,weapon,range_hexes,result"));
    assert!(!dir.join("c.svg").exists());
}
