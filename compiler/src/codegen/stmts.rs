//! Statements: blocks and groups of checks, each statement kind, loops, calls (their arguments
//! lent or given, their sites under exact odds) and the code of `if` and `match`.

use super::analysis::{assigns, expr_reads, fields_read, is_copy, is_owned_temp, is_place, lend_inputs, locals_of, per_input};
use super::{camel, lit, raw_ident, Gen, Later};
use crate::ast::Agg;
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    /// A statement's code, after its place where it may fail (`site_mark`).
    pub(super) fn stmt(&self, s: &'a Stmt, o: &mut String) {
        if !s.at().is_empty() {
            *self.current_at.borrow_mut() = s.at().to_string();
        }
        let mut code = String::new();
        self.stmt_code(s, &mut code);
        self.site_mark(s, &code, o);
        o.push_str(&code);
    }

    fn stmt_code(&self, s: &'a Stmt, o: &mut String) {
        match s {
            Stmt::Let {
                var,
                name,
                ty,
                value,
                cite,
                mods,
                clamp,
                ..
            } => self.stmt_let(var, name, ty, value, cite, mods, clamp, o),
            Stmt::Var {
                var,
                name,
                ty,
                value,
                cite,
                ..
            } => self.stmt_var(var, name, ty, value, cite, o),
            Stmt::Assign {
                var,
                name,
                ty,
                value,
                cite,
                ..
            } => self.stmt_assign(var, name, ty, value, cite, o),
            Stmt::Roll {
                var, label, dice, cite, ..
            } => self.stmt_roll(var, label, dice, cite, o),
            Stmt::Check {
                var,
                left,
                op,
                right,
                left_text,
                right_text,
                cite,
                ..
            } => {
                let (l, r) = (self.expr(left), self.expr(right));
                let _ = writeln!(o, "let {var}_l = {l}; let {var}_r = {r};");
                let _ = writeln!(o, "let {var}: bool = {var}_l {} {var}_r;", op.symbol());
                let _ = writeln!(
                    o,
                    "if T::ENABLED {{ trace.event(rt::Event::Compare {{ left: {}.to_string(), left_value: {}, op: {}.to_string(), right: {}.to_string(), right_value: {}, result: {var}, cite: {}.to_string() }}); }}",
                    lit(left_text),
                    self.to_value(&format!("{var}_l"), &left.ty),
                    lit(op.symbol()),
                    lit(right_text),
                    self.to_value(&format!("{var}_r"), &right.ty),
                    lit(cite)
                );
            }
            Stmt::Set { field, value, cite, .. } => self.stmt_set(field, value, cite, o),
            Stmt::If { arms, otherwise, .. } => self.if_code(arms, otherwise, false, o, &|b, o| self.block(b, o)),
            Stmt::Match { scrutinee, arms, .. } => self.match_code(scrutinee, arms, o, &|b, o| self.block(b, o)),
            Stmt::Call { var, resolver, args, .. } => self.stmt_call(var, *resolver, args, o),
            Stmt::Require { cond, message, cite, at } => {
                let msg = self.message(message);
                let _ = writeln!(
                    o,
                    "if !({}) {{ violations.get_or_insert_with(Vec::new).push(rt::Violation {{ cite: {}.to_string(), message: {msg}, at: {}.to_string() }}); }}",
                    self.expr(cond),
                    lit(cite),
                    lit(at)
                );
            }
            Stmt::Note { text, cite, .. } => {
                let _ = writeln!(
                    o,
                    "if T::ENABLED {{ trace.event(rt::Event::Note {{ text: {}, cite: {}.to_string() }}); }}",
                    self.message(text),
                    lit(cite)
                );
            }
            Stmt::Return if self.fwd.get() => {
                self.fwd_leaf(o);
                match self.fwd_loops.borrow().last() {
                    Some(l) => {
                        let _ = writeln!(o, "continue '{l};");
                    }
                    None => o.push_str("return Ok(());\n"),
                }
            }
            Stmt::Return => o.push_str("break 'body;\n"),
            Stmt::Break => o.push_str("break;\n"),
            Stmt::Repeat { times, body, at } => {
                let _ = writeln!(o, "for _ in 0..{times}i64 {{");
                self.loop_body(body, at, o);
                o.push_str("}\n");
            }
            Stmt::For { var, list, body, at } => self.stmt_for(var, list, body, at, o),
        }
    }

    /// A `let`: written where it is read (`inlined_view`), a view (`viewable`), a reference to a
    /// part of the inputs, or a value, with its modifiers and clamp.
    #[expect(clippy::too_many_arguments, reason = "the fields of one `let` statement")]
    fn stmt_let(
        &self,
        var: &str,
        name: &str,
        ty: &Ty,
        value: &'a Expr,
        cite: &Option<String>,
        mods: &[Mod],
        clamp: &Option<(Option<i64>, Option<i64>)>,
        o: &mut String,
    ) {
        if mods.is_empty() && clamp.is_none() && cite.is_none() && self.inlined_view(var, value) {
            self.inlined.borrow_mut().insert(var.to_string(), value);
            return;
        }
        if mods.is_empty() && clamp.is_none() && self.viewable(var, value) {
            if let Some(items) = self.ref_items(value) {
                let elem = match ty {
                    Ty::List(t) => self.rty(t),
                    _ => String::from("_"),
                };
                let _ = writeln!(o, "let {var}: Vec<&{elem}> = ({items}).collect();");
                self.view_locals.borrow_mut().insert(var.to_string());
                if cite.is_some() {
                    self.trace_value(o, "bind", lit(name), lit(cite.as_deref().unwrap_or("")), self.to_value(var, ty));
                }
                return;
            }
        }
        let v = self.expr(value);
        if mods.is_empty() && clamp.is_none() && !is_copy(ty) && is_place(value) && self.lendable_root(value) {
            // A name for a part of the inputs (or of a list read in place), which nothing
            // can change while the resolver runs: a reference, not a copy.
            // A list as a slice: the place may be a `Vec` or a record's `rt::List`.
            let view = match ty {
                Ty::List(i) => format!("[{}]", self.rty(i)),
                t => self.rty(t),
            };
            let _ = writeln!(o, "let {var}: &{view} = &{v};");
            self.ref_locals.borrow_mut().insert(var.to_string());
        } else if mods.is_empty() && clamp.is_none() {
            let list = matches!(ty, Ty::List(_));
            let _ = writeln!(
                o,
                "let {}{var}: {} = {};",
                if list { "mut " } else { "" },
                self.rty(ty),
                self.value(value)
            );
            if list {
                self.takeable.borrow_mut().insert(var.to_string());
            }
        } else {
            let _ = writeln!(o, "let mut {var}: {} = {v};", self.rty(ty));
            // The base value is shown only when some modifier actually changes it.
            let base = format!(
                "if !{var}_shown {{ {var}_shown = true; trace.event(rt::Event::Let {{ name: {}.to_string(), value: {}, cite: {}.to_string() }}); }}",
                lit(&format!("{name} (base)")),
                self.to_value(&format!("{var}_base"), ty),
                lit(cite.as_deref().unwrap_or(""))
            );
            if !mods.is_empty() {
                let _ = writeln!(o, "let {var}_base = {var}; let mut {var}_shown = false;");
            }
            for m in mods {
                self.modifier(m, var, ty, &base, o);
            }
            if let Some((lo, hi)) = clamp {
                let wrap = |b: i64| {
                    if *ty == Ty::Dec {
                        format!("rt::Dec::from_int({b})")
                    } else {
                        format!("{b}i64")
                    }
                };
                if let Some(l) = lo {
                    let _ = writeln!(o, "if {var} < {} {{ {var} = {}; }}", wrap(*l), wrap(*l));
                }
                if let Some(h) = hi {
                    let _ = writeln!(o, "if {var} > {} {{ {var} = {}; }}", wrap(*h), wrap(*h));
                }
            }
        }
        if cite.is_some() || !mods.is_empty() {
            self.trace_value(o, "bind", lit(name), lit(cite.as_deref().unwrap_or("")), self.to_value(var, ty));
        }
    }

    /// A `var`: a lazy copy of a list input the body still reads (`lazy_copy`), else its value.
    fn stmt_var(&self, var: &str, name: &str, ty: &Ty, value: &Expr, cite: &Option<String>, o: &mut String) {
        match (self.lazy_copy(value), ty) {
            (Some(input), Ty::List(item)) => {
                let _ = writeln!(
                    o,
                    "let mut {var}: std::borrow::Cow<'_, [{}]> = std::borrow::Cow::Borrowed(&*inp.{});",
                    self.rty(item),
                    raw_ident(&input)
                );
                self.lazy_locals.borrow_mut().insert(var.to_string(), input);
            }
            _ => {
                let _ = writeln!(o, "let mut {var}: {} = {};", self.rty(ty), self.value(value));
            }
        }
        self.takeable.borrow_mut().insert(var.to_string());
        self.trace_let(o, name, var, ty, cite);
    }

    /// An assignment to a `var`: in place where it can be (`update_in_place`, `append_in_place`,
    /// `moved_update`), else a new value.
    fn stmt_assign(&self, var: &str, name: &str, ty: &Ty, value: &Expr, cite: &Option<String>, o: &mut String) {
        if let Some(code) = self.update_in_place(var, value) {
            o.push_str(&code);
        } else if let Some(code) = self.append_in_place(var, value) {
            o.push_str(&code);
        } else if let Some(code) = self.moved_update(var, value) {
            o.push_str(&code);
        } else {
            let _ = writeln!(o, "{var} = {};", self.new_value(var, &self.value(value)));
        }
        // A new value for a `var` reads as an assignment, not as a second `let`.
        if let Some(c) = cite {
            self.trace_value(o, "assign", lit(name), lit(c), self.to_value(var, ty));
        }
    }

    /// A `roll`: the dice thrown (by a range table's rows under exact odds, `classed_rows`) and
    /// traced.
    fn stmt_roll(&self, var: &str, label: &str, dice: &Dice, cite: &str, o: &mut String) {
        let spec = self.spec(dice, label);
        // Dice with a per-die modifier and floor also trace each face as counted; an
        // opposed roll traces each throw's two totals, and its notation with the sides'
        // modifiers worked out.
        let opposed = matches!(dice.read, Read::Opposed { .. });
        // A roll read only through a table: exact odds branch over the table's rows.
        let throw = |spec: &str| match self.classed_rows(var) {
            Some(rows) => format!(
                "if T::ENABLED {{ dice.roll_for(&{spec}, {l})? }} else {{ dice.roll_classed(&{spec}, {l}, {rows})? }}",
                l = lit(label)
            ),
            None => format!("dice.roll_for(&{spec}, {})?", lit(label)),
        };
        let (adjusted, notation) = if matches!(dice.read, Read::SumFloor { .. }) || opposed {
            let _ = writeln!(o, "let {var}_spec: rt::DiceSpec = {spec};");
            let _ = writeln!(o, "let {var}: i64 = {};", throw(&format!("{var}_spec")));
            let notation = if opposed {
                format!("{var}_spec.notation()")
            } else {
                lit(&dice.notation)
            };
            (format!("{var}_spec.adjusted_faces(dice.last_faces())"), notation)
        } else {
            let _ = writeln!(o, "let {var}: i64 = {};", throw(&spec));
            ("Vec::new()".to_string(), lit(&dice.notation))
        };
        let _ = writeln!(o, "if T::ENABLED {{ trace.event(rt::Event::Roll {{ label: {}.to_string(), dice: {notation}.to_string(), faces: dice.last_faces().to_vec(), adjusted: {adjusted}, value: {var}, cite: {}.to_string() }}); }}", lit(label), lit(cite));
    }

    /// A `set` of an output: a flag for an output kept from its input (`Gen::deferred`), else the
    /// value (moved out of a local updated in place where it can be, `moved_update`).
    fn stmt_set(&self, field: &str, value: &Expr, cite: &str, o: &mut String) {
        let target = format!("out.{}", raw_ident(field));
        let deferred = self.deferred.borrow().get(field).cloned();
        if let Some(input) = deferred {
            if matches!(&value.kind, ExprKind::Input(i) if *i == input) {
                // The output is its input until a later `set`: copied at the end if so.
                let _ = writeln!(o, "rt_keep_{field} = true;");
                self.trace_value(
                    o,
                    "set",
                    lit(field),
                    lit(cite),
                    self.to_value(&format!("(*inp.{})", raw_ident(&input)), &value.ty),
                );
                return;
            }
            let _ = writeln!(o, "rt_keep_{field} = false;");
        }
        if let Some(code) = self.moved_update(&target, value) {
            o.push_str(&code);
        } else {
            let _ = writeln!(o, "{target} = {};", self.value(value));
        }
        self.trace_value(
            o,
            "set",
            lit(field),
            lit(cite),
            self.to_value(&format!("out.{}", raw_ident(field)), &value.ty),
        );
    }

    /// A `call` of another resolver (`rt_body_…`, or a policy's method) bound to `var`: through
    /// its site function (`rt::memo_call`) when exact odds branch over its outcomes.
    fn stmt_call(&self, var: &str, resolver: usize, args: &[(String, Expr)], o: &mut String) {
        let callee = &self.sys.resolvers[resolver];
        // A policy goes through the `Policy` trait's hidden `rt_` method: the rules' own
        // policy reads the loan, an application's gets owned inputs.
        let fields = self.call_args(var, callee, args, o);
        let callee_fn = if callee.policy {
            format!("policy.rt_{}", callee.name)
        } else {
            format!("rt_body_{}", callee.name)
        };
        let args_ty = format!("RtArgs{}", camel(&callee.name));
        let policy_arg = if !callee.policy && self.uses_policy[resolver] {
            "policy, "
        } else {
            ""
        };
        let args = format!("{args_ty} {{ {} }}", fields.join(", "));
        // A body that is not a policy's holds its arguments to change (`owns_args`).
        let (mut_, pass) = if callee.policy { ("", "&") } else { ("mut ", "&mut ") };
        if self.memoizable(resolver) {
            // Under exact odds the call branches over the callee's outcomes, told apart
            // by the fields read after it, each worked out once per inputs.
            let cname = camel(&callee.name);
            // The call itself is a function of its own, outside the generic body: one copy
            // of it whatever the dice and the trace (debug builds compile every copy).
            let (n, lifetime, run) = self.call_site(var, resolver, "rt::memo_call_fwd(e, ", "rt::memo_call(e, ");
            self.site_fns.borrow_mut().push(format!(
                "fn rt_call_{n}(e: &mut rt::Enumerator, a: &RtArgs{cname}{lifetime}) -> Option<Result<{cname}Outcome, rt::Error>> {{ {run} }}\n"
            ));
            let _ = writeln!(
                o,
                "let {mut_}{var}_args = {args};\nlet mut {var} = match if T::ENABLED {{ None }} else {{ match rt::enumerator(dice) {{ Some(e) => rt_call_{n}(e, &{var}_args), None => None }} }} {{ Some(r) => r?, None => {callee_fn}(dice, trace, {pass}{var}_args)? }};"
            );
        } else {
            let _ = writeln!(o, "let mut {var} = {callee_fn}(dice, trace, {policy_arg}{pass}{args})?;");
        }
        self.takeable.borrow_mut().insert(var.to_string());
    }

    /// A `for` loop: over the items of its list in place, a view's references, a filter tested as
    /// it goes, the copies a filter keeps in an `rt::Few`, or a copy of the list.
    fn stmt_for(&self, var: &str, list: &'a Expr, body: &'a [Stmt], at: &str, o: &mut String) {
        // The list is read once, when the loop starts: the body may change the variable it
        // came from. A list the body cannot change (an input, a local it never assigns) is
        // iterated in place; a list computed for the loop is consumed; any other is copied.
        let elem_copy = matches!(&list.ty, Ty::List(t) if is_copy(t));
        let in_place = match &list.kind {
            ExprKind::Input(_) => true,
            ExprKind::Local(l) => !assigns(body, l),
            _ => false,
        };
        // A filtered or sorted view of lists the body does not change: references to them.
        let unchanged = !locals_of(list).iter().any(|v| assigns(body, v));
        if unchanged && !self.fwd.get() {
            if let Some((item, items, cond)) = self.filter_as_it_goes(list) {
                // Each item tested as the loop comes to it: the condition reads nothing the
                // body changes, so it holds of the same items as a list made first would.
                self.ref_locals.borrow_mut().insert(var.to_string());
                let _ = writeln!(o, "for {item} in {items} {{ if !({cond}) {{ continue; }} let {var} = {item};");
                self.loop_body(body, at, o);
                o.push_str("}\n");
                return;
            }
        }
        let view = if unchanged {
            let eager = self.eager_views.replace(true);
            let v = self.ref_items(list);
            self.eager_views.set(eager);
            v
        } else {
            None
        };
        if let Some(items) = view {
            self.ref_locals.borrow_mut().insert(var.to_string());
            let _ = writeln!(o, "for {var} in {items} {{");
            self.loop_body(body, at, o);
            o.push_str("}\n");
            return;
        }
        // A filter of a place the body changes, its items copied as the loop starts: in a
        // `rt::Few`, which keeps none or one without allocating.
        if let ExprKind::Agg {
            kind: Agg::Filter,
            var: fvar,
            list: inner,
            body: cond,
        } = &list.kind
        {
            let inner = self.resolve(inner);
            if is_place(inner) && matches!(&inner.ty, Ty::List(t) if !is_copy(t)) {
                let items = format!("({}){}", self.expr(inner), self.place_iter(inner));
                self.ref_locals.borrow_mut().insert(fvar.to_string());
                let c = self.expr(cond);
                // The loop reads the copies where they lie (`var` a reference), in a local
                // of their own: a unit moved out of the `Few` at each turn, or the `Few`
                // moved out of a block, was a large copy.
                self.ref_locals.borrow_mut().insert(var.to_string());
                let copy = self.copy_read_fields(fvar, var, inner, body);
                let _ = writeln!(
                    o,
                    "{{ let mut {var}_few = rt::Few::None;\nfor {fvar} in {items} {{ if {c} {{ {var}_few.push({copy}); }} }}\nfor {var} in {var}_few.as_slice() {{"
                );
                self.loop_body(body, at, o);
                o.push_str("} }\n");
                return;
            }
        }
        let l = self.expr(list);
        if in_place && elem_copy {
            let _ = writeln!(o, "for {var} in ({l}).iter().copied() {{");
        } else if in_place {
            self.ref_locals.borrow_mut().insert(var.to_string());
            let _ = writeln!(o, "for {var} in ({l}){} {{", self.place_iter(list));
        } else if is_owned_temp(list) {
            let _ = writeln!(o, "for {var} in ({l}) {{");
        } else {
            let _ = writeln!(o, "for {var} in ({l}).to_vec() {{");
        }
        self.loop_body(body, at, o);
        o.push_str("}\n");
    }

    /// The copy of the item `item` (a reference into `list`, a list of records) that a loop over
    /// a filter of `list` keeps as `var`: the whole record, or, where the body reads `var` only
    /// field by field, the record with each list, text or optional field it never reads left
    /// empty (no count taken on a shared list, nothing copied that nothing reads).
    fn copy_read_fields(&self, item: &str, var: &str, list: &Expr, body: &[Stmt]) -> String {
        let whole = format!("{item}.clone()");
        let Ty::List(elem) = &list.ty else { return whole };
        let Ty::Rec(ri) = **elem else { return whole };
        let Some(read) = fields_read(body, var) else { return whole };
        let r = &self.sys.records[ri];
        let left_empty = |n: &String, t: &Ty| !read.contains(n) && matches!(t, Ty::List(_) | Ty::Text | Ty::Opt(_)) && !is_copy(t);
        if !r.fields.iter().any(|(n, t, _)| left_empty(n, t)) {
            return whole;
        }
        let inits: Vec<String> = r
            .fields
            .iter()
            .map(|(n, t, _)| {
                let f = raw_ident(n);
                let value = match t {
                    _ if left_empty(n, t) => match t {
                        Ty::List(_) => "rt::List::new()".to_string(),
                        Ty::Text => "rt::Text::Static(\"\")".to_string(),
                        _ => "None".to_string(),
                    },
                    // A list field is shared, not copied item by item (`rt::List`).
                    Ty::List(_) => format!("{item}.{f}.clone()"),
                    t => self.owned(&format!("{item}.{f}"), t),
                };
                format!("{f}: {value}")
            })
            .collect();
        format!("{} {{ {} }}", camel(&r.name), inits.join(", "))
    }

    /// The arguments of the call bound to `var`, evaluated before it (the call borrows `dice` and
    /// `trace` itself), as the fields of the callee's `RtArgs…`. A resolver's body takes what is
    /// not `Copy` by reference: a place (a local, an input, a field of one) is lent as it is,
    /// anything else is made first.
    pub(super) fn call_args(&self, var: &str, callee: &ResolverDef, args: &[(String, Expr)], o: &mut String) -> Vec<String> {
        // A list the caller reads no more (its own list input, or a list in a local) is given to
        // a callee that is not a policy: moved, not lent, so the callee may take it for its own.
        // It is taken last, after the other arguments are made, those that may borrow it (a view)
        // as copies.
        let given = if callee.policy {
            None
        } else {
            args.iter().position(|(n, e)| {
                let param_ty = callee.inputs.iter().find(|p| &p.name == n).map(|p| &p.ty);
                let others_read = |reads: &dyn Fn(&Expr) -> bool| args.iter().any(|(m, x)| m != n && reads(x));
                matches!(param_ty, Some(Ty::List(_)))
                    && param_ty == Some(&e.ty)
                    && match &e.kind {
                        ExprKind::Input(i) => !others_read(&|x| x.mentions_input(i)) && self.input_dead(i),
                        ExprKind::Local(v) => !others_read(&|x| expr_reads(x, v, None)) && self.local_dead_to_give(v),
                        _ => false,
                    }
            })
        };
        let views = self.views();
        let mut fields = Vec::new();
        for (i, (n, e)) in args.iter().enumerate() {
            let param_ty = callee.inputs.iter().find(|p| &p.name == n).map(|p| &p.ty);
            if given == Some(i) {
                fields.push(format!("{}: {var}_a{i}", raw_ident(n)));
                continue;
            }
            if is_copy(&e.ty) {
                let code = self.owned_expr(e);
                let _ = writeln!(o, "let {var}_a{i} = {code};");
            } else if given.is_some() && views.iter().any(|v| expr_reads(e, v, None)) {
                let code = self.owned_expr(e);
                let _ = writeln!(o, "let {var}_a{i}_own = {code};\nlet {var}_a{i} = &{var}_a{i}_own;");
            } else if is_place(e) && param_ty == Some(&e.ty) {
                let _ = writeln!(o, "let {var}_a{i} = &{};", self.expr(e));
            } else {
                let code = self.owned_expr(e);
                let _ = writeln!(o, "let {var}_a{i} = &{code};");
            }
            if matches!(param_ty, Some(Ty::List(_))) {
                fields.push(format!("{}: rt::Arg::Lent({var}_a{i})", raw_ident(n)));
            } else {
                fields.push(format!("{}: {var}_a{i}", raw_ident(n)));
            }
        }
        if let Some((i, (_, e))) = given.and_then(|g| args.get(g).map(|a| (g, a))) {
            let list = match &e.kind {
                ExprKind::Input(x) => format!("inp.{}.take()", raw_ident(x)),
                ExprKind::Local(v) => self.take_local(v),
                _ => format!("std::mem::take(&mut {})", self.expr(e)),
            };
            let _ = writeln!(o, "let {var}_a{i} = rt::Arg::Given({list});");
        }
        fields
    }

    /// A new call site of the resolver `resolver`, bound to `var`: its number, the lifetime of
    /// the `RtArgs…` its site function takes (`a`), and the runtime call that works the callee's
    /// classes out there: `{forward}n, inputs, project, the callee's forward pass)` for a callee
    /// with one, else `{replayed}n, inputs, project, the callee under the enumerating dice)`.
    pub(super) fn call_site(&self, var: &str, resolver: usize, forward: &str, replayed: &str) -> (usize, &'static str, String) {
        let callee = &self.sys.resolvers[resolver];
        let cname = camel(&callee.name);
        let n = self.call_sites.get();
        self.call_sites.set(n + 1);
        let inputs = per_input(callee, |f| format!("{f}: a.{f}"), |f| format!("{f}: a.{f}.to_owned()"));
        let project = self.call_project(var, callee);
        let lifetime = if callee.inputs.iter().any(|p| !is_copy(&p.ty)) {
            "<'_>"
        } else {
            ""
        };
        let run = if self.forward.get(resolver).copied().unwrap_or(false) {
            let lend = lend_inputs(callee, "i");
            format!(
                "{forward}{n}, || {cname}Inputs {{ {} }}, |o: &{cname}Outcome| {project}, |e, i, s| rt_fwd_{}(e, &mut rt::NoTrace, &RtArgs{cname} {{ {} }}, rt::Fw::one(), s))",
                inputs.join(", "),
                callee.name,
                lend.join(", ")
            )
        } else {
            format!(
                "{replayed}{n}, || {cname}Inputs {{ {} }}, |o: &{cname}Outcome| {project}, |e, i| {}(e, &mut rt::NoTrace, i))",
                inputs.join(", "),
                raw_ident(&callee.name)
            )
        };
        (n, lifetime, run)
    }

    /// What the caller reads of the outcome `o` of the call bound to `var`: exact odds tell the
    /// callee's outcomes apart by it, and order its classes by it. The fields go in the order
    /// the callee declares its outputs (the first is usually what the caller's own outcome sorts
    /// by first, such as the hits of a damage roll): the caller's leaves then come out nearly in
    /// order, and the distribution's sort has little to move. The order changes no answer.
    fn call_project(&self, var: &str, callee: &ResolverDef) -> String {
        match self.call_reads.borrow().get(var) {
            Some(Some(fields)) => {
                let mut fields: Vec<&String> = fields.iter().collect();
                fields.sort_by_key(|f| callee.outputs.iter().position(|p| &p.name == *f).unwrap_or(usize::MAX));
                let fs: Vec<String> = fields.iter().map(|f| format!("o.{}.clone(), ", raw_ident(f))).collect();
                format!("({})", fs.concat())
            }
            _ => "o.clone()".to_string(),
        }
    }

    /// An `if`, each arm's statements written by `body`; the `else` too when there is one or
    /// `always_else` asks (a forward pass puts the rest of the body in it).
    pub(super) fn if_code(
        &self,
        arms: &'a [(Expr, Vec<Stmt>)],
        otherwise: &'a [Stmt],
        always_else: bool,
        o: &mut String,
        body: &dyn Fn(&'a [Stmt], &mut String),
    ) {
        for (i, (c, b)) in arms.iter().enumerate() {
            let _ = writeln!(o, "{}if {} {{", if i == 0 { "" } else { " else " }, self.expr(c));
            body(b, o);
            o.push('}');
        }
        if !otherwise.is_empty() || always_else {
            o.push_str(" else {\n");
            body(otherwise, o);
            o.push('}');
        }
        o.push('\n');
    }

    /// A `match`, each arm's statements written by `body`, and a last `_` arm (when the patterns
    /// leave values out) written by `body` of no statements.
    pub(super) fn match_code(
        &self,
        scrutinee: &Expr,
        arms: &'a [(Vec<Pattern>, Vec<Stmt>)],
        o: &mut String,
        body: &dyn Fn(&'a [Stmt], &mut String),
    ) {
        if scrutinee.ty == Ty::Dec {
            // A decimal is matched with guards: `scrut if lo <= scrut && scrut <= hi`.
            let _ = writeln!(o, "match {} {{", self.expr(scrutinee));
            for (pats, b) in arms {
                let conds: Vec<String> = pats
                    .iter()
                    .map(|p| match p {
                        Pattern::DecRange(a, b) => {
                            let mut c = Vec::new();
                            if let Some((n, d)) = a {
                                c.push(format!("rt::Dec::raw({n}, {d}) <= scrut"));
                            }
                            if let Some((n, d)) = b {
                                c.push(format!("scrut <= rt::Dec::raw({n}, {d})"));
                            }
                            if c.is_empty() {
                                "true".to_string()
                            } else {
                                format!("({})", c.join(" && "))
                            }
                        }
                        _ => "true".to_string(),
                    })
                    .collect();
                let _ = writeln!(o, "scrut if {} => {{", conds.join(" || "));
                body(b, o);
                o.push_str("}\n");
            }
            o.push_str("_ => {");
            body(&[], o);
            o.push_str("}\n}\n");
            return;
        }
        let _ = writeln!(o, "match {} {{", self.expr(scrutinee));
        let mut has_wild = false;
        for (pats, b) in arms {
            let ps: Vec<String> = pats
                .iter()
                .map(|p| match p {
                    Pattern::Wild => {
                        has_wild = true;
                        "_".to_string()
                    }
                    Pattern::Range(a, b) => match (a, b) {
                        (Some(a), Some(b)) if a == b => format!("{a}"),
                        (Some(a), Some(b)) => format!("{a}..={b}"),
                        (None, Some(b)) => format!("..={b}"),
                        (Some(a), None) => format!("{a}.."),
                        (None, None) => "_".into(),
                    },
                    Pattern::Variant(e, v) => {
                        format!("{}::{}", camel(&self.sys.enums[*e].name), camel(&self.sys.enums[*e].variants[*v].0))
                    }
                    // Decimals are matched above, with guards.
                    Pattern::DecRange(..) => "_".into(),
                })
                .collect();
            let _ = writeln!(o, "{} => {{", ps.join(" | "));
            body(b, o);
            o.push_str("}\n");
        }
        if !has_wild {
            o.push_str("_ => {");
            body(&[], o);
            o.push_str("}\n");
        }
        o.push_str("}\n");
    }

    /// A trace event with a value (`rt::Trace::set`, `bind` or `assign`): `value` is computed
    /// only when tracing.
    /// `name` and `cite` are string literals.
    fn trace_value(&self, o: &mut String, method: &str, name: String, cite: String, value: String) {
        let _ = writeln!(o, "trace.{method}({name}, {cite}, || {value});");
    }

    /// A cited `var` shows its first value in the trace.
    fn trace_let(&self, o: &mut String, name: &str, var: &str, ty: &Ty, cite: &Option<String>) {
        if let Some(c) = cite {
            self.trace_value(o, "bind", lit(name), lit(c), self.to_value(var, ty));
        }
    }

    pub(super) fn block(&self, stmts: &'a [Stmt], o: &mut String) {
        for (i, _) in stmts.iter().enumerate() {
            // A `return` further on in this block ends the resolver there: nothing after it, here
            // or in the blocks around, runs.
            let rest = &stmts[i + 1..];
            // A `break` further on ends the loop around: the rest of its body does not run again.
            let later = match rest.iter().position(|x| matches!(x, Stmt::Return | Stmt::Break)) {
                Some(j) => Later {
                    stmts: &rest[..j],
                    fresh: Vec::new(),
                    last: matches!(rest.get(j), Some(Stmt::Return)),
                    exits: matches!(rest.get(j), Some(Stmt::Break)),
                    is_loop: false,
                },
                None => Later {
                    stmts: rest,
                    fresh: Vec::new(),
                    last: false,
                    exits: false,
                    is_loop: false,
                },
            };
            self.later.borrow_mut().push(later);
            self.grouped(stmts, i, o);
            self.later.borrow_mut().pop();
        }
    }

    /// `stmts[i]`, in its group of checks (`ir::is_check`) when it is one and not inside another:
    /// the group's first check declares its failed `require`s, and after its last they stop the
    /// resolution (`docs/dsl.md`, "`require`").
    pub(super) fn grouped(&self, stmts: &'a [Stmt], i: usize, o: &mut String) {
        let s = &stmts[i];
        let group = !self.checking.get() && is_check(s);
        if group && (i == 0 || !is_check(&stmts[i - 1])) {
            o.push_str("let mut violations: Option<Vec<rt::Violation>> = None;\n");
        }
        self.checking.set(self.checking.get() || group);
        self.stmt(s, o);
        if group {
            self.checking.set(false);
            if ends_checks(s, stmts.get(i + 1)) {
                o.push_str("if let Some(violations) = violations { return Err(rt::Error::Rejected { violations }); }\n");
            }
        }
    }

    /// A loop's body: after any statement of it, the whole body may run again.
    fn loop_body(&self, body: &'a [Stmt], at: &str, o: &mut String) {
        // Each turn is a step (`rt::steps`), at the loop (`at`) whose body this is.
        o.push_str(&self.step_at("Loop", at));
        let mut fresh = Vec::new();
        for s in body {
            s.declares(&mut fresh);
        }
        self.later.borrow_mut().push(Later {
            stmts: body,
            fresh,
            last: false,
            exits: false,
            is_loop: true,
        });
        self.block(body, o);
        self.later.borrow_mut().pop();
    }
}
