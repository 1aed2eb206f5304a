//! How deep the rules may make what runs: record types that contain themselves, types nested too
//! deeply, and chains of calls too long. Every walk the backends make over a value follows its
//! type, and every walk over a resolution follows its calls, so bounding both here bounds the
//! stack of every later stage (trace building, printing, JSON, drop, the odds engine, `diff`).
//!
//! Diagnostics owned here: E0502 (a record type contains itself), E0503 (types or calls nested
//! too deeply). The walks keep their own stacks: user text can make the graphs long.

use super::Checker;
use crate::ast::{self, Span};
use crate::ir::Ty;

/// The deepest a value's type may nest: a whole number is 1, a record of them 2, a list of such
/// records 3 (an optional counts as a level too). A value is never deeper than its type.
pub const MAX_TYPE_DEPTH: usize = 16;
/// The most resolvers a resolution may have running at once (a resolver calling one that calls a
/// third is 3).
pub const MAX_CALL_DEPTH: usize = 32;

/// What a field's type holds at its bottom, under `wrappers` lists and optionals: a record, or
/// `None` for anything else (a depth of 1).
fn bottom(ty: &Ty) -> (Option<usize>, usize) {
    match ty {
        Ty::Opt(inner) | Ty::List(inner) => {
            let (r, w) = bottom(inner);
            (r, w + 1)
        }
        Ty::Rec(r) => (Some(*r), 0),
        _ => (None, 0),
    }
}

/// A field of a record as the walk sees it: the record at its bottom, the lists and optionals
/// above it, where its type is written, its name.
type Edge = (Option<usize>, usize, Span, String);

/// The depth a field adds to its record: its wrappers and what is at the bottom.
fn field_depth((r, wrappers, ..): &Edge, depth: &[usize]) -> usize {
    wrappers + r.map_or(1, |r| depth[r])
}

impl Checker<'_> {
    /// E0502 for each field that closes a cycle of record types, E0503 for a record nested deeper
    /// than `MAX_TYPE_DEPTH`. Runs after `record_fields`.
    pub(super) fn record_depths(&mut self, items: &[&ast::Item]) {
        let n = self.records.len();
        // For each record, its fields.
        let mut edges: Vec<Vec<Edge>> = vec![Vec::new(); n];
        for item in items {
            let ast::Item::Record { name, fields, .. } = item else { continue };
            let Some(&ri) = self.record_idx.get(&name.name) else { continue };
            for (f, te) in fields {
                let Some((_, ty, _)) = self.records[ri].fields.iter().find(|(n, _, _)| *n == f.name) else {
                    continue;
                };
                let (r, wrappers) = bottom(ty);
                edges[ri].push((r, wrappers, te.span, f.name.clone()));
            }
        }
        // Depth-first, with a stack of (record, next edge); 0 unseen, 1 on the path, 2 done.
        let mut state = vec![0u8; n];
        let mut depth = vec![1usize; n];
        let mut cyclic = false;
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(top) = stack.last_mut() {
                let (at, next) = *top;
                let Some((bottom, _, span, field)) = edges[at].get(next).cloned() else {
                    stack.pop();
                    state[at] = 2;
                    depth[at] = 1 + edges[at].iter().map(|e| field_depth(e, &depth)).max().unwrap_or(0);
                    // Reported at the deepest record only, not at every record holding it.
                    let inner_ok = edges[at].iter().all(|(r, ..)| r.is_none_or(|r| depth[r] <= MAX_TYPE_DEPTH));
                    if !cyclic && depth[at] > MAX_TYPE_DEPTH && inner_ok {
                        self.too_deep_type(at, &edges[at], &depth);
                    }
                    continue;
                };
                top.1 += 1;
                let Some(r) = bottom else { continue };
                match state[r] {
                    1 => {
                        let path: Vec<usize> = stack.iter().map(|(x, _)| *x).skip_while(|&x| x != r).collect();
                        let names: Vec<&str> = path
                            .iter()
                            .chain(std::iter::once(&r))
                            .map(|&x| self.records[x].name.as_str())
                            .collect();
                        let msg = format!("record `{}` contains itself: {}", self.records[r].name, names.join(" → "));
                        self.err(
                            "E0502",
                            span,
                            msg,
                            format!("field `{field}` closes the circle"),
                            Some(
                                "a record cannot hold itself, not even in a list or an optional: its values would have no end; \
                                 refer to the other item by a key or a name instead (a `text` field holding its name)"
                                    .into(),
                            ),
                        );
                        // A circle has no depth to report.
                        cyclic = true;
                    }
                    0 => {
                        state[r] = 1;
                        stack.push((r, 0));
                    }
                    _ => {}
                }
            }
        }
    }

    fn too_deep_type(&mut self, at: usize, edges: &[Edge], depth: &[usize]) {
        let Some((_, _, span, field)) = edges.iter().max_by_key(|e| field_depth(e, depth)).cloned() else {
            return;
        };
        let name = self.records[at].name.clone();
        self.err(
            "E0503",
            span,
            format!(
                "record `{name}` nests types {} deep through field `{field}`; the most is {MAX_TYPE_DEPTH}",
                depth[at]
            ),
            "nested too deeply",
            Some("flatten the record: give it the inner record's fields, or keep the inner items in a list of their own".into()),
        );
    }

    /// E0503 for a call that makes a chain of resolvers, each calling the next, longer than
    /// `MAX_CALL_DEPTH`; `done` lists the resolvers callees first (the cycle walk's order), and
    /// the calls have no cycle.
    pub(super) fn call_depths(&mut self, calls: &[Vec<(usize, Span)>], done: &[usize]) {
        let mut depth = vec![1usize; calls.len()];
        for &r in done {
            depth[r] = 1 + calls[r].iter().map(|(c, _)| depth[*c]).max().unwrap_or(0);
        }
        for &r in done {
            if depth[r] != MAX_CALL_DEPTH + 1 {
                continue;
            }
            let Some(&(c, span)) = calls[r].iter().find(|(c, _)| depth[*c] == MAX_CALL_DEPTH) else {
                continue;
            };
            // The chain, from this resolver down the deepest calls.
            let mut chain = vec![self.resolvers[r].name.clone()];
            let mut at = c;
            loop {
                chain.push(self.resolvers[at].name.clone());
                match calls[at].iter().find(|(x, _)| depth[*x] + 1 == depth[at]) {
                    Some(&(x, _)) => at = x,
                    None => break,
                }
            }
            let shown = if chain.len() > 6 {
                format!("{} → {} → … → {}", chain[0], chain[1], chain[chain.len() - 1])
            } else {
                chain.join(" → ")
            };
            self.err(
                "E0503",
                span,
                format!(
                    "this call makes a chain of {} resolvers, each calling the next ({shown}); the most is {MAX_CALL_DEPTH}",
                    MAX_CALL_DEPTH + 1
                ),
                "calls nested too deeply",
                Some("fold some of the resolvers in the chain into their callers".into()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};
    use super::{MAX_CALL_DEPTH, MAX_TYPE_DEPTH};

    #[test]
    fn a_record_that_contains_itself_is_refused_at_the_field() {
        let (msg, help) = only("record node \"N\" [1] {\n  name: text,\n  next: node?\n}\n", "E0502");
        assert_eq!(msg, "record `node` contains itself: node → node");
        assert!(help.contains("by a key or a name"), "{help}");
        let (msg, _) = only(
            "record a \"A\" [1] {\n  kids: list b\n}\nrecord b \"B\" [1] {\n  parent: list list a?\n}\n",
            "E0502",
        );
        assert_eq!(msg, "record `a` contains itself: a → b → a");
        // Two records holding a third is no circle.
        check_codes(
            "record c \"C\" [1] {\n  n: int\n}\nrecord a \"A\" [1] {\n  x: c,\n  y: list c\n}\n",
            &[],
        );
    }

    #[test]
    fn records_nested_past_the_limit_are_refused_once() {
        let chain = |n: usize| {
            let mut src = "record r0 \"R\" [1] {\n  n: int\n}\n".to_string();
            for i in 1..n {
                src.push_str(&format!("record r{i} \"R\" [1] {{\n  inner: r{}\n}}\n", i - 1));
            }
            src
        };
        // r0 is 2 deep (a record of a number), each record holding the one before is one more.
        check_codes(&chain(MAX_TYPE_DEPTH - 1), &[]);
        let (msg, _) = only(&chain(MAX_TYPE_DEPTH), "E0503");
        assert_eq!(
            msg,
            format!("record `r15` nests types 17 deep through field `inner`; the most is {MAX_TYPE_DEPTH}")
        );
        // Lists and optionals count as levels.
        let (msg, _) = only("record a \"A\" [1] {\n  n: list list list list list list list list int?\n}\nrecord b \"B\" [1] {\n  x: list list list list list list list list a\n}\n", "E0503");
        assert!(msg.starts_with("record `b` nests types 20 deep through field `x`"), "{msg}");
    }

    #[test]
    fn a_chain_of_calls_past_the_limit_is_refused_at_its_first_call() {
        let chain = |n: usize| {
            let mut src = "resolver c0 \"C\" [1] {\n  out x: int\n  set x = 1\n}\n".to_string();
            for i in 1..n {
                src.push_str(&format!(
                    "resolver c{i} \"C\" [1] {{\n  out x: int\n  call y = c{}()\n  set x = y.x\n}}\n",
                    i - 1
                ));
            }
            src
        };
        check_codes(&chain(MAX_CALL_DEPTH), &[]);
        let (msg, _) = only(&chain(MAX_CALL_DEPTH + 1), "E0503");
        assert_eq!(
            msg,
            "this call makes a chain of 33 resolvers, each calling the next (c32 → c31 → … → c0); the most is 32"
        );
        // A thousand: one diagnostic, at the call that first goes past the limit.
        let src = chain(1000);
        let (msg, _) = only(&src, "E0503");
        assert!(msg.contains("(c32 → c31 → … → c0)"), "{msg}");
    }
}
