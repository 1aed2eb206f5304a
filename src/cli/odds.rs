//! `rulebook odds`: the exact outcome distribution of a resolver: the fields every outcome shares,
//! said once, then every outcome with its fraction, percentage and a bar, then the distribution of
//! each field that varies (or all of it as JSON). In a long text table, list values are multisets: outcomes
//! that differ only in the order of a list are one row (`--ordered` keeps every order); JSON is
//! always exact, every order its own outcome.

use super::list::pretty;
use super::{compact, inputs, pad, CliError, OddsArgs};
use rulebook_runtime as rt;
use std::io::Write;

/// Outcome rows shown as they are; past this, outcomes that differ only in a list's order merge.
const MAX_ORDERED_ROWS: usize = 24;

/// Bar length, in characters, of probability 1.
const BAR_WIDTH: u64 = 40;

pub fn run(systems: &[&'static rt::SystemInfo], args: &OddsArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    let bound = inputs::bind(r, &args.inputs)?;
    let dist = super::exact_odds(r, &bound, args.budget)?;
    let path = format!("{}.{}", s.name, r.name);
    if args.json {
        writeln!(out, "{}", pretty(&rt::json::odds(s, r, &bound, &dist))?)?;
        return Ok(());
    }
    let title = if r.title.is_empty() {
        String::new()
    } else {
        format!(" — {}", r.title)
    };
    // Order can be the point of a list (who acts first), so lists are merged as multisets only
    // when the ordered table would be long and merging shortens it.
    let (dist, grouped) = if args.ordered || dist.outcomes.len() <= MAX_ORDERED_ROWS {
        (dist, Vec::new())
    } else {
        let (merged, lists) = as_multisets(dist.clone());
        if merged.outcomes.len() < dist.outcomes.len() {
            (merged, lists)
        } else {
            (dist, Vec::new())
        }
    };
    writeln!(out, "{path}{title}: exact odds")?;
    writeln!(out, "\ninputs:")?;
    write!(out, "{}", inputs::lines(r, &bound))?;
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
    let (fixed, varying): (Vec<_>, Vec<_>) = marginals.iter().partition(|(_, m)| m.outcomes.len() == 1);
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
    let rows: Vec<(String, &rt::Prob)> = dist.outcomes.iter().map(|(o, p)| (label(o), p)).collect();
    writeln!(out, "\noutcomes ({}):", rows.len())?;
    if !grouped.is_empty() {
        let fields: Vec<String> = grouped.iter().filter(|f| !f.is_empty()).map(|f| format!("`{f}`")).collect();
        let which = if fields.is_empty() {
            String::new()
        } else {
            format!(" in {}", fields.join(", "))
        };
        writeln!(
            out,
            "  lists are shown as multisets: order ignored{which} (--ordered shows every order)"
        )?;
    }
    if !varying.is_empty() && !fixed.is_empty() {
        let same: Vec<String> = fixed
            .iter()
            .filter_map(|(f, m)| m.outcomes.first().map(|(v, _)| format!("{f}={v}")))
            .collect();
        writeln!(out, "  in every outcome: {}", same.join(" "))?;
    }
    write_table(&rows, out)?;
    // Marginals only add information when several fields vary.
    if varying.len() > 1 {
        for (field, m) in &varying {
            let rows: Vec<(String, &rt::Prob)> = m.outcomes.iter().map(|(v, p)| (v.to_string(), p)).collect();
            writeln!(out, "\n{field}:")?;
            write_table(&rows, out)?;
        }
    }
    Ok(())
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
