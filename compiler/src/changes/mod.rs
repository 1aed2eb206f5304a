//! What an edit changed, between two checked versions of the rules (`rulebook diff --all`): every
//! table row and cell, constant, modifier, `require` and other statement that differs, and every
//! resolver that reads one of them, directly or through calls.
//!
//! Items are matched by name (tables, rows, resolvers, constants, types); inside a resolver, the
//! lines of its canonical form ([`canon`]) are compared as sequences, so a statement added above
//! does not make the ones below it look changed. Nothing here knows a game.

mod canon;
mod tables;

use crate::check::SourceFile;
use crate::ir::{Program, ResolverDef, System};
use canon::{Canon, Line};
use std::collections::{BTreeMap, BTreeSet};

/// One version of the rules: the checked program and the sources it was checked from.
#[derive(Clone, Copy)]
pub struct Version<'a> {
    pub program: &'a Program,
    pub sources: &'a [SourceFile],
}

/// Where an item is written: `path:line`, and that line's text (trimmed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub at: String,
    pub text: String,
}

/// One thing that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub system: String,
    /// `table`, `row`, `constant`, `resolver`, `enum`, `record` or `option`.
    pub kind: &'static str,
    /// The item: `weapons row "Ghazi 10/7"`, `to_hit: modifier "close range, pistol"`.
    pub item: String,
    /// What happened to it: `density 10 → 11`, `6 → 7`, `changed`, `added`, `removed`.
    pub what: String,
    pub old: Option<Place>,
    pub new: Option<Place>,
    /// For a table row that exists after the edit (changed or added): the table and the row's label.
    pub row: Option<(String, String)>,
}

/// A resolver whose results may differ, and why: `its own rules`, `table weapons`, `calls to_hit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reader {
    pub system: String,
    pub resolver: String,
    pub why: Vec<String>,
}

/// Everything that differs, and every resolver it can reach.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub changes: Vec<Change>,
    /// In the new version's order of systems and resolvers.
    pub readers: Vec<Reader>,
}

/// Compares two versions of the rules.
pub fn compare(old: Version<'_>, new: Version<'_>) -> Changes {
    let mut changes = Vec::new();
    for ns in &new.program.systems {
        match old.program.systems.iter().find(|s| s.name == ns.name) {
            Some(os) => system(old, os, new, ns, &mut changes),
            None => changes.push(whole(&ns.name, "system", &ns.name, "added")),
        }
    }
    for os in &old.program.systems {
        if !new.program.systems.iter().any(|s| s.name == os.name) {
            changes.push(whole(&os.name, "system", &os.name, "removed"));
        }
    }
    let readers = readers(new.program, &changes);
    Changes { changes, readers }
}

fn whole(system: &str, kind: &'static str, item: &str, what: &str) -> Change {
    Change {
        system: system.to_string(),
        kind,
        item: item.to_string(),
        what: what.to_string(),
        old: None,
        new: None,
        row: None,
    }
}

fn system(old: Version<'_>, os: &System, new: Version<'_>, ns: &System, out: &mut Vec<Change>) {
    tables::compare(old, os, new, ns, out);
    let name = ns.name.as_str();
    for (n, c) in &ns.consts {
        match os.consts.iter().find(|(o, _)| o == n) {
            None => out.push(whole(name, "constant", n, &format!("added: {}", ns.const_text(c)))),
            Some((_, oc)) if oc != c => out.push(whole(name, "constant", n, &format!("{} → {}", os.const_text(oc), ns.const_text(c)))),
            Some(_) => {}
        }
    }
    for (n, _) in &os.consts {
        if !ns.consts.iter().any(|(o, _)| o == n) {
            out.push(whole(name, "constant", n, "removed"));
        }
    }
    let (oc, nc) = (Canon { sys: os }, Canon { sys: ns });
    let types = |c: &Canon<'_>, s: &System| -> Vec<(&'static str, String, String)> {
        let enums = s
            .enums
            .iter()
            .map(|e| ("enum", e.name.clone(), format!("{:?} {:?} {:?}", e.title, e.cite, e.variants)));
        let records = s.records.iter().map(|r| {
            let fields: Vec<String> = r.fields.iter().map(|(f, ty, b)| format!("{f}: {} {b:?}", c.ty(ty))).collect();
            (
                "record",
                r.name.clone(),
                format!("{:?} {:?} {}", r.title, r.cite, fields.join(", ")),
            )
        });
        let options = s
            .options
            .iter()
            .map(|o| ("option", o.name.clone(), format!("{:?} {:?}", o.title, o.cite)));
        enums.chain(records).chain(options).collect()
    };
    let (ot, nt) = (types(&oc, os), types(&nc, ns));
    for (kind, n, canon) in &nt {
        match ot.iter().find(|(k, o, _)| k == kind && o == n) {
            None => out.push(whole(name, kind, n, "added")),
            Some((_, _, oc)) if oc != canon => out.push(whole(name, kind, n, "changed")),
            Some(_) => {}
        }
    }
    for (kind, n, _) in &ot {
        if !nt.iter().any(|(k, o, _)| k == kind && o == n) {
            out.push(whole(name, kind, n, "removed"));
        }
    }
    for nr in &ns.resolvers {
        let Some(or) = os.resolvers.iter().find(|r| r.name == nr.name) else {
            let mut c = whole(name, "resolver", &nr.name, "added");
            c.new = Some(declared(new, nr));
            out.push(c);
            continue;
        };
        resolver(old, &oc, or, new, &nc, nr, out);
    }
    for or in &os.resolvers {
        if !ns.resolvers.iter().any(|r| r.name == or.name) {
            let mut c = whole(name, "resolver", &or.name, "removed");
            c.old = Some(declared(old, or));
            out.push(c);
        }
    }
}

/// The lines of a resolver that differ, each a change: paired where one line replaced another.
fn resolver(old: Version<'_>, oc: &Canon<'_>, or: &ResolverDef, new: Version<'_>, nc: &Canon<'_>, nr: &ResolverDef, out: &mut Vec<Change>) {
    let (ol, nl) = (oc.resolver_lines(or), nc.resolver_lines(nr));
    let (ot, nt): (Vec<&str>, Vec<&str>) = (
        ol.iter().map(|l| l.canon.as_str()).collect(),
        nl.iter().map(|l| l.canon.as_str()).collect(),
    );
    let system = nc.sys.name.as_str();
    let change = |o: Option<&Line>, n: Option<&Line>| -> Change {
        let old_place = o.map(|l| place(old, or, l));
        let new_place = n.map(|l| place(new, nr, l));
        let what = match (&old_place, &new_place) {
            (Some(a), Some(b)) if a.text == b.text => "changed (the same text: a constant or a type it reads changed)",
            (Some(_), Some(_)) => "changed",
            (None, _) => "added",
            (_, None) => "removed",
        };
        let label = n.or(o).map_or("", |l| l.label.as_str());
        Change {
            system: system.to_string(),
            kind: "resolver",
            item: format!("{}: {label}", nr.name),
            what: what.to_string(),
            old: old_place,
            new: new_place,
            row: None,
        }
    };
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ot, &nt) {
        let (_, olds, news) = op.as_tag_tuple();
        let (olds, news) = (&ol[olds], &nl[news]);
        if op.tag() == similar::DiffTag::Equal {
            continue;
        }
        for i in 0..olds.len().max(news.len()) {
            out.push(change(olds.get(i), news.get(i)));
        }
    }
}

/// The place of a resolver's line: where its first expression is written, else the declaration.
fn place(v: Version<'_>, r: &ResolverDef, l: &Line) -> Place {
    match l.span.and_then(|s| v.sources.get(s.file).map(|f| (f, s.start))) {
        Some((f, start)) => {
            let starts = crate::diag::line_starts(&f.text);
            let line = crate::diag::line_of(&starts, start);
            Place {
                at: format!("{}:{line}", f.path),
                text: line_text(&f.text, &starts, line),
            }
        }
        None => declared(v, r),
    }
}

fn declared(v: Version<'_>, r: &ResolverDef) -> Place {
    at_line(v, &r.source, r.line)
}

/// `path:line` and the text of that line, if the file is among the version's sources.
fn at_line(v: Version<'_>, path: &str, line: usize) -> Place {
    let text = v
        .sources
        .iter()
        .find(|f| f.path == path)
        .map(|f| line_text(&f.text, &crate::diag::line_starts(&f.text), line))
        .unwrap_or_default();
    Place {
        at: format!("{path}:{line}"),
        text,
    }
}

fn line_text(text: &str, starts: &[usize], line: usize) -> String {
    let start = starts.get(line.saturating_sub(1)).copied().unwrap_or(0);
    let end = starts.get(line).copied().unwrap_or(text.len());
    text.get(start..end).unwrap_or("").trim().to_string()
}

/// Every resolver of `new` that an item in `changes` can reach: its own lines changed (or it is
/// new), it reads a changed table or type, or it calls such a resolver, at any depth.
fn readers(new: &Program, changes: &[Change]) -> Vec<Reader> {
    let mut out = Vec::new();
    for s in &new.systems {
        let here: Vec<&Change> = changes.iter().filter(|c| c.system == s.name).collect();
        let own: BTreeSet<&str> = here
            .iter()
            .filter(|c| c.kind == "resolver")
            .map(|c| c.item.split(':').next().unwrap_or(""))
            .collect();
        // Changed tables and types, as the canonical form writes them.
        let mut marks: BTreeMap<String, String> = BTreeMap::new();
        for c in &here {
            let (token, name) = match c.kind {
                "table" | "row" => {
                    let t = c.item.split(' ').next().unwrap_or("");
                    (format!("⟨table {t}⟩"), format!("table {t}"))
                }
                "enum" | "record" => (format!("⟨{} {}⟩", c.kind, c.item), format!("{} {}", c.kind, c.item)),
                _ => continue,
            };
            marks.insert(token, name);
        }
        let canon = Canon { sys: s };
        let texts: Vec<String> = s
            .resolvers
            .iter()
            .map(|r| canon.resolver_lines(r).into_iter().map(|l| l.canon).collect::<Vec<_>>().join("\n"))
            .collect();
        let mut why: Vec<Vec<String>> = s
            .resolvers
            .iter()
            .zip(&texts)
            .map(|(r, text)| {
                let mut w = Vec::new();
                if own.contains(r.name.as_str()) {
                    w.push("its own rules".to_string());
                }
                w.extend(marks.iter().filter(|(t, _)| text.contains(t.as_str())).map(|(_, n)| n.clone()));
                w
            })
            .collect();
        // Callers, until nothing more is reached.
        let mut grew = true;
        while grew {
            grew = false;
            for (i, text) in texts.iter().enumerate() {
                for (j, callee) in s.resolvers.iter().enumerate() {
                    let reason = format!("calls {}", callee.name);
                    if i != j && !why[j].is_empty() && !why[i].contains(&reason) && text.contains(&canon.resolver(j)) {
                        why[i].push(reason);
                        grew = true;
                    }
                }
            }
        }
        for (r, mut w) in s.resolvers.iter().zip(why) {
            // `calls a`, `calls b` read as one reason: `calls a, b`.
            let called: Vec<String> = w.iter().filter_map(|x| x.strip_prefix("calls ")).map(str::to_string).collect();
            w.retain(|x| !x.starts_with("calls "));
            if !called.is_empty() {
                w.push(format!("calls {}", called.join(", ")));
            }
            if !w.is_empty() {
                out.push(Reader {
                    system: s.name.clone(),
                    resolver: r.name.clone(),
                    why: w,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
