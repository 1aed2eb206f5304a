//! `sweep --chart FILE.svg`: what a sweep draws. One varied input gives a line chart, a line per
//! outcome; two give a heatmap per outcome; more give a heatmap of one outcome for each value of
//! the inputs past the first two. What can be found wrong is refused before the work ([`plan`]).

use super::chart::{self, Chart, Panel};
use super::chart_grid::{Heatmap, Lines, LINES, MAX_CELLS_AXIS};
use super::CliError;
use rulebook_runtime as rt;
use std::path::{Path, PathBuf};

/// Heatmaps drawn one above the other, at most: outcomes of a two-input sweep, or the values of
/// the inputs past the first two.
const MAX_PANELS: usize = 12;
/// Heatmaps of a two-input sweep when no outcome is chosen: the most probable.
const DEFAULT_HEATMAPS: usize = 4;

/// An outcome to draw: `FIELD=VALUE` (every outcome whose field has that value, summed) or the
/// outcome as the CSV shows it.
#[derive(Debug, Clone)]
enum Pick {
    Field(String, String),
    Whole(String),
}

/// What `--chart` will draw, settled before the work.
pub struct Plan {
    path: PathBuf,
    picks: Vec<Pick>,
}

/// Checks `--chart` and `--chart-outcome` against the grid before any point is computed.
pub fn plan(path: Option<&Path>, outcomes: &[String], axes: &[(String, Vec<String>)], sharded: bool) -> Result<Option<Plan>, CliError> {
    let Some(path) = path else {
        if !outcomes.is_empty() {
            return Err(CliError::usage(
                "--chart-outcome chooses what --chart FILE.svg draws; give --chart too",
            ));
        }
        return Ok(None);
    };
    if sharded {
        return Err(CliError::usage(
            "--chart draws the whole grid, and --shard computes a part of it: run the sweep without --shard to draw it",
        ));
    }
    chart::check_target(path)?;
    if axes.len() >= 2 {
        if let Some((name, vs)) = axes[..2].iter().find(|(_, vs)| vs.len() > MAX_CELLS_AXIS) {
            return Err(CliError::usage(format!(
                "--chart: `{name}` has {} values, more than a heatmap's {MAX_CELLS_AXIS} a side; vary it over fewer, or chart it first of one input",
                vs.len()
            )));
        }
    }
    if axes.len() > 2 {
        let panels: usize = axes[2..].iter().map(|(_, vs)| vs.len()).product();
        if outcomes.len() != 1 {
            return Err(CliError::usage(format!(
                "--chart of {} varied inputs draws one outcome a heatmap for each value of `{}`: choose it with one --chart-outcome (e.g. --chart-outcome result=hit)",
                axes.len(),
                axes[2..].iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join("`, `")
            )));
        }
        if panels > MAX_PANELS {
            return Err(CliError::usage(format!(
                "--chart would draw {panels} heatmaps (one for each value of the inputs past the first two), more than {MAX_PANELS}; vary them over fewer values"
            )));
        }
    }
    if axes.len() == 2 && outcomes.len() > MAX_PANELS {
        return Err(CliError::usage(format!(
            "--chart draws at most {MAX_PANELS} outcomes; choose fewer"
        )));
    }
    if axes.len() == 1 && outcomes.len() > LINES.len() {
        return Err(CliError::usage(format!(
            "--chart draws at most {} lines; choose fewer outcomes",
            LINES.len()
        )));
    }
    let picks = outcomes
        .iter()
        .map(|o| match o.split_once('=') {
            Some((f, v)) if !f.trim().is_empty() => Pick::Field(f.trim().to_string(), v.trim().to_string()),
            _ => Pick::Whole(o.trim().to_string()),
        })
        .collect();
    Ok(Some(Plan {
        path: path.to_path_buf(),
        picks,
    }))
}

/// An outcome as the chart names it: a record's values joined with ` · ` (the title names the
/// fields), anything else as the CSV shows it.
fn label(o: &rt::Value) -> String {
    match o {
        rt::Value::Record(fields) => fields.iter().map(|(_, v)| v.to_string()).collect::<Vec<_>>().join(" · "),
        other => other.to_string(),
    }
}

fn same(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.trim().trim_matches('"').to_lowercase();
    norm(a) == norm(b)
}

impl Pick {
    /// The outcome's name in a legend or title: `result = hit`, or, for a whole outcome,
    /// `result · damage = hit · 3` given the fields its label joins.
    fn name(&self, fields: &[&str]) -> String {
        match self {
            Pick::Field(f, v) => format!("{f} = {v}"),
            Pick::Whole(w) if fields.is_empty() => w.clone(),
            Pick::Whole(w) => format!("{} = {w}", fields.join(" · ")),
        }
    }

    fn matches(&self, o: &rt::Value) -> bool {
        match self {
            Pick::Field(f, v) => o.field(f).is_some_and(|x| same(&x.to_string(), v)),
            Pick::Whole(w) => same(&label(o), w),
        }
    }

    /// The probability of this outcome at one point: the sum over the outcomes it matches.
    fn probability(&self, d: &rt::Distribution<rt::Value>) -> f64 {
        // Folded from +0: an empty f64 sum is -0, which would print as `-0%`.
        d.outcomes
            .iter()
            .filter(|(o, _)| self.matches(o))
            .fold(0.0, |sum, (_, p)| sum + chart::to_f64(p))
    }
}

/// One computed point, as the chart reads it: its values of the varied inputs and its odds.
pub struct Point<'a> {
    pub values: &'a [String],
    pub odds: Option<&'a rt::Distribution<rt::Value>>,
    /// Its odds are a simulation's estimate, not exact.
    pub simulated: bool,
}

/// The outcomes to draw when none is chosen: for an outcome record, each value of its first
/// field (the result, in every book), else each outcome; the `keep` most probable over the grid,
/// in the order the CSV lists them; and the names of the rest.
fn default_picks(points: &[Point], keep: usize) -> (Vec<Pick>, Vec<String>) {
    let pick_of = |o: &rt::Value| match o {
        rt::Value::Record(fs) if !fs.is_empty() => Pick::Field(fs[0].0.to_string(), fs[0].1.to_string()),
        other => Pick::Whole(other.to_string()),
    };
    let mut order: Vec<(Pick, String, f64)> = Vec::new();
    for d in points.iter().filter_map(|p| p.odds) {
        for (o, p) in &d.outcomes {
            let pick = pick_of(o);
            let name = pick.name(&[]);
            match order.iter_mut().find(|(_, x, _)| *x == name) {
                Some((_, _, total)) => *total += chart::to_f64(p),
                None => order.push((pick, name, chart::to_f64(p))),
            }
        }
    }
    let mut by_mass: Vec<usize> = (0..order.len()).collect();
    by_mass.sort_by(|&a, &b| order[b].2.total_cmp(&order[a].2).then(a.cmp(&b)));
    let mut kept: Vec<usize> = by_mass.iter().copied().take(keep).collect();
    kept.sort_unstable();
    let rest = by_mass.iter().skip(keep).map(|&i| order[i].1.clone()).collect();
    (kept.into_iter().map(|i| order[i].0.clone()).collect(), rest)
}

/// Draws the sweep and writes it to the planned file. `fields` names the outcome's fields (for
/// the title), `inputs` the inputs held fixed.
pub fn draw(
    plan: &Plan,
    resolver: &str,
    fields: &[&str],
    inputs: Vec<String>,
    axes: &[(String, Vec<String>)],
    points: &[Point],
) -> Result<(), CliError> {
    // The fields an outcome's label joins: those asked for, else those of the outcome record.
    let first = points.iter().filter_map(|p| p.odds).find_map(|d| d.outcomes.first());
    let fields: Vec<&str> = match first {
        Some((rt::Value::Record(fs), _)) if fields.is_empty() => fs.iter().map(|(f, _)| *f).collect(),
        _ => fields.to_vec(),
    };
    let keep = if axes.len() == 1 { LINES.len() } else { DEFAULT_HEATMAPS };
    let (picks, rest) = if plan.picks.is_empty() {
        default_picks(points, keep)
    } else {
        (plan.picks.clone(), Vec::new())
    };
    // A chosen outcome that no point has is a mistake in --chart-outcome, not a line at 0%.
    for pick in &plan.picks {
        if !points
            .iter()
            .filter_map(|p| p.odds)
            .any(|d| d.outcomes.iter().any(|(o, _)| pick.matches(o)))
        {
            let (seen, _) = default_picks(points, usize::MAX);
            let seen: Vec<String> = seen.iter().take(12).map(|k| k.name(&[])).collect();
            return Err(CliError::usage(format!(
                "--chart-outcome {}: no point has that outcome; outcomes: {} (or FIELD=VALUE of a field: {})",
                pick.name(&[]),
                seen.join(", "),
                fields.join(", ")
            )));
        }
    }
    let of = if fields.is_empty() {
        String::new()
    } else {
        format!(" ({})", fields.join(" · "))
    };
    let mut notes = Vec::new();
    if !rest.is_empty() {
        let shown: Vec<&str> = rest.iter().take(6).map(String::as_str).collect();
        notes.push(format!(
            "not drawn: {} less probable outcome{} ({}{}); choose with --chart-outcome",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if rest.len() > 6 { ", …" } else { "" }
        ));
    }
    if points.iter().any(|p| p.simulated) {
        notes.push("some points are estimates from a simulation, not exact odds (the CSV's `simulated` says which)".into());
    }
    if points.iter().any(|p| p.odds.is_none()) {
        notes.push("grey or a gap: a point without exact odds (the CSV's `error` says why)".into());
    }
    let (title, panels) = if axes.len() == 1 {
        let series = picks
            .iter()
            .map(|k| (k.name(&[]), points.iter().map(|p| p.odds.map(|d| k.probability(d))).collect()))
            .collect();
        let lines = Lines {
            axis: axes[0].0.clone(),
            xs: axes[0].1.clone(),
            series,
        };
        // Lines of the values of one field are titled by the field; others by the outcome.
        let field = match picks.first() {
            Some(Pick::Field(f, _)) if picks.iter().all(|k| matches!(k, Pick::Field(g, _) if g == f)) => Some(f.clone()),
            _ => None,
        };
        let panel = field.unwrap_or_else(|| format!("outcome{of}"));
        (
            format!("{resolver}: the odds of each outcome by {}", axes[0].0),
            vec![Panel {
                title: panel,
                kind: chart::Kind::Lines(lines),
            }],
        )
    } else {
        (
            {
                // The inputs past the first two each get a heatmap per value: the title says so.
                let rest: Vec<&str> = axes[2..].iter().map(|(n, _)| n.as_str()).collect();
                let each = if rest.is_empty() {
                    String::new()
                } else {
                    format!(", for each {}", rest.join(" and "))
                };
                format!("{resolver}: the odds by {} and {}{each}", axes[0].0, axes[1].0)
            },
            heatmaps(&picks, &fields, axes, points),
        )
    };
    let mut inputs = inputs;
    inputs.retain(|i| !axes.iter().any(|(n, _)| i.split_once('=').is_some_and(|(k, _)| k == n)));
    chart::write(
        &plan.path,
        &Chart {
            title,
            inputs,
            panels,
            notes,
        },
    )
}

/// The heatmaps: for each outcome (and each value of the inputs past the first two), the first
/// two inputs as rows and columns; the one whose values are the longer text goes down the side,
/// where its labels have room.
fn heatmaps(picks: &[Pick], fields: &[&str], axes: &[(String, Vec<String>)], points: &[Point]) -> Vec<Panel> {
    let longest = |vs: &[String]| vs.iter().map(|v| v.chars().count()).max().unwrap_or(0);
    let swap = longest(&axes[1].1) > longest(&axes[0].1);
    let (down, across) = if swap { (1, 0) } else { (0, 1) };
    let (n, m) = (axes[down].1.len(), axes[across].1.len());
    // The grid's points are numbered with the first input varying slowest, so point
    // `(first · second's count + second) · blocks + b` has the first two inputs' values and the
    // b-th combination of the others'.
    let blocks = points.len() / (n * m).max(1);
    let mut panels = Vec::new();
    for pick in picks {
        for b in 0..blocks {
            let at = |i: usize, j: usize| {
                let (r, c) = if swap { (j, i) } else { (i, j) };
                let index = (r * axes[1].1.len() + c) * blocks + b;
                points.get(index).and_then(|p| p.odds).map(|d| pick.probability(d))
            };
            let cells = (0..n).map(|i| (0..m).map(|j| at(i, j)).collect()).collect();
            let rest: Vec<String> = axes[2..]
                .iter()
                .zip(points.get(b).map_or(&[][..], |p| &p.values[2..]))
                .map(|((name, _), v)| format!("{name}={v}"))
                .collect();
            let title = if rest.is_empty() {
                format!("P({})", pick.name(fields))
            } else {
                format!("P({}) at {}", pick.name(fields), rest.join(", "))
            };
            let map = Heatmap {
                rows_axis: axes[down].0.clone(),
                rows: axes[down].1.clone(),
                cols_axis: axes[across].0.clone(),
                cols: axes[across].1.clone(),
                cells,
            };
            panels.push(Panel {
                title,
                kind: chart::Kind::Heatmap(map),
            });
        }
    }
    panels
}
