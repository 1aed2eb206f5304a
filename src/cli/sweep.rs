//! `rulebook sweep`: the exact odds of one resolver at every point of a grid of inputs (`--vary`),
//! in parallel, as CSV or JSON; `--shard I/N` computes one N-th of the grid, and `rulebook merge`
//! joins the shards into what one run writes, byte for byte.

use super::inputs::{self, InputArgs};
use super::{CliError, RulesArg};
use rulebook_runtime as rt;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most points in one grid: far above a designer's table, far below what would not end.
const MAX_CELLS: usize = 1_000_000;
/// Most values `all` and `lo..hi` give one input.
const MAX_VALUES: usize = 10_000;

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
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
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
    /// Give up on the exact odds of one point after this many seconds (it is reported as such)
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("expected I/N with 1 <= I <= N (e.g. 2/4), got `{s}`");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// A point's exact odds, or why there are none.
type Odds = Result<rt::Distribution<rt::Value>, String>;
/// A worker's point under way: since when, and the watch that stops it.
type Working = (Instant, Arc<rt::Watch>);

/// One point of the grid: its number in the whole grid, its values of the varied inputs, and its
/// odds (or why there are none).
struct Cell {
    index: usize,
    values: Vec<String>,
    result: Odds,
}

pub fn run(systems: &[&'static rt::SystemInfo], args: &SweepArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    let fields = super::odds::chosen_fields(r, &args.fields)?;
    let axes: Vec<(String, Vec<String>)> = args.vary.iter().map(|(n, v)| axis(r, n, v)).collect::<Result<_, _>>()?;
    let total = axes.iter().try_fold(1usize, |acc, (_, vs)| acc.checked_mul(vs.len()).filter(|&n| n <= MAX_CELLS));
    let total = total.ok_or_else(|| CliError::usage(format!("the grid has more than {MAX_CELLS} points; vary fewer inputs or narrower ranges")))?;
    let (part, parts) = args.shard.unwrap_or((1, 1));
    let chart = super::sweep_chart::plan(args.chart.as_deref(), &args.chart_outcomes, &axes, args.shard.is_some())?;
    // Every point's inputs bound first: a value that does not fit is a usage error before any work.
    let mut points = Vec::new();
    for index in (0..total).filter(|i| i % parts == part - 1) {
        let values = point(&axes, index);
        let mut given = args.inputs.clone();
        given.sets.extend(axes.iter().map(|(n, _)| n.clone()).zip(values.iter().cloned()));
        points.push((index, values, inputs::bind(r, &given)?));
    }
    let threads = args.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| usize::try_from(t).unwrap_or(1));
    let started = Instant::now();
    let mut cells = compute(r, &points, threads, args.budget);
    if let Some(keep) = &fields {
        for c in &mut cells {
            if let Ok(d) = &c.result {
                c.result = Ok(d.marginal(|o| rt::Value::Record(keep.iter().map(|&f| (f, o.field(f).cloned().unwrap_or(rt::Value::None))).collect())));
            }
        }
    }
    let names: Vec<&str> = axes.iter().map(|(n, _)| n.as_str()).collect();
    if args.json {
        let doc = json_doc(&format!("{}.{}", s.name, r.name), &names, &cells, total);
        writeln!(out, "{}", super::list::pretty(&doc)?)?;
    } else {
        write_csv(&names, fields.as_deref(), &cells, out)?;
    }
    if let Some(plan) = &chart {
        let drawn: Vec<super::sweep_chart::Point> = cells.iter().map(|c| super::sweep_chart::Point { values: &c.values, odds: c.result.as_ref().ok() }).collect();
        let fixed = points.first().map(|(_, _, bound)| inputs::items(r, bound)).unwrap_or_default();
        let fields: Vec<&str> = fields.as_deref().unwrap_or_default().to_vec();
        super::sweep_chart::draw(plan, &format!("{}.{}", s.name, r.name), &fields, fixed, &axes, &drawn)?;
    }
    let failed = cells.iter().filter(|c| c.result.is_err()).count();
    writeln!(
        err,
        "{} of {total} points in {:.1} s on {threads} threads{}",
        cells.len(),
        started.elapsed().as_secs_f64(),
        if failed > 0 { format!("; {failed} without exact odds (their `error` says why)") } else { String::new() }
    )?;
    Ok(())
}

/// The values of one varied input: `LO..HI`, `A,B,C` or `all`.
fn axis(r: &rt::ResolverInfo, name: &str, spec: &str) -> Result<(String, Vec<String>), CliError> {
    let input = r.inputs.iter().find(|i| rt::normalize(i.name) == rt::normalize(name));
    let Some(input) = input else {
        let known: Vec<&str> = r.inputs.iter().map(|i| i.name).collect();
        return Err(CliError::usage(format!("--vary {name}: {} has no input `{name}`; its inputs: {}", r.name, known.join(", "))));
    };
    let values = if spec.trim() == "all" {
        every_value(input.ty).ok_or_else(|| {
            CliError::usage(format!(
                "--vary {name}=all: `{}` has too many values to list (give LO..HI or A,B,C)",
                input.ty
            ))
        })?
    } else if let Some((lo, hi)) = spec.split_once("..") {
        let num = |t: &str| t.trim().parse::<i64>().map_err(|_| CliError::usage(format!("--vary {name}={spec}: `{t}` is not a whole number")));
        let (lo, hi) = (num(lo)?, num(hi)?);
        if hi < lo || (hi - lo) as u128 >= MAX_VALUES as u128 {
            return Err(CliError::usage(format!("--vary {name}={spec}: give LO..HI with LO <= HI and at most {MAX_VALUES} values")));
        }
        (lo..=hi).map(|v| v.to_string()).collect()
    } else {
        spec.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect()
    };
    if values.is_empty() {
        return Err(CliError::usage(format!("--vary {name}=: no values")));
    }
    Ok((input.name.to_string(), values))
}

/// Every value of a type that has few: yes/no, an enum's variants, a table's keys, a bounded int's
/// numbers; `none` first for an optional one.
fn every_value(ty: &rt::Ty) -> Option<Vec<String>> {
    match ty {
        rt::Ty::Bool => Some(vec!["no".into(), "yes".into()]),
        rt::Ty::Enum(e) => Some(e.variants.iter().map(|v| v.to_string()).collect()),
        rt::Ty::Key(tables) => Some(tables.iter().flat_map(|t| t.keys.iter().map(|k| k.to_string())).collect()),
        rt::Ty::Int { min, max } if max.checked_sub(*min).is_some_and(|d| d < MAX_VALUES as i64) => Some((*min..=*max).map(|v| v.to_string()).collect()),
        rt::Ty::Opt(inner) => every_value(inner).map(|vs| std::iter::once("none".to_string()).chain(vs).collect()),
        _ => None,
    }
}

/// The values of point `index` of the grid, the first axis varying slowest.
fn point(axes: &[(String, Vec<String>)], mut index: usize) -> Vec<String> {
    let mut values = vec![String::new(); axes.len()];
    for (k, (_, vs)) in axes.iter().enumerate().rev() {
        values[k] = vs[index % vs.len()].clone();
        index /= vs.len();
    }
    values
}

/// The odds of every point, on `threads` workers taking the next point as each finishes; a point
/// past `budget` seconds is stopped. A bar shows on a terminal.
fn compute(r: &'static rt::ResolverInfo, points: &[(usize, Vec<String>, rt::Inputs)], threads: usize, budget: u64) -> Vec<Cell> {
    use std::io::IsTerminal;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Odds>>> = Mutex::new(vec![None; points.len()]);
    // What each worker is on: since when, and the watch that stops it.
    let running: Vec<Mutex<Option<Working>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(points.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {bar:40} {pos}/{len} points, {per_sec}, eta {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let mut workers = 0;
        for slot in &running {
            let (next, results, done, bar) = (&next, &results, &done, &bar);
            let spawned = std::thread::Builder::new().stack_size(rt::RESOLUTION_STACK).spawn_scoped(s, move || loop {
                let i = next.fetch_add(1, Relaxed);
                let Some((_, _, bound)) = points.get(i) else { break };
                let watch = Arc::new(rt::Watch::default());
                watch.budget_seconds.store(budget, Relaxed);
                *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some((Instant::now(), watch.clone()));
                let odds = rt::with_watch(watch, || r.odds(bound)).map_err(|e| e.to_string());
                *slot.lock().unwrap_or_else(|p| p.into_inner()) = None;
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(odds);
                done.fetch_add(1, Relaxed);
                bar.inc(1);
            });
            workers += usize::from(spawned.is_ok());
        }
        // The watchdog: a point past its budget is cancelled (the enumeration stops at its next check).
        while workers > 0 && done.load(Relaxed) < points.len() {
            std::thread::sleep(Duration::from_millis(50));
            for slot in &running {
                if let Some((since, w)) = &*slot.lock().unwrap_or_else(|p| p.into_inner()) {
                    if since.elapsed() >= Duration::from_secs(budget) {
                        w.cancel.store(true, Relaxed);
                    }
                }
            }
        }
    });
    bar.finish_and_clear();
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    points
        .iter()
        .zip(results)
        .map(|((index, values, _), result)| Cell {
            index: *index,
            values: values.clone(),
            result: result.unwrap_or_else(|| Err("not computed: its worker thread could not start".into())),
        })
        .collect()
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
    writeln!(out, "point,{},probability,percent,error", head.join(","))?;
    let blanks = ",".repeat(fields.map_or(1, <[&str]>::len));
    for c in cells {
        let values: Vec<String> = c.values.iter().map(|v| csv_field(v)).collect();
        let lead = format!("{},{}", c.index, values.join(","));
        match &c.result {
            Ok(d) => {
                for (o, p) in &d.outcomes {
                    let shown: Vec<String> = match fields {
                        Some(fs) => fs.iter().map(|f| csv_field(&o.field(f).map_or_else(String::new, ToString::to_string))).collect(),
                        None => vec![csv_field(&o.to_string())],
                    };
                    writeln!(out, "{lead},{},{},{},", shown.join(","), p.numer_denom_string(), p.percent(4))?;
                }
            }
            Err(e) => writeln!(out, "{lead}{blanks},,,{}", csv_field(e))?,
        }
    }
    Ok(())
}

fn json_doc(resolver: &str, names: &[&str], cells: &[Cell], total: usize) -> serde_json::Value {
    let points: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| {
            let inputs: serde_json::Map<String, serde_json::Value> = names.iter().map(|n| n.to_string()).zip(c.values.iter().map(|v| v.clone().into())).collect();
            match &c.result {
                Ok(d) => serde_json::json!({
                    "point": c.index,
                    "inputs": inputs,
                    "outcomes": d.outcomes.iter().map(|(o, p)| serde_json::json!({"outcome": o.to_json(), "probability": p.numer_denom_string()})).collect::<Vec<_>>(),
                }),
                Err(e) => serde_json::json!({"point": c.index, "inputs": inputs, "error": e}),
            }
        })
        .collect();
    serde_json::json!({"resolver": resolver, "vary": names, "grid_points": total, "points": points})
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
            Some(h) if h != head => return Err(CliError::usage(format!("{}: not a shard of the same sweep (its columns differ)", f.display()))),
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
