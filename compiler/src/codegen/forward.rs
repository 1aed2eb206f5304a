//! The forward pass for exact odds (`rt_fwd_<name>`): the body again, each roll a loop over its
//! distinct values and each call a loop over the callee's classes, the rest of the body inside.

use super::{camel, raw_ident, Gen, Later};
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    /// Does the forward pass branch at `s`: a roll, a call, or a statement with one inside?
    fn fwd_branches(s: &Stmt) -> bool {
        match s {
            Stmt::Roll { .. } | Stmt::Call { .. } => true,
            Stmt::If { .. } | Stmt::Match { .. } => s.blocks().iter().any(|b| b.iter().any(Self::fwd_branches)),
            _ => false,
        }
    }

    /// The forward pass of `stmts`, then of each block of `cont` in turn (what follows them in
    /// the blocks around), then the leaf. At a roll or call the rest goes inside its loop over
    /// values; at an `if` or `match` with one inside, into each arm (and an `else` or `_` arm
    /// made for it).
    pub(super) fn fwd_block(&self, stmts: &'a [Stmt], cont: &[&'a [Stmt]], o: &mut String) {
        let scope = self.fwd_vars.borrow().len();
        let mut ended = false;
        for (i, s) in stmts.iter().enumerate() {
            if Self::fwd_branches(s) {
                let mut next: Vec<&'a [Stmt]> = vec![&stmts[i + 1..]];
                next.extend_from_slice(cont);
                self.fwd_stmt(s, &next, o);
                ended = true;
                break;
            }
            // What may still run after `s`: the rest of this block and every block of `cont`
            // (a view of a list must not outlive a change to it, `viewable`).
            let depth = self.later.borrow().len();
            {
                let mut later = self.later.borrow_mut();
                for b in cont.iter().rev().copied().chain(std::iter::once(&stmts[i + 1..])) {
                    later.push(Later {
                        stmts: b,
                        fresh: Vec::new(),
                        last: false,
                        exits: false,
                        is_loop: false,
                    });
                }
            }
            self.grouped(stmts, i, o);
            self.later.borrow_mut().truncate(depth);
            if let Stmt::Var { var, .. } = s {
                self.fwd_vars.borrow_mut().push(var.clone());
            }
            if matches!(s, Stmt::Return) {
                // The leaf is handed on: nothing after it runs.
                ended = true;
                break;
            }
        }
        if !ended {
            match cont.split_first() {
                Some((first, rest)) => self.fwd_block(first, rest, o),
                None => self.fwd_leaf(o),
            }
        }
        self.fwd_vars.borrow_mut().truncate(scope);
    }

    /// A statement of the forward pass that branches (`fwd_branches`), `next` what follows it.
    fn fwd_stmt(&self, s: &'a Stmt, next: &[&'a [Stmt]], o: &mut String) {
        let rest = |b: &'a [Stmt], o: &mut String| {
            let mut c: Vec<&'a [Stmt]> = vec![b];
            c.extend_from_slice(next);
            self.fwd_block(c[0], &c[1..], o);
        };
        // The statements that do not branch are `stmt`'s, which marks their place itself.
        if !matches!(s, Stmt::Roll { .. } | Stmt::Call { .. } | Stmt::If { .. } | Stmt::Match { .. }) {
            return self.stmt(s, o);
        }
        let mut code = String::new();
        self.fwd_branching(s, &rest, &mut code);
        self.site_mark(s, &code, o);
        o.push_str(&code);
    }

    /// A statement of the forward pass that branches: a roll, a call, an `if` or a `match`.
    fn fwd_branching(&self, s: &'a Stmt, rest: &dyn Fn(&'a [Stmt], &mut String), o: &mut String) {
        match s {
            Stmt::Roll { var, label, dice, .. } => {
                let spec = self.spec(dice, label);
                let rows = match self.classed_rows(var) {
                    Some(rows) => format!("Some({rows})"),
                    None => "None".to_string(),
                };
                let _ = writeln!(
                    o,
                    "let {var}_d = rt_e.fwd_dice(&{spec}, {rows})?;\nlet {var}_s = rt_w.split({var}_d.0.len());"
                );
                let label = self.fwd_loop();
                let _ = writeln!(
                    o,
                    "'{label}: for (rt_i, &({var}, rt_c)) in {var}_d.0.iter().enumerate() {{ let rt_w = rt_w.roll(rt_c, {var}_d.1, {var}_d.0.len(), rt_i, {var}_s);"
                );
                self.fwd_iteration(&label, o, &|o| rest(&[], o));
            }
            Stmt::Call { var, resolver, args, .. } => {
                let callee = &self.sys.resolvers[*resolver];
                let cname = camel(&callee.name);
                let fields = self.call_args(var, callee, args, o);
                let (n, lifetime, run) = self.call_site(var, *resolver, "e.fwd_call(", "e.fwd_call_replayed(");
                self.site_fns.borrow_mut().push(format!(
                    "fn rt_fcall_{n}(e: &mut rt::Enumerator, a: &RtArgs{cname}{lifetime}) -> Result<u32, rt::Error> {{ {run} }}\n"
                ));
                let _ = writeln!(
                    o,
                    "let {var}_args = RtArgs{cname} {{ {} }};\nlet {var}_ix = rt_fcall_{n}(rt_e, &{var}_args)?;\nlet {var}_n = rt_e.call_classes({var}_ix);\nlet {var}_s = rt_w.split({var}_n);",
                    fields.join(", ")
                );
                let label = self.fwd_loop();
                let _ = writeln!(
                    o,
                    "'{label}: for rt_k in 0..{var}_n {{ let (mut {var}, rt_w) = rt_e.call_class::<{cname}Outcome>({var}_ix, rt_k, &rt_w, {var}_s)?;"
                );
                self.fwd_iteration(&label, o, &|o| rest(&[], o));
            }
            Stmt::If { arms, otherwise, .. } => self.if_code(arms, otherwise, true, o, rest),
            Stmt::Match { scrutinee, arms, .. } => self.match_code(scrutinee, arms, o, rest),
            _ => {}
        }
    }

    /// A new label for a loop over values.
    fn fwd_loop(&self) -> String {
        let n = self.fwd_labels.get();
        self.fwd_labels.set(n + 1);
        format!("rt_b{n}")
    }

    /// The body of a loop over values, opened by the caller: what the body changes (the outcome,
    /// the `var` locals) starts each value as it was before the loop.
    fn fwd_iteration(&self, label: &str, o: &mut String, body: &dyn Fn(&mut String)) {
        o.push_str("let mut out = out.clone();\n");
        for f in self.deferred.borrow().keys() {
            let _ = writeln!(o, "let mut rt_keep_{f} = rt_keep_{f};");
        }
        for v in self.fwd_vars.borrow().iter() {
            let _ = writeln!(o, "let mut {v} = {v}.clone();");
        }
        self.fwd_loops.borrow_mut().push(label.to_string());
        body(o);
        self.fwd_loops.borrow_mut().pop();
        o.push_str("}\n");
    }

    /// The end of a path of the forward pass: the outcome, as the resolver's body returns it, and
    /// the path's weight go to the sink.
    pub(super) fn fwd_leaf(&self, o: &mut String) {
        self.outcome_end(o, false);
        o.push_str("rt_sink.leaf(out, rt_w)?;\n");
    }

    /// The end of the resolver's body, in both passes: an output still holding its input's value
    /// gets it now, once. A body that holds its arguments
    /// (`owned`: not a policy's, not a forward pass, whose leaves share them) takes the input
    /// (`rt::Arg::take`: a given list is moved, not copied; a battle step hands its army on so)
    /// unless another output keeps the same input too.
    pub(super) fn outcome_end(&self, o: &mut String, owned: bool) {
        let deferred = self.deferred.borrow();
        for (f, i) in deferred.iter() {
            let alone = deferred.values().filter(|x| *x == i).count() == 1;
            let value = if owned && alone {
                format!("inp.{}.take()", raw_ident(i))
            } else {
                format!("(*inp.{}).to_vec()", raw_ident(i))
            };
            let _ = writeln!(o, "if rt_keep_{f} {{ out.{} = {value}; }}", raw_ident(f));
        }
    }

    /// The rows of the range table that alone reads the roll bound to `var` (`ir::classed_rolls`),
    /// as a slice literal: exact odds branch over them.
    pub(super) fn classed_rows(&self, var: &str) -> Option<String> {
        let classed = self.classed.borrow();
        let t = classed.get(var).and_then(|t| self.sys.tables.get(*t))?;
        let rows: Vec<String> = t.rows.iter().map(|r| format!("({}i64, {}i64)", r.range.0, r.range.1)).collect();
        Some(format!("&[{}]", rows.join(", ")))
    }
}
