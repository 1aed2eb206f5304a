//! `rulebook sim`: many seeded runs of a procedure (a whole battle) on all cores, reported as
//! outcome probabilities and means with 95% intervals. The same seed gives the same report,
//! whatever `--threads` is; timings go to stderr only.

use super::list::pretty;
use super::{chart, inputs, CliError, SimArgs};
use rulebook_runtime as rt;
use std::io::{IsTerminal, Write};
use std::time::Instant;

pub fn run(systems: &[&'static rt::SystemInfo], args: &SimArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    let bound = inputs::bind(r, &args.inputs)?;
    let fields = super::odds::chosen_fields(r, &args.fields)?;
    super::odds::check_until(r, args.until.as_deref())?;
    if let Some(file) = &args.chart {
        chart::check_target(file)?;
    }
    let file = args
        .inputs
        .input
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "the inputs".into());
    // Invalid input is refused before anything is simulated: one trial run checks every `require`.
    // A refusal of the inputs names where they came from; any other failure is the rules' own, and
    // says and exits as `roll` and `odds` do.
    if let Err(e) = r.run_quiet(&mut rt::Seeded::new(rt::run_seed(args.seed, 0)), &mut rt::NoTrace, &bound) {
        return Err(match e.cause() {
            rt::Error::Rejected { .. } => {
                let mut refused = super::rules_error::failed(e, args.json, out);
                refused.message = format!("{file}: {}", refused.message);
                refused
            }
            _ if e.is_input_error() => CliError::usage(format!("{file}: {e}")),
            _ => super::rules_error::failed(e, args.json, out),
        });
    }
    let threads = match args.threads {
        Some(t) => usize::try_from(t).unwrap_or(1),
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    // Without --precision, --runs runs; with it, batches until the intervals are narrow enough,
    // --runs being the most it may take.
    let most = args.runs.unwrap_or(if args.precision.is_some() { MOST_RUNS } else { DEFAULT_RUNS });
    let bar = if std::io::stderr().is_terminal() && most >= 100 {
        let b = indicatif::ProgressBar::new(most);
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {bar:40} {pos}/{len} runs {per_sec} eta {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let until = args.until.as_deref().map(|field| rt::Until {
        field,
        max_steps: args.steps,
    });
    let started = Instant::now();
    // A first batch, timed, so that a long simulation says at once how long it will take; the
    // rest of the runs follow and the two tallies merge exactly (same report, byte for byte).
    // Instead of exact odds that ran out of time or room, the estimate has `budget` seconds: it
    // starts small and each batch fits in the time left (so how many runs it makes depends on
    // the machine's speed, which the report's run count says).
    let time_boxed = args.instead_of_exact.is_some();
    let first = most.min(if time_boxed {
        64 * threads as u64
    } else {
        FIRST_BATCH.max(64 * threads as u64)
    });
    // The first batch grows from a run a thread, doubling, until it is done or (a plain --runs)
    // has taken half a second: a procedure whose runs are long (`--until` with many steps) says how long the
    // rest will take at once, not after its whole first batch.
    let mut tally = rt::Tally::default();
    let mut runs = 0;
    let mut batch = threads as u64;
    while runs < first {
        let next = runs.saturating_add(batch).min(first);
        let done = runs;
        tally.merge(rt::simulate_until(r, &bound, until, runs..next, args.seed, threads, &|n| {
            bar.set_position(done + n)
        })?);
        runs = next;
        // With --precision the batches that follow depend on the runs so far, so its first batch
        // is whole, whatever the machine's speed.
        if args.precision.is_none() && started.elapsed().as_millis() >= 500 {
            break;
        }
        batch = batch.saturating_mul(2);
    }
    let first = runs;
    // `--field`: only these outputs (and what lies inside them) are reported.
    let kept = |path: &str| {
        fields.as_ref().is_none_or(|keep| {
            keep.iter()
                .any(|f| path == *f || path.strip_prefix(f).is_some_and(|rest| rest.starts_with('.')))
        })
    };
    // The categorical fields the report shows (per-item detail is only in --json).
    let reported = |f: &str| !f.contains('"') && kept(f);
    let mut precision = None;
    let mut out_of_time = false;
    if let Some(target) = args.precision {
        // Each batch aims at the runs the widest interval says are needed (a half-width shrinks
        // as 1/sqrt(runs)), in whole thousands, at most 16 times the runs so far. The batches
        // depend on the tallies only, so the stopping point is the same whatever --threads is.
        loop {
            let widest = tally.widest_interval(reported);
            let half = widest.as_ref().map_or(0.0, |w| w.2);
            out_of_time = time_boxed && started.elapsed().as_secs() >= args.budget;
            if half <= target || runs >= most || out_of_time {
                precision = Some((target, widest));
                break;
            }
            let aim = (runs as f64 * (half / target).powi(2)).ceil() as u64;
            let rate = runs as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let mut next = aim
                .div_ceil(1000)
                .saturating_mul(1000)
                .clamp(runs + 1, runs.saturating_mul(16))
                .min(most);
            if time_boxed {
                let time_left = args.budget as f64 - started.elapsed().as_secs_f64();
                next = next.min(runs + ((rate * time_left) as u64).max(1));
            }
            let left = (next - runs) as f64 / rate;
            if left >= LONG_SECS {
                bar.suspend(|| writeln!(err, "{}", estimate(next, left, rate)))?;
            }
            let done = runs;
            let more = rt::simulate_until(r, &bound, until, runs..next, args.seed, threads, &|n| bar.set_position(done + n))?;
            tally.merge(more);
            runs = next;
        }
    } else if first < most {
        let rate = first as f64 / started.elapsed().as_secs_f64().max(1e-9);
        let left = (most - first) as f64 / rate;
        if left >= LONG_SECS {
            bar.suspend(|| writeln!(err, "{}", estimate(most, left, rate)))?;
        }
        let rest = rt::simulate_until(r, &bound, until, first..most, args.seed, threads, &|n| bar.set_position(first + n))?;
        tally.merge(rest);
        runs = most;
    }
    bar.finish_and_clear();
    tally.categories.retain(|k, _| kept(k));
    tally.numbers.retain(|k, _| kept(k));
    tally.bounds.retain(|k, _| kept(k));
    tally.histograms.retain(|k, _| kept(k));
    let secs = started.elapsed().as_secs_f64();
    let _ = writeln!(
        err,
        "{} runs in {:.2} s on {threads} thread(s): {:.0} runs/s",
        runs,
        secs,
        runs as f64 / secs.max(1e-9)
    );
    // The exact odds to compare with, worked out before anything is printed (an error is then
    // all the output).
    let exact = if args.exact_check {
        let exact = match until {
            Some(u) => super::with_budget(args.budget, || r.chain(&bound, u.field, u.max_steps)).map(|c| c.end),
            None => super::exact_odds(r, &bound, args.budget),
        };
        let d = exact.map_err(|e| CliError {
            message: format!("--exact-check: {}", e.message),
            code: e.code,
        })?;
        let mut shares = rt::exact_shares(&d);
        shares.retain(|k, _| kept(k));
        Some(shares)
    } else {
        None
    };

    let path = format!("{}.{}", s.name, r.name);
    let main = tally.main_field();
    // The chart first: when it cannot be written, the error is all the output.
    if let Some(file) = &args.chart {
        let title = format!("{path} — {}: {} runs, seed {}", r.title, runs, args.seed);
        chart::write(file, &sim_chart(title, inputs::items(r, &bound), r, &tally, main.as_deref()))?;
    }
    let checks = exact.as_ref().map(|e| exact_checks(&tally, e, &reported));
    if args.json {
        let mut doc = rt::json::sim(s, r, &bound, &tally, runs, args.seed);
        if let (Some(why), Some(o)) = (&args.instead_of_exact, doc.as_object_mut()) {
            o.insert("estimated_because".into(), serde_json::json!(why));
        }
        if let (Some(u), Some(o)) = (until, doc.as_object_mut()) {
            o.insert(
                "until".into(),
                serde_json::json!({"field": u.field, "steps": u.max_steps, "unfinished": tally.unfinished}),
            );
        }
        if let (Some((target, widest)), Some(o)) = (&precision, doc.as_object_mut()) {
            let half = widest.as_ref().map_or(0.0, |w| w.2);
            o.insert(
                "precision".into(),
                serde_json::json!({
                    "target": target,
                    "met": half <= *target,
                    "widest": widest.as_ref().map(|(f, v, h)| serde_json::json!({"field": f, "value": v, "half_width": h})),
                }),
            );
        }
        if let (Some(checks), Some(o)) = (&checks, doc.as_object_mut()) {
            let rows: Vec<serde_json::Value> = checks
                .iter()
                .map(|c| {
                    serde_json::json!({"field": c.field, "value": c.value, "exact": c.exact.numer_denom_string(),
                        "estimate": c.estimate.value, "ci95": [c.estimate.low, c.estimate.high], "inside": c.inside})
                })
                .collect();
            o.insert("exact_check".into(), serde_json::Value::Array(rows));
        }
        writeln!(out, "{}", pretty(&doc)?)?;
        return Ok(());
    }
    if let Some(why) = &args.instead_of_exact {
        writeln!(out, "no exact odds: {why}")?;
        writeln!(out, "estimated instead, by simulation (`rulebook sim` with the same inputs):\n")?;
    }
    match until {
        Some(u) => writeln!(
            out,
            "{path} — {}: {} runs, seed {}, each step after step until `{}`",
            r.title, runs, args.seed, u.field
        )?,
        None => writeln!(out, "{path} — {}: {} runs, seed {}", r.title, runs, args.seed)?,
    }
    if let Some(u) = until.filter(|_| tally.unfinished > 0) {
        writeln!(
            out,
            "still running after {} steps: {} of the runs ({:.3}%), with no outcome below; --steps allows more",
            u.max_steps,
            tally.unfinished,
            tally.unfinished as f64 * 100.0 / runs.max(1) as f64
        )?;
    }
    if let Some((target, widest)) = &precision {
        let half = widest.as_ref().map_or(0.0, |w| w.2);
        let widest_text = widest
            .as_ref()
            .map(|(f, v, h)| format!("the widest is ±{:.3}% ({f} = {v})", h * 100.0))
            .unwrap_or_else(|| "there are no probabilities to report".into());
        if half <= *target {
            writeln!(
                out,
                "precision: every probability within ±{:.3}% at 95% after {runs} runs; {widest_text}",
                target * 100.0
            )?;
        } else {
            let stopped = if out_of_time {
                format!("stopped after {} s (--budget) at {runs} runs", args.budget)
            } else {
                format!("stopped at the most runs allowed ({runs}; raise --runs)")
            };
            writeln!(
                out,
                "precision: NOT reached: {stopped} with ±{:.3}% asked; {widest_text}",
                target * 100.0
            )?;
        }
    }
    // Text shows the outcome and top-level fields; per-item detail (`final."Alpha".status`) is in --json.
    let shown = |f: &str| !f.contains('"');
    // Fields with one value in every run are said once; the outcome field keeps its section (its
    // bounds on the values no run produced are the point of a simulation).
    let same = same_in_every_run(&tally);
    let constant = |f: &str| same.iter().any(|(k, _)| k == f);
    let said: Vec<String> = same
        .iter()
        .filter(|(f, _)| shown(f) && Some(f.as_str()) != main.as_deref())
        // A number that is 0 in every run stays left out, as the means leave out zero means.
        .filter(|(f, v)| !(v == "0" && tally.numbers.contains_key(f)))
        .map(|(f, v)| format!("{f}={v}"))
        .collect();
    if !said.is_empty() {
        writeln!(out, "\nin every run: {}", said.join(" "))?;
    }
    let mut order: Vec<&String> = tally
        .categories
        .keys()
        .filter(|f| shown(f) && (Some(f.as_str()) == main.as_deref() || !constant(f)))
        .collect();
    order.sort_by_key(|f| (Some(f.as_str()) != main.as_deref(), f.to_string()));
    for field in order {
        writeln!(out, "\n{field}:")?;
        // Declared values no run produced go on one line, with the bound the runs put on them.
        let (rows, unseen): (Vec<_>, Vec<_>) = tally.shares(field).into_iter().partition(|r| r.2.value > 0.0);
        let w = rows.iter().map(|(l, _, _)| l.chars().count()).max().unwrap_or(0);
        for (label, p, e) in rows {
            writeln!(
                out,
                "  {}  {:>7.3}%  95% CI [{:.3}%, {:.3}%]",
                super::pad(&label, w),
                p * 100.0,
                e.low * 100.0,
                e.high * 100.0
            )?;
        }
        if let Some((_, _, e)) = unseen.first() {
            let names: Vec<&str> = unseen.iter().map(|(l, _, _)| l.as_str()).collect();
            writeln!(out, "  not seen: {} (each below {:.3}% at 95%)", names.join(", "), e.high * 100.0)?;
        }
    }
    let means: Vec<(String, rt::Estimate)> = tally
        .numbers
        .keys()
        .filter(|f| shown(f) && !constant(f))
        .filter_map(|f| tally.mean(f).map(|e| (f.clone(), e)))
        .filter(|(_, e)| e.value != 0.0 || e.high != 0.0)
        .collect();
    if !means.is_empty() {
        writeln!(out, "\nmeans (zero means left out):")?;
        let w = means.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0);
        for (field, e) in means {
            writeln!(
                out,
                "  {}  {:>10.3}  95% CI [{:.3}, {:.3}]",
                super::pad(&field, w),
                e.value,
                e.low,
                e.high
            )?;
        }
    }
    if let Some(checks) = &checks {
        writeln!(out, "\nexact check (the exact odds of the same inputs):")?;
        let label = |c: &ExactCheck| format!("{} = {}", c.field, c.value);
        let w = checks.iter().map(|c| label(c).chars().count()).max().unwrap_or(0);
        writeln!(
            out,
            "  {}  {:>9}  {:>9}  {:<22}  inside",
            super::pad("", w),
            "exact",
            "estimate",
            "95% CI"
        )?;
        for c in checks {
            writeln!(
                out,
                "  {}  {:>8}%  {:>8.3}%  {:<22}  {}",
                super::pad(&label(c), w),
                c.exact.percent(3),
                c.estimate.value * 100.0,
                format!("[{:.3}%, {:.3}%]", c.estimate.low * 100.0, c.estimate.high * 100.0),
                if c.inside { "yes" } else { "NO" }
            )?;
        }
        let inside = checks.iter().filter(|c| c.inside).count();
        writeln!(
            out,
            "  {inside} of {} exact values lie inside their 95% intervals (about 1 in 20 may fall outside by chance)",
            checks.len()
        )?;
    }
    Ok(())
}

/// One outcome of `sim --exact-check`: its exact probability, the simulation's estimate and
/// whether the exact value lies in the estimate's 95% interval.
struct ExactCheck {
    field: String,
    value: String,
    exact: rt::Prob,
    estimate: rt::Estimate,
    inside: bool,
}

/// Every value of every reported categorical field that the exact odds or the runs produced.
fn exact_checks(
    tally: &rt::Tally,
    exact: &std::collections::BTreeMap<String, std::collections::BTreeMap<rt::Value, rt::Prob>>,
    reported: &dyn Fn(&str) -> bool,
) -> Vec<ExactCheck> {
    let mut fields: Vec<&String> = exact.keys().chain(tally.categories.keys()).filter(|f| reported(f)).collect();
    fields.sort();
    fields.dedup();
    let mut rows = Vec::new();
    for f in fields {
        let mut values: Vec<String> = exact.get(f).into_iter().flat_map(|m| m.keys().map(|v| v.to_string())).collect();
        values.extend(tally.categories.get(f).into_iter().flat_map(|m| m.keys().map(|v| v.to_string())));
        let mut seen = std::collections::BTreeSet::new();
        values.retain(|v| seen.insert(v.clone()));
        for v in values {
            let p = exact
                .get(f)
                .and_then(|m| m.iter().find(|(k, _)| k.to_string() == v))
                .map_or_else(rt::Prob::zero, |(_, p)| p.clone());
            let e = tally.proportion(f, &v);
            let x = p.to_f64();
            rows.push(ExactCheck {
                field: f.clone(),
                value: v,
                inside: e.low <= x && x <= e.high,
                exact: p,
                estimate: e,
            });
        }
    }
    rows
}

/// The chart of a simulation: each outcome field the text reports, every value with its share of
/// the runs and 95% interval; the distribution of the first whole-number output that varies (the
/// rounds of a battle); the means the text reports (losses), with their intervals.
fn sim_chart(title: String, inputs: Vec<String>, r: &rt::ResolverInfo, tally: &rt::Tally, main: Option<&str>) -> chart::Chart {
    let shown = |f: &str| !f.contains('"');
    let same = same_in_every_run(tally);
    let constant = |f: &str| same.iter().any(|(k, _)| k == f);
    let mut order: Vec<&String> = tally
        .categories
        .keys()
        .filter(|f| shown(f) && (Some(f.as_str()) == main || !constant(f)))
        .collect();
    order.sort_by_key(|f| (Some(f.as_str()) != main, f.to_string()));
    let mut panels = Vec::new();
    for field in order {
        let rows = tally
            .shares(field)
            .into_iter()
            .map(|(label, p, e)| chart::EstimateRow {
                label,
                value: p,
                low: e.low,
                high: e.high,
                text: format!("{:.3}%  [{:.3}%, {:.3}%]", p * 100.0, e.low * 100.0, e.high * 100.0),
            })
            .collect();
        panels.push(chart::Panel {
            title: format!("{field}: share of runs, 95% interval"),
            kind: chart::Kind::Estimates {
                rows,
                percent: true,
                axis: "probability".into(),
            },
        });
    }
    let spread = r.outputs.iter().find_map(|o| {
        let counts = tally.histograms.get(o.name)?.as_ref()?;
        (counts.len() > 1).then_some((o.name, counts))
    });
    if let Some((name, counts)) = spread {
        let runs = tally.runs.max(1) as f64;
        panels.push(chart::Panel {
            title: format!("{name}: distribution over the runs"),
            kind: chart::Kind::Histogram {
                axis: name.to_string(),
                bars: counts.iter().map(|(&v, &k)| (v, k as f64 / runs)).collect(),
            },
        });
    }
    let means: Vec<chart::EstimateRow> = tally
        .numbers
        .keys()
        .filter(|f| shown(f) && !constant(f))
        .filter_map(|f| tally.mean(f).map(|e| (f.clone(), e)))
        .filter(|(_, e)| e.value != 0.0 || e.high != 0.0)
        .map(|(label, e)| chart::EstimateRow {
            label,
            value: e.value,
            low: e.low,
            high: e.high,
            text: format!("{:.3}  [{:.3}, {:.3}]", e.value, e.low, e.high),
        })
        .collect();
    // Means of one order of size share a panel: losses of about 50 and units left of 0.2 on
    // one axis would leave the small ones unreadable.
    let groups = by_size(means);
    let count = groups.len();
    for (k, rows) in groups.into_iter().enumerate() {
        let part = if count > 1 {
            format!(" ({} of {count})", k + 1)
        } else {
            String::new()
        };
        panels.push(chart::Panel {
            title: format!("means per run, 95% interval (zero means left out){part}"),
            kind: chart::Kind::Estimates {
                rows,
                percent: false,
                axis: "mean per run".into(),
            },
        });
    }
    let said: Vec<String> = same
        .iter()
        .filter(|(f, _)| shown(f) && Some(f.as_str()) != main)
        .filter(|(f, v)| !(v == "0" && tally.numbers.contains_key(f)))
        .map(|(f, v)| format!("{f}={v}"))
        .collect();
    let notes = if said.is_empty() {
        Vec::new()
    } else {
        vec![format!("in every run: {}", said.join(" "))]
    };
    chart::Chart {
        title,
        inputs,
        panels,
        notes,
    }
}

/// Runs without --runs.
const DEFAULT_RUNS: u64 = 1_000;
/// The most runs --precision takes without --runs.
const MOST_RUNS: u64 = 10_000_000;
/// Runs timed before the estimate (at least 64 per thread).
const FIRST_BATCH: u64 = 2_000;
/// Simulations expected to take at least this many more seconds start with an estimate.
const LONG_SECS: f64 = 10.0;

/// "about 42 minutes at 3,969,841 runs/s for 10000000000 runs (Ctrl-C stops it; the report is
/// written only at the end)".
fn estimate(runs: u64, secs: f64, rate: f64) -> String {
    let time = if secs < 120.0 {
        format!("{:.0} seconds", secs)
    } else if secs < 2.0 * 3600.0 {
        format!("{:.0} minutes", secs / 60.0)
    } else if secs < 2.0 * 86400.0 {
        format!("{:.0} hours", secs / 3600.0)
    } else {
        format!("{:.0} days", secs / 86400.0)
    };
    let rate = (rate.round() as u64).to_string();
    let mut grouped = String::new();
    for (i, c) in rate.chars().enumerate() {
        if i > 0 && (rate.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{runs} runs: about {time} at {grouped} runs/s (Ctrl-C stops it; the report is written only at the end)")
}

/// Every field that took one value in every run, with that value: a category with a single value
/// seen (declared values no run produced do not count), a number whose smallest and largest
/// values are equal and present in every run.
fn same_in_every_run(t: &rt::Tally) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (f, counts) in &t.categories {
        let mut seen = counts.iter().filter(|(_, &k)| k > 0);
        if let (Some((v, &k)), None) = (seen.next(), seen.next()) {
            if k == t.runs {
                out.push((f.clone(), v.to_string()));
            }
        }
    }
    for (f, (sum, _)) in &t.numbers {
        if let Some((lo, hi)) = t.bounds.get(f) {
            let runs = num_rational::BigRational::from_integer(t.runs.into());
            if lo == hi && *sum == lo * &runs {
                out.push((f.clone(), exact(lo)));
            }
        }
    }
    out.sort();
    out
}

/// An exact number as rules text writes it: `3`, `7.5`, or a fraction when it does not end.
fn exact(x: &num_rational::BigRational) -> String {
    if x.is_integer() {
        return x.to_integer().to_string();
    }
    match (i64::try_from(x.numer()), i64::try_from(x.denom())) {
        (Ok(n), Ok(d)) => rt::Dec::new(n, d).map(|d| d.to_string()).unwrap_or_else(|_| x.to_string()),
        _ => x.to_string(),
    }
}

/// Means split into panels by size, largest first: a mean joins the panel of the larger ones when
/// their largest is at most 25 times it (a bar a twenty-fifth of the axis still reads), else
/// starts a panel; each panel keeps the means in their order.
fn by_size(means: Vec<chart::EstimateRow>) -> Vec<Vec<chart::EstimateRow>> {
    let size = |r: &chart::EstimateRow| r.value.abs().max(r.high.abs());
    let mut order: Vec<usize> = (0..means.len()).collect();
    order.sort_by(|&a, &b| size(&means[b]).total_cmp(&size(&means[a])));
    let mut panel_of = vec![0usize; means.len()];
    let mut panels = 0;
    let mut top = f64::NAN;
    for &i in &order {
        if panels == 0 || size(&means[i]) * 25.0 < top {
            panels += 1;
            top = size(&means[i]);
        }
        panel_of[i] = panels - 1;
    }
    let mut out: Vec<Vec<chart::EstimateRow>> = (0..panels).map(|_| Vec::new()).collect();
    for (i, row) in means.into_iter().enumerate() {
        out[panel_of[i]].push(row);
    }
    out
}
