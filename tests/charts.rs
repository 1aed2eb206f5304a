//! `--chart FILE.svg` of `odds`, `sim` and `diff`, run on the built binary: the SVG is parsed
//! (roxmltree) and its structure checked (title, a bar per outcome, bar lengths in the order of
//! the exact odds, axis labels, error bars, two series), never its pixels.

mod common;

use common::{prob, rulebook};
use std::path::{Path, PathBuf};

/// Fills of the bars, as `src/cli/chart.rs` draws them: the first series (odds, `before` of a
/// diff), the second (`after`), a histogram's bars; and the stroke of the 95% intervals.
const FIRST: &str = "#4477AA";
const SECOND: &str = "#EE6677";
const HISTOGRAM: &str = "#228833";
const INTERVAL: &str = "#111111";

/// A fresh folder under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("charts").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `rulebook ARGS --chart FILE` (exit 0 expected) and returns the SVG text and stdout.
fn chart(args: &[&str], file: &Path) -> (String, String) {
    let mut all: Vec<&str> = args.to_vec();
    let f = file.to_string_lossy().to_string();
    all.extend(["--chart", &f]);
    let out = rulebook(&all);
    assert_eq!(out.status.code(), Some(0), "{all:?}: {}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{all:?} wrote no chart: {e}"));
    (svg, String::from_utf8_lossy(&out.stdout).to_string())
}

/// What a test reads from the SVG: every text, every rect as (fill, width, height), every line
/// as its stroke.
struct Svg {
    title: String,
    texts: Vec<String>,
    rects: Vec<(String, f64, f64)>,
    lines: Vec<String>,
}

fn parse(svg: &str) -> Svg {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "not an SVG");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    let num = |n: &roxmltree::Node, a: &str| -> f64 {
        n.attribute(a)
            .unwrap_or_else(|| panic!("no {a}"))
            .parse()
            .unwrap_or_else(|e| panic!("{a}: {e}"))
    };
    let text_of = |n: &roxmltree::Node| n.text().unwrap_or("").trim().to_string();
    let title = root
        .children()
        .find(|n| n.has_tag_name("title"))
        .map(|n| text_of(&n))
        .unwrap_or_default();
    let mut svg = Svg {
        title,
        texts: Vec::new(),
        rects: Vec::new(),
        lines: Vec::new(),
    };
    for n in root.descendants() {
        match n.tag_name().name() {
            "text" => svg.texts.push(text_of(&n)),
            "rect" => svg.rects.push((
                n.attribute("fill").unwrap_or("").to_uppercase(),
                num(&n, "width"),
                num(&n, "height"),
            )),
            "line" => svg.lines.push(n.attribute("stroke").unwrap_or("").to_uppercase()),
            _ => {}
        }
    }
    svg
}

impl Svg {
    fn bars(&self, fill: &str) -> Vec<(f64, f64)> {
        self.rects.iter().filter(|r| r.0 == fill).map(|r| (r.1, r.2)).collect()
    }
    fn has_text(&self, t: &str) -> bool {
        self.texts.iter().any(|x| x == t)
    }
}

/// Bar lengths in the order of the probabilities: a more probable outcome never has a shorter
/// bar, equal probabilities have equal bars, and the bars are not all alike.
fn assert_ordered_like(lengths: &[f64], probs: &[rulebook::runtime::Prob]) {
    assert_eq!(lengths.len(), probs.len());
    for i in 0..probs.len() {
        for j in 0..probs.len() {
            if probs[i] < probs[j] {
                assert!(
                    lengths[i] < lengths[j],
                    "bar {i} ({}) not shorter than bar {j} ({})",
                    lengths[i],
                    lengths[j]
                );
            } else if probs[i] == probs[j] {
                assert_eq!(lengths[i], lengths[j], "bars {i} and {j}");
            }
        }
    }
}

#[test]
fn odds_chart_has_a_title_a_bar_per_outcome_and_bars_in_the_order_of_the_exact_odds() {
    let dir = scratch("odds");
    let file = dir.join("shot.svg");
    let args = [
        "odds",
        "combat3000.shot",
        "--set",
        "range_cm=20",
        "--set",
        "weapon_class=s",
        "--set",
        "breakdown=2",
    ];
    let (svg, stdout) = chart(&args, &file);
    // The text report is printed as without --chart.
    assert!(stdout.contains("result=miss         1/2   50.00%"), "{stdout}");
    let s = parse(&svg);
    assert!(s.title.starts_with("combat3000.shot"), "{}", s.title);
    assert!(s.has_text(&s.title), "the title is drawn too");
    // The inputs are under the title.
    for input in ["range_cm=20", "weapon_class=s", "breakdown=2"] {
        assert!(
            s.texts.iter().any(|t| t.split("  ").any(|i| i == input)),
            "no {input}: {:?}",
            s.texts
        );
    }
    // One panel, one bar per outcome: hit 12/25, miss 1/2, breakdown 1/50, each labelled with its
    // value of the field the panel's title names.
    let bars = s.bars(FIRST);
    assert_eq!(bars.len(), 3, "{:?}", s.rects);
    assert!(s.has_text("outcomes (3): result"), "{:?}", s.texts);
    for label in ["hit", "miss", "breakdown"] {
        assert!(s.has_text(label), "no label {label}: {:?}", s.texts);
    }
    for text in ["12/25  48.00%", "1/2  50.00%", "1/50  2.00%"] {
        assert!(s.has_text(text), "no bar text {text}");
    }
    let lengths: Vec<f64> = bars.iter().map(|b| b.0).collect();
    assert_ordered_like(&lengths, &[prob("12/25"), prob("1/2"), prob("1/50")]);
    // Probability axis: its name and percentage ticks.
    assert!(s.has_text("probability"));
    assert!(
        s.has_text("0%") && s.texts.iter().any(|t| t == "20%" || t == "10%"),
        "{:?}",
        s.texts
    );
    // Written atomically: no temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("shot.svg")]);
}

#[test]
fn odds_chart_draws_every_row_of_the_text_and_each_varying_field() {
    let file = scratch("odds-fields").join("to-hit.svg");
    let (svg, _) = chart(&["odds", "starleader.to_hit", "--set", "weapon=Ghazi 10/7"], &file);
    let json = rulebook(&["odds", "starleader.to_hit", "--set", "weapon=Ghazi 10/7", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let probs: Vec<_> = doc["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| prob(o["probability"].as_str().unwrap()))
        .collect();
    assert_eq!(probs.len(), 21);
    let s = parse(&svg);
    // The quotes of the weapon's name are escaped: the document parsed, and reads them back.
    assert!(s.texts.iter().any(|t| t.contains("weapon=\"Ghazi 10/7\"")), "{:?}", s.texts);
    // 21 whole outcomes, then `result` (hit, miss), then `raw_roll` (4 to 24), as the text shows.
    let bars = s.bars(FIRST);
    assert_eq!(bars.len(), 21 + 2 + 21);
    let lengths: Vec<f64> = bars[..21].iter().map(|b| b.0).collect();
    assert_ordered_like(&lengths, &probs);
    assert_ordered_like(&[bars[21].0, bars[22].0], &[prob("145/432"), prob("287/432")]);
    for panel in ["outcomes (21): result · raw_roll", "result", "raw_roll"] {
        assert!(s.has_text(panel), "no panel {panel}");
    }
    assert!(s.has_text("in every outcome: target=12"));
}

#[test]
fn sim_chart_has_error_bars_and_the_distribution_of_rounds() {
    let dir = scratch("sim");
    let args = [
        "sim",
        "mercenary.battle",
        "--input",
        "examples/mercenary-infantry-clash.yaml",
        "--runs",
        "200",
        "--seed",
        "7",
    ];
    let (svg, _) = chart(&[&args[..], &["--threads", "2"]].concat(), &dir.join("battle.svg"));
    let s = parse(&svg);
    assert!(
        s.title.starts_with("mercenary.battle") && s.title.contains("200 runs, seed 7"),
        "{}",
        s.title
    );
    // The outcome panel: a bar and an interval per declared result (six, one never seen).
    assert!(s.has_text("result: share of runs, 95% interval"));
    for label in ["side_a_wins", "side_b_wins", "draw"] {
        assert!(s.has_text(label), "no {label}");
    }
    // An error bar is three lines (the interval and its two ends); the means panel has its own.
    let intervals = s.lines.iter().filter(|l| *l == INTERVAL).count();
    assert!(intervals >= 3 * (6 + 3), "{intervals} interval lines");
    // The second panel: rounds, a bar per number of rounds some run took, shares adding to 1.
    assert!(s.has_text("rounds: distribution over the runs"));
    assert!(s.has_text("share of runs"));
    let rounds = s.bars(HISTOGRAM);
    assert!(rounds.len() >= 3, "{rounds:?}");
    // The means (losses by unit type) with their intervals.
    assert!(s.has_text("losses_b.infantry.lost"));
    // Same seed, other thread count: the same chart, byte for byte.
    let (again, _) = chart(&[&args[..], &["--threads", "1"]].concat(), &dir.join("battle-1.svg"));
    assert!(svg == again, "the chart depends on --threads");
}

#[test]
fn sim_chart_of_a_skirmish_has_the_distribution_of_its_turns() {
    let file = scratch("sim-turns").join("skirmish.svg");
    let args = [
        "sim",
        "combat3000.turn",
        "--input",
        "examples/combat3000-skirmish.yaml",
        "--runs",
        "100",
        "--seed",
        "1",
    ];
    let (svg, _) = chart(&args, &file);
    let s = parse(&svg);
    assert!(s.has_text("turns: distribution over the runs"), "{:?}", s.texts);
    assert!(s.bars(HISTOGRAM).len() >= 2);
    assert!(s.lines.iter().filter(|l| *l == INTERVAL).count() >= 3 * 3);
}

#[test]
fn diff_chart_has_two_series_before_and_after() {
    let dir = scratch("diff");
    let my_rules = dir.join("my-rules");
    let out = rulebook(&["export", my_rules.to_str().unwrap()]);
    assert!(out.status.success());
    let weapons = my_rules.join("starleader/weapons.rules");
    let text = std::fs::read_to_string(&weapons).unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with("\"Ghazi 10/7\"")).unwrap();
    std::fs::write(&weapons, text.replacen(line, &line.replacen("| 10 |", "| 11 |", 1), 1)).unwrap();
    let file = dir.join("diff.svg");
    let (svg, stdout) = chart(
        &[
            "diff",
            "builtin",
            my_rules.to_str().unwrap(),
            "starleader.to_hit",
            "--set",
            "weapon=Ghazi 10/7",
        ],
        &file,
    );
    assert!(stdout.contains("+10.80 pp"), "{stdout}");
    let s = parse(&svg);
    assert!(
        s.title.starts_with("starleader.to_hit: exact odds in builtin (before)"),
        "{}",
        s.title
    );
    // Two series, each with a bar per row of the changed fields (`result`: hit, miss; `target`:
    // 12, 13), and a legend naming them.
    let (before, after) = (s.bars(FIRST), s.bars(SECOND));
    assert_eq!(before.len(), 4, "{:?}", s.rects);
    assert_eq!(after.len(), 4);
    assert!(s.has_text("before: builtin"));
    assert!(s.texts.iter().any(|t| t.starts_with("after: ") && t.ends_with("my-rules")));
    // hit: 145/432 before, 575/1296 after; miss: 287/432, then 721/1296.
    assert_ordered_like(
        &[before[0].0, after[0].0, before[1].0, after[1].0],
        &[prob("145/432"), prob("575/1296"), prob("287/432"), prob("721/1296")],
    );
    assert!(s.has_text("575/1296  44.37%"));
    assert!(s.has_text("unchanged: raw_roll"));
}

#[test]
fn a_chart_that_cannot_be_written_is_a_usage_error_and_nothing_is_written() {
    let dir = scratch("refused");
    let missing = dir.join("no-such-folder").join("c.svg");
    for target in [missing.clone(), dir.clone()] {
        let t = target.to_string_lossy().to_string();
        let out = rulebook(&["odds", "starleader.to_hit", "--set", "weapon=Ghazi 10/7", "--chart", &t]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.starts_with("error: cannot write the chart to "), "{err}");
        assert!(out.stdout.is_empty(), "output before the error");
    }
    assert!(!missing.exists());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "something was left in {}",
        dir.display()
    );
    // A sim is refused before it runs.
    let out = rulebook(&[
        "sim",
        "combat3000.turn",
        "--input",
        "examples/combat3000-skirmish.yaml",
        "--chart",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("runs in"), "it simulated first");
    // `diff --all` has no chart.
    let out = rulebook(&["diff", "builtin", "builtin", "--all", "--chart", "x.svg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("x.svg").exists());
}

/// Every `<text>` of an SVG as (x of its left end, x of its right end, the text): its width
/// estimated from its characters at 0.6 of the font size (bold 0.65), an upper bound for the
/// sans-serif fonts the SVG names at these sizes.
fn text_extents(svg: &str) -> (f64, Vec<(f64, f64, String)>) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let root = doc.root_element();
    let width: f64 = root.attribute("width").unwrap().parse().unwrap();
    let mut out = Vec::new();
    for n in root.descendants().filter(|n| n.has_tag_name("text")) {
        let text = n.text().unwrap_or("").trim().to_string();
        if n.attribute("transform").is_some_and(|t| t.contains("rotate")) {
            continue; // an axis name written upwards: its width is vertical
        }
        let x: f64 = n.attribute("x").unwrap().parse().unwrap();
        let size: f64 = n.attribute("font-size").unwrap().parse().unwrap();
        let per_char = if n.attribute("font-weight") == Some("bold") { 0.65 } else { 0.6 };
        let w = text.chars().count() as f64 * size * per_char;
        let (left, right) = match n.attribute("text-anchor") {
            Some("middle") => (x - w / 2.0, x + w / 2.0),
            Some("end") => (x - w, x),
            _ => (x, x + w),
        };
        out.push((left, right, text));
    }
    (width, out)
}

/// Issue 42, point 9: no text of any kind of chart runs off the canvas (the joint panel of a
/// shot with all its options, a diff's footer, a battle's means, a long title, a sweep's heatmaps
/// of every weapon and its line chart).
#[test]
fn no_text_runs_off_the_canvas() {
    let dir = scratch("fit");
    let edited = dir.join("edited");
    assert!(rulebook(&["export", &edited.to_string_lossy()]).status.success());
    let e = edited.to_string_lossy().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "odds",
            "starleader.fire",
            "--set",
            "weapon=Ghazi 10/7",
            "--set",
            "special_results=true",
            "--set",
            "heavy_hits=true",
        ],
        vec!["diff", "builtin", &e, "starleader.fire", "--set", "weapon=Ghazi 10/7"],
        vec![
            "sim",
            "mercenary.battle",
            "--input",
            "examples/mercenary-infantry-clash.yaml",
            "--runs",
            "200",
        ],
        vec![
            "sim",
            "combat3000.turn",
            "--input",
            "examples/combat3000-skirmish.yaml",
            "--runs",
            "100",
        ],
        vec![
            "odds",
            "mercenary.battle_step",
            "--input",
            "examples/mercenary-two-a-side.yaml",
            "--until",
            "ended",
            "--field",
            "result",
        ],
        vec![
            "sweep",
            "starleader.fire",
            "--vary",
            "weapon=all",
            "--vary",
            "range_hexes=1..14",
            "--set",
            "special_results=true",
        ],
        vec![
            "sweep",
            "t5.attack",
            "--vary",
            "target_speed=all",
            "--set",
            "range=3",
            "--set",
            "characteristic=8",
        ],
    ];
    for (k, args) in cases.iter().enumerate() {
        let file = dir.join(format!("chart{k}.svg"));
        let (svg, _) = chart(args, &file);
        let (width, texts) = text_extents(&svg);
        assert!(!texts.is_empty());
        for (left, right, text) in texts {
            assert!(
                left >= 0.0 && right <= width,
                "{args:?}: `{text}` spans {left:.0}..{right:.0} of {width}"
            );
        }
    }
}

/// Issue 42, point 9: the joint panel names the varying fields once and labels each row with
/// their values, so no label is cut mid-field; past 40 rows every result keeps a row (a shot's
/// rare `blown` among 57 outcomes).
#[test]
fn the_joint_panel_labels_rows_by_their_values_and_keeps_every_result() {
    let dir = scratch("joint");
    let args = [
        "odds",
        "starleader.fire",
        "--set",
        "weapon=Ghazi 10/7",
        "--set",
        "special_results=true",
        "--set",
        "heavy_hits=true",
    ];
    let (svg, _) = chart(&args, &dir.join("fire.svg"));
    let svg = parse(&svg);
    let joint_title = svg.texts.iter().find(|t| t.starts_with("outcomes (")).expect("the joint panel");
    assert!(
        joint_title.ends_with(": result · damage · heavy_hit · knocked_down · drops_weapons · self_damage · weapon_state"),
        "{joint_title}"
    );
    assert!(
        !svg.texts.iter().any(|t| t.contains('=') && t.contains('…')),
        "a label cut mid-field: {:?}",
        svg.texts
    );
    for result in ["hit", "miss", "jammed", "blown"] {
        let prefix = format!("{result} · ");
        assert!(
            svg.texts.iter().any(|t| t.starts_with(&prefix)),
            "no row of `{result}` in the joint panel: {:?}",
            svg.texts
        );
    }
    assert!(svg.texts.iter().any(|t| t.starts_with("… ") && t.ends_with(" more")));
}

/// Issue 42, point 9: means of different sizes are drawn on different axes: a battle's losses
/// (about 50) and the units left (about 0.2) are not in one panel.
#[test]
fn means_of_different_sizes_get_their_own_panels() {
    let dir = scratch("means");
    let args = [
        "sim",
        "mercenary.battle",
        "--input",
        "examples/mercenary-infantry-clash.yaml",
        "--runs",
        "200",
    ];
    let (svg, _) = chart(&args, &dir.join("sim.svg"));
    let svg = parse(&svg);
    let panels: Vec<&String> = svg.texts.iter().filter(|t| t.starts_with("means per run")).collect();
    assert!(panels.len() >= 2, "{panels:?}");
    // The panels' order follows the texts: the large losses come before the small units left.
    let at = |t: &str| svg.texts.iter().position(|x| x == t).unwrap_or_else(|| panic!("no `{t}`"));
    assert!(
        at("losses_b.infantry.lost") < at(panels[1]) && at(panels[1]) < at("units_left_b"),
        "{:?}",
        svg.texts
    );
}

/// Issue 42, point 9: a chart is SVG, so a name of another format is refused before any work
/// (nothing written), and a chart written says where on stderr.
#[test]
fn a_chart_under_another_format_is_refused_and_a_written_one_is_named() {
    let dir = scratch("format");
    let png = dir.join("x.png");
    let out = rulebook(&[
        "odds",
        "starleader.fire",
        "--set",
        "weapon=Ghazi 10/7",
        "--chart",
        &png.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("charts are SVG, not PNG; give ") && err.contains("x.svg"), "{err}");
    assert!(!png.exists());
    let svg = dir.join("x.svg");
    let out = rulebook(&[
        "odds",
        "starleader.fire",
        "--set",
        "weapon=Ghazi 10/7",
        "--chart",
        &svg.to_string_lossy(),
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("chart written to {}", svg.display())), "{err}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("chart written"),
        "stdout stays the report"
    );
}
