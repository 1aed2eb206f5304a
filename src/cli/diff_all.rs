//! `rulebook diff OLD NEW --all`: what an edit changed, and what that does. First every table row
//! and cell, constant, modifier, `require` and other statement that differs
//! (`rulebook_compiler::changes`), then every resolver that reads them, directly or through calls,
//! then how far each of those resolvers' default situation moved.

use super::list::pretty;
use super::{pad, CliError};
use rulebook::Rules;
use rulebook_compiler::changes::{self, Change, Version};
use rulebook_runtime as rt;
use serde_json::json;
use std::io::Write;

/// A value of each input for the default situation: a row an edit changed, for an input that
/// takes a row (or a list of rows) of that table, so the edit shows in the odds; else the declared
/// default; else the first choice the type allows (0 within an int's bounds, the first variant,
/// the first row).
fn default_situation(r: &rt::ResolverInfo, system: &str, changed: &[Change]) -> Option<Vec<(String, String)>> {
    let edited = |ty: &rt::Ty| -> Option<String> {
        let rt::Ty::Key(ts) = (match ty {
            rt::Ty::List(inner) => inner,
            other => other,
        }) else {
            return None;
        };
        changed
            .iter()
            .filter(|c| c.system == system)
            .filter_map(|c| c.row.as_ref())
            .find(|(table, _)| ts.iter().any(|t| t.name == table))
            .map(|(_, row)| row.clone())
    };
    let first = |ty: &rt::Ty| -> Option<String> {
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
            let text = match (edited(i.ty), i.default) {
                (Some(row), _) => row,
                (None, Some(d)) => d.to_string(),
                (None, None) => first(i.ty)?,
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
    /// No default situation, or the odds could not be computed on one side.
    Unknown(String),
}

fn compare_resolver(old: &Rules, new: &Rules, path: &str, changed: &[Change], budget: u64) -> Moved {
    let Ok((_, n)) = rt::find_resolver(new.systems(), path) else {
        return Moved::Unknown("not in the new rules".into());
    };
    let Ok((_, o)) = rt::find_resolver(old.systems(), path) else {
        return Moved::Added;
    };
    let system = path.split('.').next().unwrap_or("");
    let Some(sets) = default_situation(n, system, changed) else {
        return Moved::Unknown("needs a record input; give a situation".into());
    };
    let odds = |r: &'static rt::ResolverInfo| -> Result<rt::Distribution<rt::Value>, String> {
        let bound = rt::bind_inputs(r, &sets, None).map_err(|e| e.to_string())?;
        // A quick look at each resolver: a default situation too wide for this, or too long for
        // the budget, is reported, not waited on.
        // What went wrong, not where: each side's rules text has its own paths.
        super::budgeted(budget, || rt::with_leaf_limit(2_000_000, || r.odds(&bound))).map_err(|e| e.cause().to_string())
    };
    match (odds(o), odds(n)) {
        (Ok(b), Ok(a)) => {
            let m = super::diff::moved(&b, &a);
            if m.is_zero() {
                return Moved::Same;
            }
            let first = match b.outcomes.first().or(a.outcomes.first()) {
                Some((rt::Value::Record(f), _)) => f.first().map(|(k, _)| *k),
                _ => None,
            };
            let by_field = first.map(|f| {
                let key = move |o: &rt::Value| o.field(f).cloned().unwrap_or(rt::Value::None);
                (f, super::diff::moved(&b.marginal(key), &a.marginal(key)))
            });
            Moved::By(m, by_field)
        }
        (Err(e), Err(f)) if e == f => Moved::Same,
        (Err(e), _) | (_, Err(e)) => Moved::Unknown(e),
    }
}

/// A change in one line: `starleader.pistols row "Ghazi 10/7": density 10 → 11`,
/// `starleader.to_hit: modifier "close range, pistol": changed`, `t5.bonus (constant): 2 → 1`.
fn headline(c: &Change) -> String {
    match c.kind {
        "table" | "row" | "resolver" | "system" => format!("{}.{}: {}", c.system, c.item, c.what),
        kind => format!("{}.{} ({kind}): {}", c.system, c.item, c.what),
    }
}

fn place_json(p: &Option<changes::Place>) -> serde_json::Value {
    match p {
        Some(p) => json!({"at": p.at, "text": p.text}),
        None => serde_json::Value::Null,
    }
}

pub fn all(
    old: &Rules,
    old_label: &str,
    new: &Rules,
    new_label: &str,
    json: bool,
    budget: u64,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let found = changes::compare(
        Version {
            program: old.program(),
            sources: old.sources(),
        },
        Version {
            program: new.program(),
            sources: new.sources(),
        },
    );
    let total: usize = new.systems().iter().map(|s| s.resolvers.len()).sum();
    let results: Vec<(String, &[String], Moved)> = found
        .readers
        .iter()
        .map(|r| {
            let path = format!("{}.{}", r.system, r.resolver);
            let moved = compare_resolver(old, new, &path, &found.changes, budget);
            (path, r.why.as_slice(), moved)
        })
        .collect();
    if json {
        let changes: Vec<serde_json::Value> = found
            .changes
            .iter()
            .map(|c| json!({"system": c.system, "kind": c.kind, "item": c.item, "what": c.what, "old": place_json(&c.old), "new": place_json(&c.new)}))
            .collect();
        let readers: Vec<serde_json::Value> = results
            .iter()
            .map(|(p, why, m)| {
                let odds = match m {
                    Moved::By(x, f) => json!({"status": "moved", "moved": x.numer_denom_string(),
                        "first_field": f.as_ref().map(|(n, m)| json!({"field": n, "moved": m.numer_denom_string()}))}),
                    Moved::Same => json!({"status": "unchanged"}),
                    Moved::Added => json!({"status": "added"}),
                    Moved::Unknown(why) => json!({"status": "unknown", "why": why}),
                };
                json!({"resolver": p, "why": why, "default_situation": odds})
            })
            .collect();
        let doc = json!({"old": old_label, "new": new_label, "resolvers": total, "changes": changes, "readers": readers});
        writeln!(out, "{}", pretty(&doc)?)?;
        return Ok(());
    }
    writeln!(out, "{old_label} → {new_label}")?;
    writeln!(out, "\nwhat changed ({}):", found.changes.len())?;
    if found.changes.is_empty() {
        writeln!(out, "  (nothing)")?;
    }
    for c in &found.changes {
        writeln!(out, "  {}", headline(c))?;
        // A changed line of a resolver: the text before and after, where each is written.
        if c.kind == "resolver" {
            let places = [("was", &c.old), ("now", &c.new)];
            let width = places
                .iter()
                .filter_map(|(_, p)| p.as_ref())
                .map(|p| p.at.chars().count())
                .max()
                .unwrap_or(0);
            for (label, p) in places {
                if let Some(p) = p {
                    writeln!(out, "      {label}  {}  {}", pad(&p.at, width), p.text)?;
                }
            }
        }
    }
    let width = results.iter().map(|(p, _, _)| p.chars().count()).max().unwrap_or(0);
    writeln!(
        out,
        "\nresolvers that read them, directly or through calls ({} of {total}):",
        results.len()
    )?;
    if results.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for (p, why, _) in &results {
        writeln!(out, "  {}  {}", pad(p, width), why.join("; "))?;
    }
    if results.is_empty() {
        return Ok(());
    }
    writeln!(out, "\ntheir default situations, exact odds before and after:")?;
    for (p, _, m) in &results {
        let what = match m {
            Moved::By(x, Some((f, m))) => format!("`{f}` {}% moved (whole outcomes {}%)", m.percent(2), x.percent(2)),
            Moved::By(x, None) => format!("{}% of the probability moved", x.percent(2)),
            Moved::Same => "unchanged here; other situations may differ".into(),
            Moved::Added => "new resolver".into(),
            Moved::Unknown(why) => {
                let why: String = why.lines().next().unwrap_or("").chars().take(100).collect();
                format!("not compared: {why}")
            }
        };
        writeln!(out, "  {}  {what}", pad(p, width))?;
    }
    if results.iter().any(|(_, _, m)| matches!(m, Moved::Unknown(_) | Moved::Same)) {
        writeln!(
            out,
            "\nfor one situation: `rulebook diff {old_label} {new_label} SYSTEM.RESOLVER --set ...`"
        )?;
    }
    Ok(())
}
