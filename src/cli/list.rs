//! `rulebook list`: what is compiled in — systems; for one system its optional rules, resolvers
//! (typed inputs and outputs) and tables; or a single resolver. Text or JSON.

use super::{pad, CliError, ListArgs};
use rulebook_runtime as rt;
use std::io::Write;

pub fn run(systems: &[&'static rt::SystemInfo], args: &ListArgs, out: &mut dyn Write) -> Result<(), CliError> {
    match args.system.as_deref() {
        None => list_systems(systems, args.json, out),
        Some(path) if path.contains('.') => {
            let (s, r) = super::find_resolver(systems, path)?;
            if args.json {
                writeln!(out, "{}", pretty(&rt::json::resolver(s, r))?)?;
            } else {
                write_resolver(s, r, out)?;
            }
            Ok(())
        }
        Some(name) => {
            let s = super::find_system(systems, name)?;
            if args.json {
                writeln!(out, "{}", pretty(&rt::json::system(s))?)?;
            } else {
                write_system(s, out)?;
            }
            Ok(())
        }
    }
}

pub(crate) fn pretty(v: &serde_json::Value) -> Result<String, CliError> {
    rt::json::pretty(v).map_err(|e| CliError {
        message: format!("cannot encode JSON: {e}"),
        code: 1,
    })
}

fn list_systems(systems: &[&'static rt::SystemInfo], json: bool, out: &mut dyn Write) -> Result<(), CliError> {
    if json {
        writeln!(out, "{}", pretty(&rt::json::systems(systems))?)?;
        return Ok(());
    }
    if systems.is_empty() {
        writeln!(out, "no rule systems are compiled in")?;
        return Ok(());
    }
    let width = systems.iter().map(|s| s.name.chars().count()).max().unwrap_or(0);
    for s in systems {
        writeln!(
            out,
            "{}  {}  ({}, {}, {})",
            pad(s.name, width),
            s.title,
            count(s.resolvers.len(), "resolver"),
            count(s.tables.len(), "table"),
            count(s.options.len(), "optional rule")
        )?;
    }
    let left_out = super::left_out_of(systems);
    if !left_out.is_empty() {
        writeln!(
            out,
            "\nleft out of this build (their Cargo features are off): {}",
            left_out.join(", ")
        )?;
    }
    writeln!(out, "\nrun `rulebook list SYSTEM` for a system's resolvers and tables")?;
    Ok(())
}

/// "1 table", "2 tables".
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn cite(c: &str) -> String {
    if c.is_empty() {
        String::new()
    } else {
        format!("  [{c}]")
    }
}

fn write_system(s: &rt::SystemInfo, out: &mut dyn Write) -> Result<(), CliError> {
    writeln!(out, "{} — {}", s.name, s.title)?;
    if !s.options.is_empty() {
        writeln!(out, "\noptional rules (switch on with --set NAME=true):")?;
        let width = s.options.iter().map(|o| o.name.chars().count()).max().unwrap_or(0);
        for o in s.options {
            writeln!(out, "  {}  {}{}", pad(o.name, width), o.title, cite(o.cite))?;
        }
    }
    writeln!(out, "\nresolvers:")?;
    for (i, r) in s.resolvers.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_resolver_body(s, r, "  ", out)?;
    }
    if !s.tables.is_empty() {
        writeln!(out, "\ntables:")?;
        let width = s.tables.iter().map(|t| t.name.chars().count()).max().unwrap_or(0);
        for t in s.tables {
            let rows = if t.rows == 1 {
                "1 row".to_string()
            } else {
                format!("{} rows", t.rows)
            };
            writeln!(out, "  {}  {} ({}, {rows}){}", pad(t.name, width), t.title, t.kind, cite(t.cite))?;
        }
    }
    Ok(())
}

fn write_resolver(s: &rt::SystemInfo, r: &rt::ResolverInfo, out: &mut dyn Write) -> Result<(), CliError> {
    write_resolver_body(s, r, "", out)
}

fn write_resolver_body(s: &rt::SystemInfo, r: &rt::ResolverInfo, indent: &str, out: &mut dyn Write) -> Result<(), CliError> {
    let title = if r.title.is_empty() {
        String::new()
    } else {
        format!(" — {}", r.title)
    };
    writeln!(out, "{indent}{}.{}{title}{}", s.name, r.name, cite(r.cite))?;
    for line in r.doc.lines().filter(|l| !l.trim().is_empty()) {
        writeln!(out, "{indent}  {}", line.trim())?;
    }
    writeln!(out, "{indent}  inputs:")?;
    if r.inputs.is_empty() {
        writeln!(out, "{indent}    (none)")?;
    }
    let width = r.inputs.iter().map(|i| i.name.chars().count()).max().unwrap_or(0);
    for i in r.inputs {
        let default = match i.default {
            Some(d) => format!(" = {}", default_text(i.ty, d)),
            None => " (required)".to_string(),
        };
        // The rules' own doc of an optional-rule switch already says "optional rule: ...".
        let rule = if i.optional_rule && !i.doc.starts_with("optional rule") {
            " [optional rule]"
        } else if r.choices.contains(&i.name) {
            " [choice: a decision for `rulebook best`]"
        } else {
            ""
        };
        let doc = if i.doc.is_empty() {
            String::new()
        } else {
            format!(" — {}", i.doc)
        };
        writeln!(
            out,
            "{indent}    {}  {}{default}{rule}{doc}{}",
            pad(i.name, width),
            i.ty,
            cite(i.cite)
        )?;
    }
    writeln!(out, "{indent}  outputs:")?;
    if r.outputs.is_empty() {
        writeln!(out, "{indent}    (none)")?;
    }
    let width = r.outputs.iter().map(|f| f.name.chars().count()).max().unwrap_or(0);
    for f in r.outputs {
        let doc = if f.doc.is_empty() {
            String::new()
        } else {
            format!(" — {}", f.doc)
        };
        writeln!(out, "{indent}    {}  {}{doc}", pad(f.name, width), f.ty)?;
    }
    Ok(())
}

/// A default as the user would write it: a list as `[a, b]` (`[]` when empty), a missing optional
/// value as `none`, empty text as `""`; anything else as its text.
fn default_text(ty: &rt::Ty, d: &str) -> String {
    match ty {
        rt::Ty::List(_) if d.trim().is_empty() => "[]".to_string(),
        rt::Ty::List(_) => format!("[{}]", d.split(',').map(str::trim).collect::<Vec<_>>().join(", ")),
        rt::Ty::Opt(_) if matches!(d.trim().to_ascii_lowercase().as_str(), "" | "-" | "none") => "none".to_string(),
        _ if d.is_empty() => "\"\"".to_string(),
        _ => d.to_string(),
    }
}
