//! `rulebook odds`: the exact outcome distribution of a resolver: the fields every outcome shares,
//! said once, then every outcome with its fraction, percentage and a bar, then the distribution of
//! each field that varies (or all of it as JSON). In a long text table, list values are multisets: outcomes
//! that differ only in the order of a list are one row (`--ordered` keeps every order); JSON is
//! always exact, every order its own outcome.

use super::list::pretty;
use super::{chart, compact, inputs, pad, CliError, OddsArgs};
use rulebook_runtime as rt;
use serde_json::json;
use std::io::Write;

/// Outcome rows shown as they are; past this, outcomes that differ only in a list's order merge.
const MAX_ORDERED_ROWS: usize = 24;

/// Bar length, in characters, of probability 1.
const BAR_WIDTH: u64 = 40;

pub fn run(systems: &[&'static rt::SystemInfo], args: &OddsArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    let bound = inputs::bind(r, &args.inputs)?;
    if let Some(file) = &args.chart {
        chart::check_target(file)?;
    }
    let fields = chosen_fields(r, &args.fields)?;
    check_until(r, args.until.as_deref())?;
    let exact = match &args.until {
        Some(until) => super::budgeted(args.budget, || r.chain(&bound, until, args.steps)).map(|c| (c.end.clone(), Some(c))),
        None => super::budgeted(args.budget, || r.odds(&bound)).map(|d| (d, None)),
    };
    let (dist, chain) = match exact {
        Ok(found) => found,
        // Too large to work out exactly: a simulation estimates instead, and says so.
        Err(e) if too_large(&e) => return estimate_instead(systems, args, &e, out, err),
        Err(e) => return Err(super::rules_error::failed(e, args.json, out)),
    };
    let observed = args.observed.as_deref().map(|text| observed(&dist, text)).transpose()?;
    let dist = match &fields {
        Some(keep) => {
            dist.marginal(|o| rt::Value::Record(keep.iter().map(|&f| (f, o.field(f).cloned().unwrap_or(rt::Value::None))).collect()))
        }
        None => dist,
    };
    let path = format!("{}.{}", s.name, r.name);
    let title = if r.title.is_empty() {
        String::new()
    } else {
        format!(" — {}", r.title)
    };
    let heading = match (&chain, &args.until) {
        (Some(c), Some(until)) => format!(
            "{path}{title}: exact odds, step after step until `{until}` ({} distinct states)",
            c.states
        ),
        _ => format!("{path}{title}: exact odds"),
    };
    let json_doc = if args.json {
        let mut doc = rt::json::odds(s, r, &bound, &dist);
        if let (Some(c), Some(until)) = (&chain, &args.until) {
            doc["until"] = json!(until);
            doc["finished_by_step"] = json!(c.finished_by_step.iter().map(|p| p.numer_denom_string()).collect::<Vec<_>>());
            doc["unfinished"] = json!(c.unfinished.numer_denom_string());
            doc["states"] = json!(c.states);
        }
        if let Some(o) = &observed {
            doc["observed"] = json!({
                "field": o.field,
                "value": o.value.to_json(),
                "at_least": o.at_least.numer_denom_string(),
                "at_most": o.at_most.numer_denom_string(),
                "exactly": o.exactly.numer_denom_string(),
            });
        }
        Some(doc)
    } else {
        None
    };
    // JSON alone needs no view (merging lists can take a while on a large distribution).
    let view = (!args.json || args.chart.is_some()).then(|| View::of(dist, args.ordered));
    // The chart first: when it cannot be written, the error is all the output.
    if let (Some(file), Some(view)) = (&args.chart, &view) {
        chart::write(file, &view.chart(heading.clone(), inputs::items(r, &bound)))?;
    }
    if let Some(doc) = json_doc {
        writeln!(out, "{}", pretty(&doc)?)?;
        return Ok(());
    }
    writeln!(out, "{heading}")?;
    writeln!(out, "\ninputs:")?;
    write!(out, "{}", inputs::lines(r, &bound))?;
    if let Some(view) = view {
        view.write_text(out)?;
    }
    if let Some(c) = &chain {
        writeln!(out, "\nover by step (a step is one run of the resolver):")?;
        let labels: Vec<String> = (1..=c.finished_by_step.len()).map(|k| k.to_string()).collect();
        let rows: Vec<(String, &rt::Prob)> = labels.iter().cloned().zip(c.finished_by_step.iter()).collect();
        write_table(&rows, out)?;
        if !c.unfinished.is_zero() {
            writeln!(
                out,
                "  still running after {} steps: {} ({}%); --steps computes more",
                c.finished_by_step.len(),
                c.unfinished.numer_denom_string(),
                c.unfinished.percent(2)
            )?;
        }
    }
    if let Some(o) = observed {
        let name = if o.field.is_empty() {
            "the outcome".to_string()
        } else {
            o.field.clone()
        };
        writeln!(out, "\nobserved {name} = {}:", o.value)?;
        let rows = [
            (format!("at least {}", o.value), &o.at_least),
            (format!("at most {}", o.value), &o.at_most),
            (format!("exactly {}", o.value), &o.exactly),
        ];
        let rows: Vec<(String, &rt::Prob)> = rows.iter().map(|(l, p)| (l.clone(), *p)).collect();
        write_table(&rows, out)?;
    }
    Ok(())
}

/// The exact odds would take more branches, states or time than they are allowed.
fn too_large(e: &rt::Error) -> bool {
    matches!(
        e.cause(),
        rt::Error::TooManyBranches { .. }
            | rt::Error::TooManyStates { .. }
            | rt::Error::OddsStopped { .. }
            | rt::Error::ChainStopped { .. }
            | rt::Error::DiceTooLarge { .. }
    )
}

/// Share of the runs every estimate of a fallback is known to (±, at 95%), as `sim --precision`.
const FALLBACK_PRECISION: f64 = 0.01;

/// Exact odds too large to work out: `sim` estimates them instead (to ±1% at 95%, within
/// `--budget` seconds), with the same inputs, steps and fields, and its report says why first.
fn estimate_instead(
    systems: &[&'static rt::SystemInfo],
    args: &OddsArgs,
    why: &rt::Error,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CliError> {
    let mut why = why.to_string();
    if args.observed.is_some() {
        why.push_str("; --observed needs the exact odds and is left out");
    }
    let sim = super::SimArgs {
        rules: args.rules.clone(),
        resolver: args.resolver.clone(),
        inputs: args.inputs.clone(),
        runs: None,
        precision: Some(FALLBACK_PRECISION),
        exact_check: false,
        budget: args.budget,
        seed: 0,
        threads: None,
        json: args.json,
        chart: args.chart.clone(),
        until: args.until.clone(),
        steps: args.steps,
        fields: args.fields.clone(),
        instead_of_exact: Some(why),
    };
    super::sim::run(systems, &sim, out, err)
}

/// The distribution as the text shows it (and the chart draws it): lists merged as multisets
/// in a long table, the fields every outcome shares said once, a row per outcome labelled with
/// the fields that vary, and the distribution of each varying field.
struct View {
    /// Outcome fields whose lists were merged as multisets (empty: every order kept).
    grouped: Vec<&'static str>,
    /// `field=value` of the fields with one value in every outcome.
    fixed: Vec<String>,
    /// Each varying field with its own distribution.
    varying: Vec<(&'static str, rt::Distribution<rt::Value>)>,
    /// Label and probability of each outcome.
    rows: Vec<(String, rt::Prob)>,
    /// Each outcome's values of the varying fields, in their order (empty when none vary).
    values: Vec<Vec<String>>,
}

impl View {
    fn of(dist: rt::Distribution<rt::Value>, ordered: bool) -> View {
        // Order can be the point of a list (who acts first), so lists are merged as multisets only
        // when the ordered table would be long and merging shortens it.
        let (dist, grouped) = if ordered || dist.outcomes.len() <= MAX_ORDERED_ROWS {
            (dist, Vec::new())
        } else {
            let (merged, lists) = as_multisets(dist.clone());
            if merged.outcomes.len() < dist.outcomes.len() {
                (merged, lists)
            } else {
                (dist, Vec::new())
            }
        };
        // Fields of a record outcome that take one value in every outcome are said once, above the
        // table; the table and the per-field sections show only the fields that vary.
        let fields: Vec<&'static str> = match dist.outcomes.first() {
            Some((rt::Value::Record(f), _)) => f.iter().map(|(k, _)| *k).collect(),
            _ => Vec::new(),
        };
        let marginals: Vec<(&'static str, rt::Distribution<rt::Value>)> = fields
            .iter()
            .map(|&f| (f, dist.marginal(|o| o.field(f).cloned().unwrap_or(rt::Value::None))))
            .collect();
        let (fixed, varying): (Vec<_>, Vec<_>) = marginals.into_iter().partition(|(_, m)| m.outcomes.len() == 1);
        let label = |o: &rt::Value| -> String {
            if varying.is_empty() {
                return compact(o);
            }
            varying
                .iter()
                .map(|(f, _)| format!("{f}={}", o.field(f).cloned().unwrap_or(rt::Value::None)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let rows = dist.outcomes.iter().map(|(o, p)| (label(o), p.clone())).collect();
        let values = dist
            .outcomes
            .iter()
            .map(|(o, _)| {
                varying
                    .iter()
                    .map(|(f, _)| o.field(f).cloned().unwrap_or(rt::Value::None).to_string())
                    .collect()
            })
            .collect();
        let fixed = fixed
            .iter()
            .filter_map(|(f, m)| m.outcomes.first().map(|(v, _)| format!("{f}={v}")))
            .collect();
        View {
            grouped,
            fixed,
            varying,
            rows,
            values,
        }
    }

    fn write_text(&self, out: &mut dyn Write) -> Result<(), CliError> {
        // One field varies (or the outcome is no record): its outcomes, `field=value` each.
        if self.varying.len() <= 1 {
            writeln!(out, "\noutcomes ({}):", self.rows.len())?;
            let _ = self.notes(out)?;
            let rows: Vec<(String, &rt::Prob)> = self.rows.iter().map(|(l, p)| (l.clone(), p)).collect();
            return write_table(&rows, out);
        }
        // Several vary: each field's own distribution first, short and readable, then every
        // combination as a table with a column per field under a header.
        writeln!(out)?;
        if self.notes(out)? {
            writeln!(out)?;
        }
        for (field, m) in &self.varying {
            let rows: Vec<(String, &rt::Prob)> = m.outcomes.iter().map(|(v, p)| (v.to_string(), p)).collect();
            writeln!(out, "{field}:")?;
            write_table(&rows, out)?;
            writeln!(out)?;
        }
        let names: Vec<&str> = self.varying.iter().map(|(f, _)| *f).collect();
        let widths: Vec<usize> = (0..names.len())
            .map(|j| {
                let values = self.values.iter().map(|vs| vs.get(j).map_or(0, |v| v.chars().count()));
                values.chain([names[j].chars().count()]).max().unwrap_or(0)
            })
            .collect();
        let columns = |cells: &[&str]| -> String { cells.iter().zip(&widths).map(|(c, w)| pad(c, *w)).collect::<Vec<_>>().join("  ") };
        writeln!(out, "outcomes ({}), every combination:", self.rows.len())?;
        writeln!(out, "  {}", columns(&names).trim_end())?;
        let rows: Vec<(String, &rt::Prob)> = self
            .values
            .iter()
            .zip(&self.rows)
            .map(|(vs, (_, p))| (columns(&vs.iter().map(String::as_str).collect::<Vec<_>>()), p))
            .collect();
        write_table(&rows, out)
    }

    /// The notes above the outcomes: lists merged as multisets, and the fields fixed in every one.
    /// Whether there were any.
    fn notes(&self, out: &mut dyn Write) -> Result<bool, CliError> {
        let mut any = false;
        if let Some(note) = self.grouped_note() {
            writeln!(out, "  {note}")?;
            any = true;
        }
        if !self.varying.is_empty() && !self.fixed.is_empty() {
            // Wrapped at 100 characters, the continuation lines indented under the first item.
            let mut line = String::from("  in every outcome:");
            for item in &self.fixed {
                if line.chars().count() + 1 + item.chars().count() > 100 && !line.ends_with(':') {
                    writeln!(out, "{line}")?;
                    line = " ".repeat(20);
                } else {
                    line.push(' ');
                }
                line.push_str(item);
            }
            writeln!(out, "{line}")?;
            any = true;
        }
        Ok(any)
    }

    fn grouped_note(&self) -> Option<String> {
        if self.grouped.is_empty() {
            return None;
        }
        let fields: Vec<String> = self.grouped.iter().filter(|f| !f.is_empty()).map(|f| format!("`{f}`")).collect();
        let which = if fields.is_empty() {
            String::new()
        } else {
            format!(" in {}", fields.join(", "))
        };
        Some(format!(
            "lists are shown as multisets: order ignored{which} (--ordered shows every order)"
        ))
    }

    /// The chart: a panel with a bar per outcome, then, when several fields vary, a panel per field.
    fn chart(&self, title: String, inputs: Vec<String>) -> chart::Chart {
        let bars = |rows: Vec<(String, String, &rt::Prob)>| chart::Kind::Bars {
            series: vec!["probability".to_string()],
            rows: rows
                .into_iter()
                .map(|(label, group, p)| chart::BarRow {
                    label,
                    group,
                    values: vec![chart::to_f64(p)],
                    texts: vec![format!("{}  {}%", p.numer_denom_string(), p.percent(2))],
                })
                .collect(),
        };
        // The joint panel: each row the values of the varying fields, which the title names once
        // (`field=value` for each would not fit); grouped by the first, the result.
        let joint: Vec<(String, String, &rt::Prob)> = if self.varying.is_empty() {
            self.rows.iter().map(|(l, p)| (l.clone(), String::new(), p)).collect()
        } else {
            self.values
                .iter()
                .zip(&self.rows)
                .map(|(vs, (_, p))| (vs.join(" · "), vs.first().cloned().unwrap_or_default(), p))
                .collect()
        };
        let names: Vec<&str> = self.varying.iter().map(|(f, _)| *f).collect();
        let joint_title = if names.is_empty() {
            format!("outcomes ({})", self.rows.len())
        } else {
            format!("outcomes ({}): {}", self.rows.len(), names.join(" · "))
        };
        let mut panels = vec![chart::Panel {
            title: joint_title,
            kind: bars(joint),
        }];
        if self.varying.len() > 1 {
            for (field, m) in &self.varying {
                panels.push(chart::Panel {
                    title: field.to_string(),
                    kind: bars(m.outcomes.iter().map(|(v, p)| (v.to_string(), String::new(), p)).collect()),
                });
            }
        }
        let mut notes: Vec<String> = self.grouped_note().into_iter().collect();
        if !self.varying.is_empty() && !self.fixed.is_empty() {
            notes.push(format!("in every outcome: {}", self.fixed.join(" ")));
        }
        chart::Chart {
            title,
            inputs,
            panels,
            notes,
        }
    }
}

/// `--field`: the outputs to report, in the resolver's order, checked before anything is worked out.
pub(crate) fn chosen_fields(r: &rt::ResolverInfo, asked: &[String]) -> Result<Option<Vec<&'static str>>, CliError> {
    if asked.is_empty() {
        return Ok(None);
    }
    for a in asked {
        known_output(r, a, "--field")?;
    }
    Ok(Some(
        r.outputs.iter().map(|o| o.name).filter(|n| asked.iter().any(|a| a == n)).collect(),
    ))
}

/// `--until FIELD`: an output of the resolver, or a usage error naming the nearest.
pub(crate) fn check_until(r: &rt::ResolverInfo, until: Option<&str>) -> Result<(), CliError> {
    match until {
        Some(u) => known_output(r, u, "--until"),
        None => Ok(()),
    }
}

/// `asked` is an output of `r`; else a usage error of `option` with the nearest outputs.
fn known_output(r: &rt::ResolverInfo, asked: &str, option: &str) -> Result<(), CliError> {
    let names: Vec<&'static str> = r.outputs.iter().map(|o| o.name).collect();
    if names.contains(&asked) {
        return Ok(());
    }
    let near = rt::names::nearest(asked, &names, 3);
    let hint = if near.is_empty() { names.join(", ") } else { near.join(" or ") };
    Err(CliError::usage(format!(
        "{option}: `{}` has no output `{asked}`; did you mean {hint}?",
        r.name
    )))
}

/// `--observed`: the chances of at least, at most and exactly one value of a field.
struct Observed {
    field: String,
    value: rt::Value,
    at_least: rt::Prob,
    at_most: rt::Prob,
    exactly: rt::Prob,
}

/// Reads `FIELD=VALUE` (or a bare `VALUE` for an outcome that is not a record) against the exact
/// distribution. A number need not be a possible outcome (`damage=7` when damage is always even);
/// any other value must be one of the field's values, and a field one of the outcome's.
fn observed(dist: &rt::Distribution<rt::Value>, text: &str) -> Result<Observed, CliError> {
    if dist.outcomes.is_empty() {
        // A procedure (`--until`) none of whose paths ended within its steps.
        return Err(CliError::usage(format!(
            "--observed {text}: no outcome ended, so there is nothing to compare it with (ask for more --steps)"
        )));
    }
    let fields: Vec<&'static str> = match dist.outcomes.first() {
        Some((rt::Value::Record(f), _)) => f.iter().map(|(k, _)| *k).collect(),
        _ => Vec::new(),
    };
    let (field, wanted) = match text.split_once('=') {
        Some((f, v)) => (f.trim().to_string(), v.trim().to_string()),
        None if fields.is_empty() => (String::new(), text.trim().to_string()),
        None => {
            return Err(CliError::usage(format!(
                "--observed needs FIELD=VALUE: the outcome has the fields {}",
                fields.join(", ")
            )))
        }
    };
    let m = if field.is_empty() {
        dist.clone()
    } else {
        let Some(&f) = fields.iter().find(|&&f| f == field) else {
            if fields.is_empty() {
                return Err(CliError::usage(format!(
                    "--observed: the outcome is not a record, so it has no field `{field}`; give the value alone (--observed {wanted})"
                )));
            }
            let near = rt::names::nearest(&field, &fields, 3);
            let hint = if near.is_empty() { fields.join(", ") } else { near.join(" or ") };
            return Err(CliError::usage(format!(
                "--observed: the outcome has no field `{field}`; did you mean {hint}?"
            )));
        };
        dist.marginal(|o| o.field(f).cloned().unwrap_or(rt::Value::None))
    };
    let value = match wanted.parse::<i64>() {
        Ok(n) if m.outcomes.iter().all(|(v, _)| matches!(v, rt::Value::Int(_))) => rt::Value::Int(n),
        _ => match m.outcomes.iter().find(|(v, _)| v.to_string() == wanted) {
            Some((v, _)) => v.clone(),
            None => {
                let shown: Vec<String> = m.outcomes.iter().map(|(v, _)| v.to_string()).collect();
                return Err(CliError::usage(format!(
                    "--observed: `{wanted}` is not a value {} takes; it takes {}",
                    if field.is_empty() {
                        "the outcome".to_string()
                    } else {
                        format!("`{field}`")
                    },
                    shown.join(", ")
                )));
            }
        },
    };
    let sum = |keep: &dyn Fn(&rt::Value) -> bool| {
        m.outcomes
            .iter()
            .filter(|(v, _)| keep(v))
            .fold(rt::Prob::zero(), |a, (_, p)| a.add(p))
    };
    Ok(Observed {
        at_least: sum(&|v| *v >= value),
        at_most: sum(&|v| *v <= value),
        exactly: sum(&|v| *v == value),
        field,
        value,
    })
}

/// The distribution with every list sorted, outcomes that become equal merged (their
/// probabilities added), and the outcome fields with a list whose order was ignored (two items or
/// more; `""` for a bare list outcome), in declaration order.
fn as_multisets(dist: rt::Distribution<rt::Value>) -> (rt::Distribution<rt::Value>, Vec<&'static str>) {
    fn sorted(v: &rt::Value, field: &'static str, lists: &mut Vec<&'static str>) -> rt::Value {
        match v {
            rt::Value::List(items) => {
                if items.len() > 1 && !lists.contains(&field) {
                    lists.push(field);
                }
                let mut items: Vec<rt::Value> = items.iter().map(|i| sorted(i, field, lists)).collect();
                items.sort();
                rt::Value::List(items)
            }
            // A top-level field names itself; deeper ones count for the field they are in.
            rt::Value::Record(fields) => rt::Value::Record(
                fields
                    .iter()
                    .map(|(k, x)| (*k, sorted(x, if field.is_empty() { k } else { field }, lists)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let mut lists = Vec::new();
    let mut merged: std::collections::BTreeMap<rt::Value, rt::Prob> = std::collections::BTreeMap::new();
    for (o, p) in &dist.outcomes {
        let key = sorted(o, "", &mut lists);
        let sum = merged.get(&key).map_or_else(|| p.clone(), |q| q.add(p));
        merged.insert(key, sum);
    }
    (
        rt::Distribution {
            outcomes: merged.into_iter().collect(),
        },
        lists,
    )
}

/// `  label  n/d  pp.pp%  ████` with aligned columns.
fn write_table(rows: &[(String, &rt::Prob)], out: &mut dyn Write) -> Result<(), CliError> {
    let fractions: Vec<String> = rows.iter().map(|(_, p)| p.numer_denom_string()).collect();
    let w_label = rows.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0);
    let w_frac = fractions.iter().map(|f| f.len()).max().unwrap_or(0);
    for ((label, p), frac) in rows.iter().zip(&fractions) {
        let bar = "█".repeat(usize::try_from(p.scale_round(BAR_WIDTH)).unwrap_or(0));
        let line = format!(
            "  {}  {:>w_frac$}  {:>7}  {bar}",
            pad(label, w_label),
            frac,
            format!("{}%", p.percent(2))
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
