//! `rulebook sweep`: the exact odds of one resolver at every point of a grid of inputs (`--vary`),
//! in parallel, as CSV or JSON; `--shard I/N` computes one N-th of the grid, and `rulebook merge`
//! joins the shards into what one run writes, byte for byte.

use super::inputs::{self, InputArgs};
use super::{CliError, RulesArg};
use rt::sweep::{Cell, Grid};
use rulebook_runtime as rt;
use std::io::Write;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    pub rules: RulesArg,
    /// The resolver, as SYSTEM.RESOLVER
    #[arg(value_name = "SYSTEM.RESOLVER")]
    pub resolver: String,
    /// An input to vary (repeatable; the first varies slowest): NAME=LO..HI (whole numbers),
    /// NAME=A,B,C, or NAME=all (every variant of an enum, every key of a table, no and yes, every
    /// number of a bounded int)
    #[arg(long = "vary", value_name = "NAME=VALUES", value_parser = inputs::parse_set, required = true)]
    pub vary: Vec<(String, String)>,
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Report only these outputs (repeat, or separate with commas): outcomes that agree on them merge
    #[arg(long = "field", value_name = "FIELD", value_delimiter = ',')]
    pub fields: Vec<String>,
    /// JSON instead of CSV
    #[arg(long)]
    pub json: bool,
    /// Compute only the points whose number is I modulo N (1-based I), for `rulebook merge`
    #[arg(long, value_name = "I/N", value_parser = rt::sweep::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Worker threads (default: every core)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Draw the sweep as SVG: one varied input gives a line per outcome, two a heatmap per outcome,
    /// more a heatmap of one outcome (--chart-outcome) for each value of the inputs past the first two
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<std::path::PathBuf>,
    /// The outcome a chart draws (repeatable): FIELD=VALUE (e.g. result=hit, summed over the other
    /// fields) or an outcome as the CSV shows it; default: the most probable
    #[arg(long = "chart-outcome", value_name = "OUTCOME")]
    pub chart_outcomes: Vec<String>,
    /// With one --field: a point whose exact odds are out of reach (too large, or past --budget) is
    /// estimated by this many seeded runs instead (its `simulated` column says so); 0: report the error
    #[arg(long, value_name = "RUNS", default_value_t = rt::sweep::FALLBACK_RUNS)]
    pub sim_runs: u64,
    /// Give up on the exact odds of one point after this many seconds (it is reported as such)
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
}

pub fn run(systems: &[&'static rt::SystemInfo], args: &SweepArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    let fields = super::odds::chosen_fields(r, &args.fields)?;
    let grid = Grid::new(r, &args.vary).map_err(CliError::usage)?;
    let axes = &grid.axes;
    let (part, parts) = args.shard.unwrap_or((1, 1));
    let chart = super::sweep_chart::plan(args.chart.as_deref(), &args.chart_outcomes, axes, args.shard.is_some())?;
    // Every point's inputs bound first: a value that does not fit is a usage error before any work.
    let mut points = Vec::new();
    for index in grid.shard(part, parts) {
        let values = grid.point(index);
        let mut given = args.inputs.clone();
        given.sets.extend(axes.iter().map(|(n, _)| n.clone()).zip(values.iter().cloned()));
        points.push((index, values, inputs::bind(r, &given)?));
    }
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| usize::try_from(t).unwrap_or(1),
    );
    let started = Instant::now();
    let bar = progress_bar(points.len());
    // Past its budget, a point is estimated by simulation when one field is asked for.
    let fallback = match fields.as_deref() {
        Some([field]) if args.sim_runs > 0 => Some(rt::sweep::Fallback {
            field,
            runs: args.sim_runs,
        }),
        _ => None,
    };
    let mut cells = rt::sweep::compute(r, &points, threads, args.budget, fallback, &|| bar.inc(1));
    bar.finish_and_clear();
    if let Some(keep) = &fields {
        rt::sweep::keep_fields(&mut cells, keep);
    }
    let names = grid.names();
    if args.json {
        let doc = rt::sweep::json_doc(&format!("{}.{}", s.name, r.name), &grid, &cells);
        writeln!(out, "{}", super::list::pretty(&doc)?)?;
    } else {
        write_csv(&names, fields.as_deref(), &cells, out)?;
    }
    if let Some(plan) = &chart {
        let drawn: Vec<super::sweep_chart::Point> = cells
            .iter()
            .map(|c| super::sweep_chart::Point {
                values: &c.values,
                odds: c.result.as_ref().ok(),
                simulated: c.simulated.is_some(),
            })
            .collect();
        let fixed = points.first().map(|(_, _, bound)| inputs::items(r, bound)).unwrap_or_default();
        let fields: Vec<&str> = fields.as_deref().unwrap_or_default().to_vec();
        super::sweep_chart::draw(plan, &format!("{}.{}", s.name, r.name), &fields, fixed, axes, &drawn)?;
    }
    let failed = cells.iter().filter(|c| c.result.is_err()).count();
    let simulated = cells.iter().filter(|c| c.simulated.is_some()).count();
    let mut said = String::new();
    if simulated > 0 {
        said.push_str(&format!("; {simulated} estimated by simulation (see `simulated`)"));
    }
    if failed > 0 {
        said.push_str(&format!("; {failed} without odds (their `error` says why)"));
    }
    writeln!(
        err,
        "{} of {} points in {:.1} s on {threads} threads{said}",
        cells.len(),
        grid.total,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// A bar on a terminal: points done, their rate, the time left.
fn progress_bar(len: usize) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let b = indicatif::ProgressBar::new(len as u64);
    b.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {bar:40} {pos}/{len} points, {per_sec}, eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    b
}

/// One CSV field: quoted when it holds a comma, a quote or a line end.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `point,NAME...,OUTCOME...,probability,percent,error`: a row per outcome of each point, the
/// probability an exact fraction; the outcome as one column `outcome`, or with `--field` a column
/// per field; a point without exact odds has one row with its `error`.
fn write_csv(names: &[&str], fields: Option<&[&str]>, cells: &[Cell], out: &mut dyn Write) -> Result<(), CliError> {
    let head: Vec<String> = names.iter().chain(fields.unwrap_or(&["outcome"])).map(|n| csv_field(n)).collect();
    writeln!(out, "point,{},probability,percent,simulated,error", head.join(","))?;
    let blanks = ",".repeat(fields.map_or(1, <[&str]>::len));
    for c in cells {
        let values: Vec<String> = c.values.iter().map(|v| csv_field(v)).collect();
        let lead = format!("{},{}", c.index, values.join(","));
        match &c.result {
            Ok(d) => {
                for (o, p) in &d.outcomes {
                    let shown: Vec<String> = match fields {
                        Some(fs) => fs
                            .iter()
                            .map(|f| csv_field(&o.field(f).map_or_else(String::new, ToString::to_string)))
                            .collect(),
                        None => vec![csv_field(&o.to_string())],
                    };
                    let simulated = c.simulated.map_or_else(String::new, |n| n.to_string());
                    writeln!(
                        out,
                        "{lead},{},{},{},{simulated},",
                        shown.join(","),
                        p.numer_denom_string(),
                        p.percent(4)
                    )?;
                }
            }
            Err(e) => writeln!(out, "{lead}{blanks},,,,{}", csv_field(e))?,
        }
    }
    Ok(())
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' outputs (CSV, or JSON with --json), in any order
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<std::path::PathBuf>,
    /// The shards are JSON (`sweep --json`)
    #[arg(long)]
    pub json: bool,
}

/// `rulebook merge`: the shards of one sweep joined into what one run writes.
pub fn merge(args: &MergeArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let texts: Vec<String> = args
        .files
        .iter()
        .map(|f| std::fs::read_to_string(f).map_err(|e| CliError::usage(format!("cannot read {}: {e}", f.display()))))
        .collect::<Result<_, _>>()?;
    if args.json {
        return merge_json(&args.files, &texts, out);
    }
    let mut header: Option<&str> = None;
    let mut rows: Vec<(usize, &str)> = Vec::new();
    for (f, text) in args.files.iter().zip(&texts) {
        let mut lines = text.lines();
        let head = lines.next().unwrap_or_default();
        match header {
            Some(h) if h != head => {
                return Err(CliError::usage(format!(
                    "{}: not a shard of the same sweep (its columns differ)",
                    f.display()
                )))
            }
            _ => header = Some(head),
        }
        for line in lines {
            let point = line.split(',').next().and_then(|p| p.parse::<usize>().ok());
            let point = point.ok_or_else(|| CliError::usage(format!("{}: a row without its point number: `{line}`", f.display())))?;
            rows.push((point, line));
        }
    }
    // Stable: the rows of one point keep their order.
    rows.sort_by_key(|(p, _)| *p);
    writeln!(out, "{}", header.unwrap_or_default())?;
    for (_, line) in rows {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn merge_json(files: &[std::path::PathBuf], texts: &[String], out: &mut dyn Write) -> Result<(), CliError> {
    let mut merged: Option<serde_json::Value> = None;
    let mut points = Vec::new();
    for (f, text) in files.iter().zip(texts) {
        let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| CliError::usage(format!("{}: not JSON: {e}", f.display())))?;
        let Some(ps) = doc["points"].as_array() else {
            return Err(CliError::usage(format!("{}: not the JSON of `sweep --json`", f.display())));
        };
        points.extend(ps.iter().cloned());
        let same = |m: &serde_json::Value| ["resolver", "vary", "grid_points"].iter().all(|k| m[k] == doc[k]);
        match &merged {
            Some(m) if !same(m) => return Err(CliError::usage(format!("{}: not a shard of the same sweep", f.display()))),
            _ => merged = Some(doc),
        }
    }
    points.sort_by_key(|p| p["point"].as_u64());
    let mut doc = merged.unwrap_or_default();
    doc["points"] = serde_json::Value::Array(points);
    writeln!(out, "{}", super::list::pretty(&doc)?)?;
    Ok(())
}
