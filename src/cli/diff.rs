//! `rulebook diff`: what an edit to the rules does to the odds. For one situation, the exact
//! distributions before and after and their difference per outcome; with `--all`, every resolver
//! whose default situation moved, by how much, and every table row that changed.

use super::list::pretty;
use super::{chart, inputs, pad, CliError, DiffArgs};
use rulebook::{LoadError, Rules};
use rulebook_compiler::ir;
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
        (None, true) => all(&old, &new, args.json, args.budget, out),
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
fn moved(before: &rt::Distribution<rt::Value>, after: &rt::Distribution<rt::Value>) -> rt::Prob {
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

/// A value of each input type for the default situation: the declared default, else the first
/// choice the type allows (0 within an int's bounds, the first variant, the first row).
fn default_situation(r: &rt::ResolverInfo, system: &str, changed: &[RowChange]) -> Option<Vec<(String, String)>> {
    let first = |ty: &rt::Ty| -> Option<String> {
        // A key input reads the first edited row of its tables, so the edit shows in the odds.
        if let rt::Ty::Key(ts) = ty {
            let edited = changed
                .iter()
                .find(|c| c.system == system && c.after && ts.iter().any(|t| t.name == c.table));
            if let Some(c) = edited {
                return Some(c.row.clone());
            }
        }
        Some(match ty {
            rt::Ty::Bool => "false".into(),
            rt::Ty::Int { min, max } => 0i64.clamp(*min, *max).to_string(),
            rt::Ty::Dec => "0".into(),
            rt::Ty::Text => String::new(),
            rt::Ty::Enum(e) => e.variants.first()?.to_string(),
            rt::Ty::Key(ts) => ts.iter().find_map(|t| t.keys.first())?.to_string(),
            rt::Ty::List(_) => String::new(),
            rt::Ty::Opt(_) => "none".into(),
            rt::Ty::Struct(_) | rt::Ty::Record(_) => return None,
        })
    };
    r.inputs
        .iter()
        .map(|i| {
            let text = match i.default {
                Some(d) => d.to_string(),
                None => first(i.ty)?,
            };
            Some((i.name.to_string(), text))
        })
        .collect()
}

/// What happened to one resolver's default situation.
enum Moved {
    Same,
    /// Probability moved between whole outcomes, and within the first outcome field.
    By(rt::Prob, Option<(&'static str, rt::Prob)>),
    Added,
    Removed,
    /// No default situation, or the odds could not be computed on one side.
    Unknown(String),
}

fn compare_resolver(old: &Side, new: &Side, path: &str, changed: &[RowChange], budget: u64) -> Moved {
    let o = rt::find_resolver(old.rules.systems(), path).ok();
    let n = rt::find_resolver(new.rules.systems(), path).ok();
    let (Some((_, o)), Some((_, n))) = (o, n) else {
        return if n.is_some() { Moved::Added } else { Moved::Removed };
    };
    let system = path.split('.').next().unwrap_or("");
    let Some(sets) = default_situation(n, system, changed) else {
        return Moved::Unknown("needs a record input; give a situation".into());
    };
    let odds = |r: &'static rt::ResolverInfo| -> Result<rt::Distribution<rt::Value>, String> {
        let bound = rt::bind_inputs(r, &sets, None).map_err(|e| e.to_string())?;
        // A quick look at each resolver: a default situation too wide for this, or too long for
        // the budget, is reported, not waited on.
        super::budgeted(budget, || rt::with_leaf_limit(2_000_000, || r.odds(&bound))).map_err(|e| e.to_string())
    };
    match (odds(o), odds(n)) {
        (Ok(b), Ok(a)) => {
            let m = moved(&b, &a);
            if m.is_zero() {
                return Moved::Same;
            }
            let first = match b.outcomes.first().or(a.outcomes.first()) {
                Some((rt::Value::Record(f), _)) => f.first().map(|(k, _)| *k),
                _ => None,
            };
            let by_field = first.map(|f| {
                let key = move |o: &rt::Value| o.field(f).cloned().unwrap_or(rt::Value::None);
                (f, moved(&b.marginal(key), &a.marginal(key)))
            });
            Moved::By(m, by_field)
        }
        (Err(e), Err(f)) if e == f => Moved::Same,
        (Err(e), _) | (_, Err(e)) => Moved::Unknown(e),
    }
}

/// One row that differs between the two versions of a table.
struct RowChange {
    system: String,
    table: String,
    row: String,
    /// The row exists after the change (changed or added).
    after: bool,
    what: String,
}

/// Changed, added and removed rows (and tables) of every system, by table name and row label.
fn table_changes(old: &'static ir::Program, new: &'static ir::Program) -> Vec<RowChange> {
    let mut out = Vec::new();
    let tables = |p: &'static ir::Program| -> Vec<(&'static ir::System, &'static ir::TableDef)> {
        p.systems.iter().flat_map(|s| s.tables.iter().map(move |t| (s, t))).collect()
    };
    let (old_t, new_t) = (tables(old), tables(new));
    let change = |s: &ir::System, t: &ir::TableDef, row: &str, after: bool, what: String| RowChange {
        system: s.name.clone(),
        table: t.name.clone(),
        row: row.to_string(),
        after,
        what,
    };
    for (ns, nt) in &new_t {
        let Some((os, ot)) = old_t.iter().find(|(s, t)| s.name == ns.name && t.name == nt.name) else {
            out.push(change(ns, nt, "", false, "new table".into()));
            continue;
        };
        for nr in &nt.rows {
            match ot.rows.iter().find(|r| r.label == nr.label) {
                None => out.push(change(ns, nt, &nr.label, true, format!("added: {}", cells(ns, nt, nr, None)))),
                Some(or) => {
                    let diff = cells(ns, nt, nr, Some((os, ot, or)));
                    if !diff.is_empty() {
                        out.push(change(ns, nt, &nr.label, true, diff));
                    }
                }
            }
        }
        for or in &ot.rows {
            if !nt.rows.iter().any(|r| r.label == or.label) {
                out.push(change(os, ot, &or.label, false, "removed".into()));
            }
        }
    }
    for (os, ot) in &old_t {
        if !new_t.iter().any(|(s, t)| s.name == os.name && t.name == ot.name) {
            out.push(change(os, ot, "", false, "table removed".into()));
        }
    }
    out
}

/// A row's cells as `column value`; against an old row, only the cells that differ, as
/// `column old → new`.
fn cells(s: &ir::System, t: &ir::TableDef, r: &ir::RowDef, old: Option<(&ir::System, &ir::TableDef, &ir::RowDef)>) -> String {
    let name = |i: usize| -> String {
        match (&t.result, &t.kind) {
            (None, _) => t.columns.get(i).map(|(n, _)| n.clone()).unwrap_or_default(),
            // A number column reads `[3]`, so `[3] 2 → 1` is not taken for arithmetic.
            (
                Some(_),
                ir::TableKind::Matrix {
                    cols: cols @ ir::Axis::Int { .. },
                    ..
                },
            ) => format!("[{}]", cols.label(s, i)),
            (Some(_), ir::TableKind::Matrix { cols, .. }) => cols.label(s, i),
            (Some(_), _) => "value".into(),
        }
    };
    let mut parts = Vec::new();
    for (i, c) in r.cells.iter().enumerate() {
        let now = show(s, c);
        match old {
            None => parts.push(format!("{} {now}", name(i))),
            Some((os, ot, or)) => {
                // Compare by column name, so a column moved within the table is not a change.
                let j = match &ot.result {
                    None => ot.columns.iter().position(|(n, _)| *n == name(i)),
                    Some(_) => Some(i),
                };
                let before = j.and_then(|j| or.cells.get(j)).map(|c| show(os, c));
                if before.as_deref() != Some(now.as_str()) {
                    parts.push(format!("{} {} → {now}", name(i), before.unwrap_or_else(|| "(none)".into())));
                }
            }
        }
    }
    parts.join(", ")
}

fn show(s: &ir::System, c: &ir::Const) -> String {
    match c {
        ir::Const::None => "–".to_string(),
        other => s.const_text(other),
    }
}

fn all(old: &Side, new: &Side, json: bool, budget: u64, out: &mut dyn Write) -> Result<(), CliError> {
    let mut paths: Vec<String> = Vec::new();
    for side in [old, new] {
        for s in side.rules.systems() {
            for r in s.resolvers {
                let p = format!("{}.{}", s.name, r.name);
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
        }
    }
    let changes = table_changes(old.rules.program(), new.rules.program());
    let results: Vec<(String, Moved)> = paths
        .iter()
        .map(|p| (p.clone(), compare_resolver(old, new, p, &changes, budget)))
        .collect();
    let tables: Vec<String> = changes
        .iter()
        .map(|c| {
            if c.row.is_empty() {
                format!("{}.{}: {}", c.system, c.table, c.what)
            } else {
                format!("{}.{} row {:?}: {}", c.system, c.table, c.row, c.what)
            }
        })
        .collect();
    if json {
        let res: Vec<serde_json::Value> = results
            .iter()
            .filter(|(_, m)| !matches!(m, Moved::Same))
            .map(|(p, m)| match m {
                Moved::By(x, f) => json!({"resolver": p, "moved": x.numer_denom_string(),
                    "first_field": f.as_ref().map(|(n, m)| json!({"field": n, "moved": m.numer_denom_string()}))}),
                Moved::Added => json!({"resolver": p, "status": "added"}),
                Moved::Removed => json!({"resolver": p, "status": "removed"}),
                Moved::Unknown(why) => json!({"resolver": p, "status": "unknown", "why": why}),
                Moved::Same => json!({}),
            })
            .collect();
        let doc = json!({"old": old.label, "new": new.label, "tables": tables, "resolvers": res});
        writeln!(out, "{}", pretty(&doc)?)?;
        return Ok(());
    }
    writeln!(out, "{} → {}", old.label, new.label)?;
    writeln!(out, "\ntables changed ({}):", tables.len())?;
    if tables.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for t in &tables {
        writeln!(out, "  {t}")?;
    }
    let changed: Vec<&(String, Moved)> = results
        .iter()
        .filter(|(_, m)| matches!(m, Moved::By(..) | Moved::Added | Moved::Removed))
        .collect();
    writeln!(
        out,
        "\nresolvers whose default situation changed ({} of {}):",
        changed.len(),
        results.len()
    )?;
    if changed.is_empty() {
        writeln!(out, "  (none)")?;
    }
    let width = results
        .iter()
        .filter(|(_, m)| !matches!(m, Moved::Same))
        .map(|(p, _)| p.chars().count())
        .max()
        .unwrap_or(0);
    for (p, m) in &changed {
        let what = match m {
            Moved::By(x, Some((f, m))) => format!("`{f}` {}% moved (whole outcomes {}%)", m.percent(2), x.percent(2)),
            Moved::By(x, None) => format!("{}% of the probability moved", x.percent(2)),
            Moved::Added => "new resolver".into(),
            Moved::Removed => "removed".into(),
            _ => String::new(),
        };
        writeln!(out, "  {}  {what}", pad(p, width))?;
    }
    let unknown: Vec<&(String, Moved)> = results.iter().filter(|(_, m)| matches!(m, Moved::Unknown(_))).collect();
    if !unknown.is_empty() {
        writeln!(
            out,
            "\nnot compared ({}; give a situation: `rulebook diff OLD NEW SYSTEM.RESOLVER --set ...`):",
            unknown.len()
        )?;
        for (p, m) in unknown {
            if let Moved::Unknown(why) = m {
                let why: String = why.lines().next().unwrap_or("").chars().take(100).collect();
                writeln!(out, "  {}  {why}", pad(p, width))?;
            }
        }
    }
    Ok(())
}
