//! `rulebook diff`: what an edit to the rules does to the odds. For one situation, the exact
//! distributions before and after and their difference per outcome; with `--all`, every resolver
//! whose default situation moved, by how much, and every table row that changed.

use super::list::pretty;
use super::{chart, inputs, pad, CliError, DiffArgs};
use rulebook::{LoadError, Rules};
use rulebook_runtime as rt;
use serde_json::json;
use std::collections::BTreeSet;
use std::io::Write;

/// One side of the comparison: the built-in rules or a folder, loaded for the interpreter.
struct Side {
    label: String,
    rules: Rules,
}

fn load(which: &str) -> Result<Side, CliError> {
    let rules = if which == "builtin" {
        rulebook::builtin_rules()
    } else {
        Rules::load(std::path::Path::new(which))
    };
    match rules {
        Ok(rules) => Ok(Side {
            label: which.to_string(),
            rules,
        }),
        Err(LoadError::Io(problems)) => Err(CliError::usage(problems.join("\n"))),
        Err(e) => Err(CliError {
            message: format!("cannot use the rules in {which}:\n{e}"),
            code: 1,
        }),
    }
}

pub fn run(args: &DiffArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let (old, new) = (load(&args.old)?, load(&args.new)?);
    match (&args.resolver, args.all) {
        (Some(path), false) => one(&old, &new, path, args, out),
        (None, true) => super::diff_all::all(&old.rules, &old.label, &new.rules, &new.label, args.json, args.budget, out),
        (Some(_), true) => Err(CliError::usage("give either a resolver or --all, not both")),
        (None, false) => Err(CliError::usage(
            "which resolver? e.g. `rulebook diff builtin my-rules starleader.to_hit --set weapon=\"Ghazi 10/7\"`, or --all",
        )),
    }
}

/// The exact distribution on one side, inputs bound by that side's own declarations (a key names
/// a row by its text, whatever its position in an edited table).
fn odds_on(
    side: &Side,
    path: &str,
    args: &inputs::InputArgs,
    budget: u64,
) -> Result<(&'static rt::ResolverInfo, rt::Inputs, rt::Distribution<rt::Value>), CliError> {
    let (_, r) = super::find_resolver(side.rules.systems(), path).map_err(|e| CliError {
        message: format!("{} (in {})", e.message, side.label),
        code: e.code,
    })?;
    // The two sides may declare different inputs: say whose declarations refused them.
    let bound = inputs::bind(r, args).map_err(|e| CliError {
        message: format!("{} (in {})", e.message, side.label),
        code: e.code,
    })?;
    let dist = super::exact_odds(r, &bound, budget).map_err(|e| CliError {
        message: format!("{}: {}", side.label, e.message),
        code: e.code,
    })?;
    Ok((r, bound, dist))
}

/// Signed `after − before` as an exact fraction.
fn change(before: &rt::Prob, after: &rt::Prob) -> rt::Prob {
    rt::Prob::Big(Box::new(after.to_big() - before.to_big()))
}

fn signed_percent(p: &rt::Prob) -> String {
    let s = p.percent(2);
    if s.starts_with('-') {
        s
    } else {
        format!("+{s}")
    }
}

/// Half the sum of absolute changes: the probability that moved from some outcomes to others.
pub(super) fn moved(before: &rt::Distribution<rt::Value>, after: &rt::Distribution<rt::Value>) -> rt::Prob {
    let keys: BTreeSet<&rt::Value> = before.outcomes.iter().chain(&after.outcomes).map(|(o, _)| o).collect();
    let zero = rt::Prob::zero();
    let get = |d: &rt::Distribution<rt::Value>, k: &rt::Value| {
        d.outcomes
            .iter()
            .find(|(o, _)| o == k)
            .map(|(_, p)| p.clone())
            .unwrap_or_else(|| zero.clone())
    };
    let mut sum = num_rational::BigRational::from_integer(0.into());
    for k in keys {
        let d = get(after, k).to_big() - get(before, k).to_big();
        sum += if d < num_rational::BigRational::from_integer(0.into()) {
            -d
        } else {
            d
        };
    }
    rt::Prob::Big(Box::new(sum / num_rational::BigRational::from_integer(2.into())))
}

/// One outcome (or field value) with its probability before and after.
type Row = (rt::Value, rt::Prob, rt::Prob);

/// One probability as (`n/d`, `pp.pp%`); ("0", "") when the outcome cannot happen on that side.
fn shown(p: &rt::Prob) -> (String, String) {
    if p.is_zero() {
        ("0".to_string(), String::new())
    } else {
        (p.numer_denom_string(), format!("{}%", p.percent(2)))
    }
}

/// Rows of (label, before, after) for the distribution of `f(outcome)` on each side.
fn rows_by<K: Ord + Clone>(
    before: &rt::Distribution<rt::Value>,
    after: &rt::Distribution<rt::Value>,
    f: impl Fn(&rt::Value) -> K,
) -> Vec<(K, rt::Prob, rt::Prob)> {
    let (b, a) = (before.marginal(&f), after.marginal(&f));
    let keys: BTreeSet<K> = b.outcomes.iter().chain(&a.outcomes).map(|(k, _)| k.clone()).collect();
    let find = |d: &rt::Distribution<K>, k: &K| {
        d.outcomes
            .iter()
            .find(|(o, _)| o == k)
            .map(|(_, p)| p.clone())
            .unwrap_or_else(rt::Prob::zero)
    };
    keys.into_iter()
        .map(|k| (find(&b, &k), find(&a, &k), k))
        .map(|(b, a, k)| (k, b, a))
        .collect()
}

/// `label  before  after  change` with every column aligned (fractions and percentages apart),
/// under a header.
fn write_rows(rows: &[(String, rt::Prob, rt::Prob)], out: &mut dyn Write) -> Result<(), CliError> {
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|(l, b, a)| {
            let c = change(b, a);
            let ((bf, bp), (af, ap)) = (shown(b), shown(a));
            let c = if c.is_zero() {
                "0".to_string()
            } else {
                format!("{} pp", signed_percent(&c))
            };
            [l.clone(), bf, bp, af, ap, c]
        })
        .collect();
    let w = |i: usize| cells.iter().map(|c| c[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2, w3, w4, w5) = (w(0), w(1), w(2), w(3), w(4), w(5));
    let (wb, wa) = (w1 + 2 + w2, w3 + 2 + w4);
    let header = format!("  {}  {:>wb$}  {:>wa$}  {:>w5$}", pad("", w0), "before", "after", "change");
    writeln!(out, "{}", header.trim_end())?;
    for c in &cells {
        let line = format!(
            "  {}  {:>w1$}  {:>w2$}  {:>w3$}  {:>w4$}  {:>w5$}",
            pad(&c[0], w0),
            c[1],
            c[2],
            c[3],
            c[4],
            c[5]
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

fn one(old: &Side, new: &Side, path: &str, args: &DiffArgs, out: &mut dyn Write) -> Result<(), CliError> {
    if let Some(file) = &args.chart {
        chart::check_target(file)?;
    }
    let (r, bound, before) = odds_on(old, path, &args.inputs, args.budget)?;
    let (_, _, after) = odds_on(new, path, &args.inputs, args.budget)?;
    let joint = rows_by(&before, &after, |o| o.clone());
    let total = moved(&before, &after);
    let fields: Vec<&'static str> = match before.outcomes.first().or(after.outcomes.first()) {
        Some((rt::Value::Record(f), _)) => f.iter().map(|(k, _)| *k).collect(),
        _ => Vec::new(),
    };
    let per_field: Vec<(&'static str, Vec<Row>)> = fields
        .iter()
        .map(|&f| (f, rows_by(&before, &after, move |o| o.field(f).cloned().unwrap_or(rt::Value::None))))
        .collect();
    // The chart first: when it cannot be written, the error is all the output.
    if let Some(file) = &args.chart {
        let title = format!("{path}: exact odds in {} (before) and {} (after)", old.label, new.label);
        let c = diff_chart(title, inputs::items(r, &bound), old, new, &joint, &per_field, &total);
        chart::write(file, &c)?;
    }
    if args.json {
        let rows = |rows: &[Row], key: &str| -> Vec<serde_json::Value> {
            rows.iter()
                .map(|(k, b, a)| json!({key: k.to_json(), "before": b.numer_denom_string(), "after": a.numer_denom_string(), "change": change(b, a).numer_denom_string()}))
                .collect()
        };
        let fields: serde_json::Map<String, serde_json::Value> =
            per_field.iter().map(|(f, r)| (f.to_string(), json!(rows(r, "value")))).collect();
        let doc = json!({
            "resolver": path, "old": old.label, "new": new.label,
            "inputs": inputs::to_json(r, &bound),
            "outcomes": rows(&joint, "outcome"),
            "fields": fields,
            "moved": total.numer_denom_string(),
        });
        writeln!(out, "{}", pretty(&doc)?)?;
        return Ok(());
    }
    writeln!(out, "{path}: exact odds in {} (before) and {} (after)", old.label, new.label)?;
    writeln!(out, "\ninputs:")?;
    write!(out, "{}", inputs::lines(r, &bound))?;
    if total.is_zero() {
        writeln!(out, "\nno change: the two rules give the same distribution here")?;
        return Ok(());
    }
    if per_field.is_empty() {
        writeln!(out)?;
        let rows: Vec<(String, rt::Prob, rt::Prob)> = joint.iter().map(|(k, b, a)| (super::compact(k), b.clone(), a.clone())).collect();
        write_rows(&rows, out)?;
    } else {
        // Field by field: an edit that shifts one number (a target) changes every joint outcome,
        // but each field's own distribution shows what the change does.
        let mut same = Vec::new();
        for (f, rows) in &per_field {
            if rows.iter().all(|(_, b, a)| change(b, a).is_zero()) {
                same.push(*f);
                continue;
            }
            writeln!(out, "\n{f}:")?;
            let rows: Vec<(String, rt::Prob, rt::Prob)> = rows.iter().map(|(k, b, a)| (k.to_string(), b.clone(), a.clone())).collect();
            write_rows(&rows, out)?;
        }
        if !same.is_empty() {
            writeln!(out, "\nunchanged: {}", same.join(", "))?;
        }
    }
    writeln!(
        out,
        "\nprobability moved between whole outcomes: {}%  ({}; --json lists every outcome)",
        total.percent(2),
        total.numer_denom_string()
    )?;
    Ok(())
}

/// The chart of a diff: before and after side by side, a pair of bars per outcome, in a panel per
/// field that changed (every field when none did), or one panel of whole outcomes when the
/// outcome is not a record.
fn diff_chart(
    title: String,
    inputs: Vec<String>,
    old: &Side,
    new: &Side,
    joint: &[Row],
    per_field: &[(&'static str, Vec<Row>)],
    total: &rt::Prob,
) -> chart::Chart {
    let text = |p: &rt::Prob| {
        let (f, pc) = shown(p);
        format!("{f}  {pc}").trim_end().to_string()
    };
    let panel = |title: String, rows: Vec<(String, &rt::Prob, &rt::Prob)>| chart::Panel {
        title,
        kind: chart::Kind::Bars {
            series: vec![format!("before: {}", old.label), format!("after: {}", new.label)],
            rows: rows
                .into_iter()
                .map(|(label, b, a)| chart::BarRow {
                    label,
                    group: String::new(),
                    values: vec![chart::to_f64(b), chart::to_f64(a)],
                    texts: vec![text(b), text(a)],
                })
                .collect(),
        },
    };
    let changed: Vec<&(&'static str, Vec<Row>)> = per_field
        .iter()
        .filter(|(_, rows)| rows.iter().any(|(_, b, a)| !change(b, a).is_zero()))
        .collect();
    let fields: Vec<&(&'static str, Vec<Row>)> = if changed.is_empty() { per_field.iter().collect() } else { changed };
    let panels: Vec<chart::Panel> = if fields.is_empty() {
        vec![panel(
            "outcomes".into(),
            joint.iter().map(|(k, b, a)| (super::compact(k), b, a)).collect(),
        )]
    } else {
        fields
            .iter()
            .map(|(f, rows)| panel(f.to_string(), rows.iter().map(|(k, b, a)| (k.to_string(), b, a)).collect()))
            .collect()
    };
    let unchanged: Vec<&str> = per_field
        .iter()
        .filter(|(_, rows)| rows.iter().all(|(_, b, a)| change(b, a).is_zero()))
        .map(|(f, _)| *f)
        .collect();
    let mut notes = vec![format!(
        "probability moved between whole outcomes: {}%  ({})",
        total.percent(2),
        total.numer_denom_string()
    )];
    if !unchanged.is_empty() && !total.is_zero() {
        notes.push(format!("unchanged: {}", unchanged.join(", ")));
    }
    chart::Chart {
        title,
        inputs,
        panels,
        notes,
    }
}
