//! Tables compared: the heading (title, citation, how it is indexed, columns), then row by row by
//! label, then cell by cell by column name.

use super::{at_line, Change, Version};
use crate::changes::canon::Canon;
use crate::ir::{Axis, Const, RowDef, System, TableDef, TableKind};

pub(super) fn compare(old: Version<'_>, os: &System, new: Version<'_>, ns: &System, out: &mut Vec<Change>) {
    let (oc, nc) = (Canon { sys: os }, Canon { sys: ns });
    let change = |v: Version<'_>, t: &TableDef, row: Option<&str>, after: bool, what: String| {
        let place = Some(at_line(v, &t.source, t.line));
        let (old_place, new_place) = if after { (None, place) } else { (place, None) };
        Change {
            system: ns.name.clone(),
            kind: if row.is_some() { "row" } else { "table" },
            item: match row {
                Some(r) => format!("{} row {r:?}", t.name),
                None => t.name.clone(),
            },
            what,
            old: old_place,
            new: new_place,
            row: row.filter(|_| after).map(|r| (t.name.clone(), r.to_string())),
        }
    };
    for nt in &ns.tables {
        let Some(ot) = os.tables.iter().find(|t| t.name == nt.name) else {
            out.push(change(new, nt, None, true, "new table".into()));
            continue;
        };
        if oc.table_heading(ot) != nc.table_heading(nt) {
            let mut c = change(new, nt, None, true, "heading changed (title, citation, index or columns)".into());
            c.old = Some(at_line(old, &ot.source, ot.line));
            out.push(c);
        }
        for nr in &nt.rows {
            match ot.rows.iter().find(|r| r.label == nr.label) {
                None => out.push(change(
                    new,
                    nt,
                    Some(&nr.label),
                    true,
                    format!("added: {}", cells(ns, nt, nr, None)),
                )),
                Some(or) => {
                    let diff = cells(ns, nt, nr, Some((os, ot, or)));
                    if !diff.is_empty() {
                        let mut c = change(new, nt, Some(&nr.label), true, diff);
                        c.old = Some(at_line(old, &ot.source, ot.line));
                        out.push(c);
                    }
                }
            }
        }
        for or in &ot.rows {
            if !nt.rows.iter().any(|r| r.label == or.label) {
                out.push(change(old, ot, Some(&or.label), false, "removed".into()));
            }
        }
    }
    for ot in &os.tables {
        if !ns.tables.iter().any(|t| t.name == ot.name) {
            out.push(change(old, ot, None, false, "table removed".into()));
        }
    }
}

/// A row's cells as `column value`; against an old row, only the cells that differ, as
/// `column old → new`.
fn cells(s: &System, t: &TableDef, r: &RowDef, old: Option<(&System, &TableDef, &RowDef)>) -> String {
    let name = |i: usize| -> String {
        match (&t.result, &t.kind) {
            (None, _) => t.columns.get(i).map(|(n, _)| n.clone()).unwrap_or_default(),
            // A number column reads `[3]`, so `[3] 2 → 1` is not taken for arithmetic.
            (
                Some(_),
                TableKind::Matrix {
                    cols: cols @ Axis::Int { .. },
                    ..
                },
            ) => format!("[{}]", cols.label(s, i)),
            (Some(_), TableKind::Matrix { cols, .. }) => cols.label(s, i),
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

fn show(s: &System, c: &Const) -> String {
    match c {
        Const::None => "–".to_string(),
        other => s.const_text(other),
    }
}
