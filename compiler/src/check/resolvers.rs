//! Resolvers: signatures (inputs and outputs, their bounds and defaults), the optional rules each
//! resolver needs (read directly or through the resolvers it calls), call cycles, and the proof
//! that every output without a default is set on every path.
//!
//! Diagnostics owned here: E0204 (output may be left unset), E0501 (call cycle), W0004 (option
//! never consulted), plus E0102 for reserved or clashing parameter names and E0201 for bounds on
//! outputs and defaults outside their range.

use super::ctx::Checker;
use super::names::rust_ident_ok;
use crate::ast::{self, Span};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

impl<'a> Checker<'a> {
    /// Pass 5a: the inputs and outputs of every resolver.
    pub(super) fn signatures(&mut self, res_ast: &[&'a ast::ResolverDecl]) {
        for r in res_ast {
            if let Some(&rid) = self.resolver_idx.get(&r.name.name) {
                self.signature(rid, r);
            }
        }
    }

    /// Pass 5c: E0204 for every resolver.
    pub(super) fn outputs_set(&mut self, res_ast: &[&'a ast::ResolverDecl]) {
        for r in res_ast {
            if let Some(&rid) = self.resolver_idx.get(&r.name.name) {
                self.check_outputs_set(rid, r);
            }
        }
    }

    pub(super) fn param(&mut self, p: &ast::Param, output: bool) -> Option<Param> {
        let (ty, bounds) = self.type_expr(&p.ty);
        // Inputs and outputs are fields of the generated structs (`inp.dice`), never bare Rust
        // names, so the words the generated code uses for its own variables are free for them.
        if !rust_ident_ok(&p.name.name) && !matches!(p.name.name.as_str(), "dice" | "trace") {
            self.reserved(&p.name, if output { "output" } else { "input" });
            return None;
        }
        if output && bounds.is_some() {
            self.err("E0201", p.ty.span, "outputs do not take bounds", "bounds on an output", None);
        }
        let default = p.default.as_ref().map(|c| {
            let k = self.cell_const(c, &ty);
            if let (Some((lo, hi)), Const::Int(v)) = (bounds, &k) {
                if *v < lo || *v > hi {
                    self.err(
                        "E0201",
                        c.span,
                        format!("default {v} is outside {lo}..{hi}"),
                        "out of range",
                        Some(format!("give a default from {lo} to {hi}, or widen the bounds")),
                    );
                }
            }
            // A decimal default n/d against whole-number bounds: lo <= n/d <= hi.
            if let (Some((lo, hi)), Const::Dec(n, d)) = (bounds, &k) {
                let (n, d) = (i128::from(*n), i128::from(*d));
                if n < i128::from(lo) * d || n > i128::from(hi) * d {
                    let shown = self.text_of(c.span);
                    self.err(
                        "E0201",
                        c.span,
                        format!("default {shown} is outside {lo}..{hi}"),
                        "out of range",
                        Some(format!("give a default from {lo} to {hi}, or widen the bounds")),
                    );
                }
            }
            k
        });
        let cite = p.cite.as_ref().map(|c| self.cite(c)).unwrap_or_default();
        Some(Param {
            name: p.name.name.clone(),
            ty,
            bounds,
            default,
            doc: p.doc.clone().unwrap_or_default(),
            cite,
            is_option: false,
            choice: p.choice.is_some(),
        })
    }

    pub(super) fn signature(&mut self, rid: usize, r: &ast::ResolverDecl) {
        let mut seen = BTreeMap::new();
        let mut inputs = Vec::new();
        for p in &r.inputs {
            if self.defined(&p.name, &mut seen, "input") {
                if self.option_idx.contains_key(&p.name.name) {
                    self.err(
                        "E0102",
                        p.name.span,
                        format!("input `{}` has the name of an optional rule", p.name.name),
                        "clashes with an option",
                        Some(format!(
                            "options become inputs by themselves; use `option {}` in expressions",
                            p.name.name
                        )),
                    );
                }
                if let Some(x) = self.param(p, false) {
                    inputs.push(x);
                }
            }
        }
        let mut oseen = BTreeMap::new();
        let mut outputs = Vec::new();
        for p in &r.outputs {
            if self.defined(&p.name, &mut oseen, "output") {
                if let Some(x) = self.param(p, true) {
                    outputs.push(x);
                }
            }
        }
        self.resolvers[rid].inputs = inputs;
        self.resolvers[rid].outputs = outputs;
        self.check_choices(rid, r);
    }

    /// A `choice` input is a decision `best` takes afresh in each state: it needs a default (the
    /// rules' own choice), a type with few values, and no output that carries it to the next step.
    fn check_choices(&mut self, rid: usize, r: &ast::ResolverDecl) {
        for p in r.inputs.iter().filter(|p| p.choice.is_some()) {
            let Some(x) = self.resolvers[rid].inputs.iter().find(|i| i.name == p.name.name).cloned() else {
                continue;
            };
            if x.default.is_none() {
                self.err(
                    "E0203",
                    p.name.span,
                    format!("choice `{}` has no default", p.name.name),
                    "no default",
                    Some("give the rules' own choice as its default (`= VALUE`); `best` compares the others with it".into()),
                );
            }
            let finite = match &x.ty {
                Ty::Bool | Ty::Enum(_) | Ty::Key(_) => true,
                Ty::Int => x.bounds.is_some_and(|(lo, hi)| hi.saturating_sub(lo) < 10_000),
                _ => false,
            };
            if !finite {
                self.err(
                    "E0201",
                    p.ty.span,
                    format!(
                        "choice `{}` must be yes/no, an enum, a table key or a whole number in a range of at most 10000",
                        p.name.name
                    ),
                    "too many values to choose from",
                    Some("a decision picks one of a few values in each state: give it such a type".into()),
                );
            }
            if r.outputs.iter().any(|o| o.name.name == p.name.name) {
                self.err(
                    "E0203",
                    p.name.span,
                    format!("choice `{}` is carried on by the output of its name", p.name.name),
                    "part of the state",
                    Some(format!(
                        "a choice is made afresh in each state: rename the output, or declare `in {}`",
                        p.name.name
                    )),
                );
            }
        }
    }

    pub(super) fn add_option_inputs(&mut self, res_ast: &[&ast::ResolverDecl]) {
        let n = self.resolvers.len();
        let mut direct: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        let mut calls: Vec<Vec<(usize, Span)>> = vec![Vec::new(); n];
        for r in res_ast {
            let Some(&rid) = self.resolver_idx.get(&r.name.name) else {
                continue;
            };
            let mut opts = Vec::new();
            let mut cs = Vec::new();
            scan_stmts(&r.body, &mut opts, &mut cs);
            for o in opts {
                if let Some(&oi) = self.option_idx.get(&o) {
                    direct[rid].insert(oi);
                }
            }
            for (c, span) in cs {
                if let Some(&ci) = self.resolver_idx.get(&c) {
                    calls[rid].push((ci, span));
                }
            }
        }
        // Cycles: resolvers calling each other would never finish.
        let mut state = vec![0u8; n];
        let mut done = Vec::with_capacity(n);
        let before = self.diags.len();
        for start in 0..n {
            self.find_cycle(start, &calls, &mut state, &mut Vec::new(), &mut done);
        }
        if self.diags.len() == before {
            self.call_depths(&calls, &done);
        }
        // Callees before their callers (the order the walk finished them): without cycles one
        // pass propagates every option, however long the chains of calls.
        let mut all = direct.clone();
        loop {
            let mut changed = false;
            for &r in &done {
                for (c, _) in calls[r].clone() {
                    let add: Vec<usize> = all[c].difference(&all[r]).copied().collect();
                    if !add.is_empty() {
                        all[r].extend(add);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // An optional rule that no resolver consults would be a switch that does nothing.
        let used: BTreeSet<usize> = all.iter().flatten().copied().collect();
        // A file that failed to parse may be the one that reads it.
        let all_seen = self.unparsed.is_none();
        for (oi, o) in self.options.clone().iter().enumerate() {
            if all_seen && !used.contains(&oi) {
                if let Some(span) = self.option_spans.get(oi).copied() {
                    self.warn(
                        "W0004",
                        span,
                        format!("optional rule `{}` is never consulted by a resolver", o.name),
                        "unused option",
                        Some(format!(
                            "read it in the resolvers it changes with `option {}`, or remove it",
                            o.name
                        )),
                    );
                }
            }
        }
        for (r, opts) in all.into_iter().enumerate() {
            for o in opts {
                let od = &self.options[o];
                let p = Param {
                    name: od.name.clone(),
                    ty: Ty::Bool,
                    bounds: None,
                    default: Some(Const::Bool(false)),
                    doc: format!("optional rule: {}", od.title),
                    cite: od.cite.clone(),
                    is_option: true,
                    choice: false,
                };
                self.resolvers[r].inputs.push(p);
            }
        }
    }

    /// E0204: an output without a default must be set on every path, before each `return` too.
    pub(super) fn check_outputs_set(&mut self, rid: usize, r: &ast::ResolverDecl) {
        let required: BTreeSet<String> = self.resolvers[rid]
            .outputs
            .iter()
            .filter(|o| o.default.is_none())
            .map(|o| o.name.clone())
            .collect();
        if required.is_empty() {
            return;
        }
        let mut missing_at = Vec::new();
        let end = self.assigned(&r.body, BTreeSet::new(), &required, &mut missing_at);
        if let Some(set) = end {
            let missing: Vec<String> = required.difference(&set).cloned().collect();
            if !missing.is_empty() {
                missing_at.push((r.name.span, missing, false));
            }
        }
        for (span, missing, at_return) in missing_at {
            let list = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
            let (msg, label) = if at_return {
                (
                    format!(
                        "this `return` can leave output{} {list} unset",
                        if missing.len() == 1 { "" } else { "s" }
                    ),
                    "returns here",
                )
            } else {
                (
                    format!(
                        "output{} {list} of `{}` may be left unset",
                        if missing.len() == 1 { "" } else { "s" },
                        r.name.name
                    ),
                    "some path does not set it",
                )
            };
            let first = &missing[0];
            self.err(
                "E0204",
                span,
                msg,
                label,
                Some(format!(
                    "`set {first} = ...` on every path, or give it a default: `out {first}: type = value`"
                )),
            );
        }
    }

    /// The outputs set on every path through `stmts` (None when every path returns).
    pub(super) fn assigned(
        &self,
        stmts: &[ast::Stmt],
        mut set: BTreeSet<String>,
        required: &BTreeSet<String>,
        missing_at: &mut Vec<(Span, Vec<String>, bool)>,
    ) -> Option<BTreeSet<String>> {
        use ast::StmtKind as K;
        let meet = |acc: Option<BTreeSet<String>>, x: Option<BTreeSet<String>>| match (acc, x) {
            (None, x) | (x, None) => x,
            (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
        };
        for st in stmts {
            match &st.kind {
                K::Set { name, .. } => {
                    set.insert(name.name.clone());
                }
                K::Return => {
                    let missing: Vec<String> = required.difference(&set).cloned().collect();
                    if !missing.is_empty() {
                        missing_at.push((st.span, missing, true));
                    }
                    return None;
                }
                K::Break => return None,
                K::If { arms, otherwise } => {
                    let mut acc = None;
                    for (_, body) in arms {
                        acc = meet(
                            acc,
                            self.assigned(body, set.clone(), required, missing_at).map(Some).unwrap_or(None),
                        );
                    }
                    let other = match otherwise {
                        Some(b) => self.assigned(b, set.clone(), required, missing_at),
                        None => Some(set.clone()),
                    };
                    match meet(acc, other) {
                        Some(s) => set = s,
                        None => return None,
                    }
                }
                K::Match { arms, .. } => {
                    let mut acc = None;
                    let mut names = BTreeSet::new();
                    let mut wild = false;
                    for (pats, body) in arms {
                        for (p, _) in pats {
                            match p {
                                ast::Pattern::Wild => wild = true,
                                ast::Pattern::Name(n) => {
                                    names.insert(n.name.clone());
                                }
                                ast::Pattern::Range(..) | ast::Pattern::DecRange(..) => {}
                            }
                        }
                        acc = meet(acc, self.assigned(body, set.clone(), required, missing_at));
                    }
                    // Exhaustive when some enum's variants are all named.
                    let exhaustive = wild
                        || self
                            .enums
                            .iter()
                            .any(|e| !e.variants.is_empty() && e.variants.iter().all(|(v, _)| names.contains(v)));
                    if !exhaustive {
                        acc = meet(acc, Some(set.clone()));
                    }
                    match acc {
                        Some(s) => set = s,
                        None => return None,
                    }
                }
                K::Repeat { body, .. } | K::For { body, .. } => {
                    // The body may run zero times (or stop at a `break`): only its `return`s count.
                    let _ = self.assigned(body, set.clone(), required, missing_at);
                }
                _ => {}
            }
        }
        Some(set)
    }

    /// E0501 for each call that closes a cycle, found by a depth-first walk from `r`. The walk
    /// keeps its own stack: a chain of thousands of resolvers calling the next must not
    /// exhaust the machine's.
    pub(super) fn find_cycle(
        &mut self,
        r: usize,
        calls: &[Vec<(usize, Span)>],
        state: &mut [u8],
        path: &mut Vec<usize>,
        done: &mut Vec<usize>,
    ) {
        if state[r] != 0 {
            return;
        }
        // (resolver, index of its next call to follow); `path` holds the same resolvers.
        let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
        state[r] = 1;
        path.push(r);
        while let Some(top) = stack.last_mut() {
            let (at, next) = *top;
            let Some(&(c, span)) = calls[at].get(next) else {
                stack.pop();
                path.pop();
                state[at] = 2;
                done.push(at);
                continue;
            };
            top.1 += 1;
            if state[c] == 1 {
                let names: Vec<String> = path
                    .iter()
                    .skip_while(|&&x| x != c)
                    .map(|&x| self.resolvers[x].name.clone())
                    .chain(std::iter::once(self.resolvers[c].name.clone()))
                    .collect();
                self.err(
                    "E0501",
                    span,
                    format!("resolvers call each other in a cycle: {}", names.join(" → ")),
                    "this call closes the cycle",
                    Some("a resolver may not call itself, directly or through others; use `repeat` for repeated rolls".into()),
                );
            } else if state[c] == 0 {
                state[c] = 1;
                path.push(c);
                stack.push((c, 0));
            }
        }
    }
}

// ---------------------------------------------------------------- AST scans
fn scan_stmts(stmts: &[ast::Stmt], opts: &mut Vec<String>, calls: &mut Vec<(String, Span)>) {
    use ast::StmtKind as K;
    for s in stmts {
        match &s.kind {
            K::Let { value, mods, .. } => {
                scan_expr(value, opts);
                for m in mods {
                    let list: Vec<&ast::Modifier> = match m {
                        ast::ModItem::One(o) => vec![o],
                        ast::ModItem::Highest { mods, .. } => mods.iter().collect(),
                    };
                    for o in list {
                        scan_expr(&o.value, opts);
                        if let Some(w) = &o.when {
                            scan_expr(w, opts);
                        }
                    }
                }
            }
            K::Var { value, .. } | K::Assign { value, .. } | K::Set { value, .. } => scan_expr(value, opts),
            K::Roll { dice, opposed, .. } => {
                if let ast::DiceCount::Expr(e) = &dice.count {
                    scan_expr(e, opts);
                }
                if let Some(o) = opposed {
                    if let ast::DiceCount::Expr(e) = &o.second.count {
                        scan_expr(e, opts);
                    }
                    for m in [&o.first_mod, &o.second_mod].into_iter().flatten() {
                        scan_expr(m, opts);
                    }
                }
                for m in &dice.mods {
                    if let ast::DiceMod::Each { value, .. } = m {
                        scan_expr(value, opts);
                    }
                }
            }
            K::Check { left, right, .. } => {
                scan_expr(left, opts);
                scan_expr(right, opts);
            }
            K::If { arms, otherwise } => {
                for (c, b) in arms {
                    scan_expr(c, opts);
                    scan_stmts(b, opts, calls);
                }
                if let Some(o) = otherwise {
                    scan_stmts(o, opts, calls);
                }
            }
            K::Match { scrutinee, arms } => {
                scan_expr(scrutinee, opts);
                for (_, b) in arms {
                    scan_stmts(b, opts, calls);
                }
            }
            K::Call { resolver, args, .. } => {
                calls.push((resolver.name.clone(), resolver.span));
                for (_, e) in args {
                    scan_expr(e, opts);
                }
            }
            K::Require { cond, .. } => scan_expr(cond, opts),
            K::Repeat { body, .. } => scan_stmts(body, opts, calls),
            K::For { list, body, .. } => {
                scan_expr(list, opts);
                scan_stmts(body, opts, calls);
            }
            K::Note { .. } | K::Return | K::Break => {}
        }
    }
}

fn scan_expr(e: &ast::Expr, opts: &mut Vec<String>) {
    use ast::ExprKind as K;
    match &e.kind {
        K::Option(id) => opts.push(id.name.clone()),
        K::List(xs) | K::Call(_, xs) => xs.iter().for_each(|x| scan_expr(x, opts)),
        K::Field(b, _) | K::Neg(b) | K::Not(b) | K::Is(b, _) => scan_expr(b, opts),
        K::Construct(_, inits) => inits.iter().for_each(|(_, x)| scan_expr(x, opts)),
        K::With(b, inits) => {
            scan_expr(b, opts);
            inits.iter().for_each(|(_, x)| scan_expr(x, opts));
        }
        K::Agg { list, body, .. } => {
            scan_expr(list, opts);
            scan_expr(body, opts);
        }
        K::Update { list, cond, body, .. } => {
            scan_expr(list, opts);
            scan_expr(cond, opts);
            scan_expr(body, opts);
        }
        K::Bin(_, a, b) | K::Cmp(_, a, b) | K::In(a, b) => {
            scan_expr(a, opts);
            scan_expr(b, opts);
        }
        K::If(arms, o) => {
            for (c, v) in arms {
                scan_expr(c, opts);
                scan_expr(v, opts);
            }
            scan_expr(o, opts);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only, program};

    #[test]
    fn resolvers_calling_each_other_are_a_cycle() {
        let src = "resolver a \"A\" [1] {\n  out x: int\n  call b1 = b()\n  set x = b1.x\n}\nresolver b \"B\" [1] {\n  out x: int\n  call a1 = a()\n  set x = a1.x\n}\n";
        assert_eq!(only(src, "E0501").0, "resolvers call each other in a cycle: a → b → a");
    }

    #[test]
    fn every_output_is_set_on_every_path() {
        let body = |stmts: &str| format!("resolver r \"R\" [1] {{\n  in c: bool\n  out x: int\n{stmts}}}\n");
        check_codes(&body("  if c {\n    set x = 1\n  } else {\n    set x = 2\n  }\n"), &[]);
        check_codes(&body("  if c {\n    set x = 1\n  }\n"), &["E0204"]);
        check_codes(&body("  if c {\n    return\n  }\n  set x = 1\n"), &["E0204"]);
        check_codes("resolver r \"R\" [1] {\n  out x: int = 0\n}\n", &[]);
    }

    #[test]
    fn options_reach_the_resolvers_that_call_their_readers() {
        let src = "option o \"O\" [1]\nresolver a \"A\" [1] {\n  out x: bool\n  set x = option o\n}\nresolver b \"B\" [1] {\n  out y: bool\n  call a1 = a()\n  set y = a1.x\n}\n";
        let p = program(src);
        let inputs: Vec<(&str, bool)> = p.systems[0].resolvers[1]
            .inputs
            .iter()
            .map(|i| (i.name.as_str(), i.is_option))
            .collect();
        assert_eq!(inputs, [("o", true)]);
    }

    #[test]
    fn an_option_nobody_reads_is_a_warning() {
        check_codes("option o \"O\" [1]\nresolver r \"R\" [1] {\n  out x: int = 0\n}\n", &["W0004"]);
    }

    #[test]
    fn parameter_names() {
        check_codes(
            "option o \"O\" [1]\nresolver r \"R\" [1] {\n  in o: int\n  out x: bool\n  set x = option o\n}\n",
            &["E0102"],
        );
        check_codes("resolver r \"R\" [1] {\n  in a: int 0..3 = 5\n}\n", &["E0201"]);
        check_codes("resolver r \"R\" [1] {\n  out x: int 0..3 = 1\n}\n", &["E0201"]);
    }
}
