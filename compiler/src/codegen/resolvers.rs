//! Resolvers: the `…Inputs` and `…Outcome` types with the inputs' API, the public entry point and
//! its body `rt_body_…` taking `RtArgs…`, the forward pass and typed odds (`forward_def`), a
//! step's typed chain (`chain_fn`), and the steps a call takes.

use super::analysis::{deferred_sets, is_copy, lend_inputs, per_input};
use super::items::serialize_via_value;
use super::registry::fields_of;
use super::{camel, lit, raw_ident, Gen};
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    pub(super) fn resolver_def(&self, rid: usize, r: &'a ResolverDef) -> Result<String, String> {
        self.current.set(rid);
        // Local names are unique within a resolver, not across resolvers.
        self.ref_locals.borrow_mut().clear();
        self.view_locals.borrow_mut().clear();
        self.lazy_locals.borrow_mut().clear();
        self.inlined.borrow_mut().clear();
        self.takeable.borrow_mut().clear();
        *self.deferred.borrow_mut() = deferred_sets(&r.body);
        *self.classed.borrow_mut() = crate::ir::classed_rolls(self.sys, &r.body);
        *self.call_reads.borrow_mut() = crate::ir::call_reads(&r.body);
        *self.sites.borrow_mut() = crate::ir::stmt_sites(r);
        self.view_bodies.borrow_mut().clear();
        let cname = camel(&r.name);
        let mut out = String::new();
        self.io_types(rid, r, &cname, &mut out);
        let (body, checks) = self.body_code(r, &cname);
        // The body takes its inputs as `RtArgs…`: the `Copy` ones by value, the others by
        // reference, so that a resolver calling another lends it a list instead of copying it.
        let lifetime = r.inputs.iter().any(|p| !is_copy(&p.ty));
        self.args_struct(r, &cname, lifetime, &mut out);
        let lend = lend_inputs(r, "inp");
        out.push_str(&self.entry_fns(rid, r, &cname, lifetime, body, &lend));
        out.push_str(&self.forward_def(rid, r, &checks, &lend));
        for f in self.site_fns.borrow_mut().drain(..) {
            out.push_str(&f);
        }
        out.push_str(&self.sites_table(r));
        let _ = writeln!(
            out,
            "\nrt::compiled_resolver!({cname}Inputs, {cname}Outcome, {rn}, odds::{rn});",
            rn = raw_ident(&r.name)
        );
        if self.chainable(r) {
            out.push_str(&self.chain_fn(r));
        }
        let _ = rid;
        Ok(out)
    }

    /// The `…Inputs` struct with its API (`inputs_api`) and the `…Outcome` struct with its
    /// `to_value`, `Serialize` and `rt::Flatten`.
    fn io_types(&self, rid: usize, r: &ResolverDef, cname: &str, out: &mut String) {
        // Inputs struct.
        let mut ins = codegen::Struct::new(&format!("{cname}Inputs"));
        ins.vis("pub").derive("Clone").derive("Debug").derive("PartialEq");
        // A step's states are compared and ordered in its typed chain, a callee's inputs in the
        // table of its outcomes that exact odds keep (`rt::memo_call`).
        if self.chainable(r) || self.memoizable(rid) {
            ins.derive("Eq").derive("PartialOrd").derive("Ord");
        }
        // A chain's states are hashed (`rt::chain_typed`).
        if self.chainable(r) {
            ins.derive("Hash");
        }
        ins.doc(&format!(
            "Inputs of `{}` ({}): `new` takes the inputs without a default, `with_…` sets any other.",
            r.name, r.title
        ));
        for p in &r.inputs {
            let f = ins.new_field(raw_ident(&p.name), self.rty(&p.ty)).vis("pub");
            let doc = if p.doc.is_empty() { p.name.clone() } else { p.doc.clone() };
            f.doc(&doc);
        }
        let mut outs = codegen::Struct::new(&format!("{cname}Outcome"));
        outs.vis("pub")
            .derive("Clone")
            .derive("Debug")
            .derive("PartialEq")
            .derive("Eq")
            .derive("PartialOrd")
            .derive("Ord")
            .derive("Hash")
            .doc(&format!("Outcome of `{}` ({}).", r.name, r.title));
        for p in &r.outputs {
            let f = outs.new_field(raw_ident(&p.name), self.rty(&p.ty)).vis("pub");
            let doc = if p.doc.is_empty() { p.name.clone() } else { p.doc.clone() };
            f.doc(&doc);
        }
        let mut s = codegen::Scope::new();
        s.push_struct(ins);
        s.push_struct(outs);
        out.push_str(&s.to_string());
        // from_values / to_value.
        // An input left out of the map takes its declared default, as `bind_inputs` gives it.
        let reads: Vec<String> = r
            .inputs
            .iter()
            .map(|p| match &p.default {
                Some(d) => format!(
                    "{}: match m.get({}) {{ None => {}, Some(_) => {} }},",
                    raw_ident(&p.name),
                    lit(&p.name),
                    self.konst(d, &p.ty, false),
                    self.read_input(&p.name, &p.ty)
                ),
                None => format!("{}: {},", raw_ident(&p.name), self.read_input(&p.name, &p.ty)),
            })
            .collect();
        out.push_str(&self.inputs_api(rid, r, &reads));
        let fields: Vec<String> = r
            .outputs
            .iter()
            .map(|p| {
                format!(
                    "({}, {})",
                    lit(&p.name),
                    self.to_value(&format!("self.{}", raw_ident(&p.name)), &p.ty)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "impl {cname}Outcome {{ pub fn to_value(&self) -> rt::Value {{ rt::Value::Record(vec![{}]) }} }}\n{}\n{}",
            fields.join(", "),
            serialize_via_value(&format!("{cname}Outcome")),
            self.flatten_impl(&format!("{cname}Outcome"), &fields_of(r.outputs.iter().map(|p| (&p.name, &p.ty))))
        );
    }

    /// The body of the resolver (`rt_body_…`'s), and `checks`, its start that the forward pass
    /// shares: the inputs' range checks, the outcome made, the flags of `Gen::deferred`.
    fn body_code(&self, r: &'a ResolverDef, cname: &str) -> (String, String) {
        // The resolver: a call is a step (`rt::steps`), of a resolver that loops or calls.
        let mut body = self.call_step(r);
        let _ = writeln!(body, "trace.enter({}, {}, {});", lit(&r.name), lit(&r.title), lit(&r.cite));
        let mut checks = String::new();
        for p in &r.inputs {
            if let (Some((lo, hi)), Ty::Int) = (p.bounds, &p.ty) {
                let _ = writeln!(checks, "rt::in_range({}, inp.{}, {lo}, {hi})?;", lit(&p.name), raw_ident(&p.name));
            }
            if let (Some((lo, hi)), Ty::Dec) = (p.bounds, &p.ty) {
                let _ = writeln!(
                    checks,
                    "rt::dec_in_range({}, inp.{}, {lo}, {hi})?;",
                    lit(&p.name),
                    raw_ident(&p.name)
                );
            }
        }
        let inits: Vec<String> = r
            .outputs
            .iter()
            .map(|p| {
                format!(
                    "{}: {},",
                    raw_ident(&p.name),
                    match &p.default {
                        Some(d) => self.konst(d, &p.ty, false),
                        None => self.default_of(&p.ty),
                    }
                )
            })
            .collect();
        let _ = writeln!(checks, "let mut out = {cname}Outcome {{ {} }};", inits.join(" "));
        for f in self.deferred.borrow().keys() {
            let _ = writeln!(checks, "let mut rt_keep_{f} = false;");
        }
        // The inputs checked, the outcome and what the body keeps made: both passes start so.
        body.push_str(&checks);
        body.push_str("'body: {\n");
        self.owns_args.set(!r.policy);
        self.block(&r.body, &mut body);
        self.owns_args.set(false);
        body.push_str("}\n");
        self.outcome_end(&mut body, !r.policy);
        let _ = writeln!(body, "trace.exit({});", lit(&r.name));
        body.push_str("Ok(out)");
        (body, checks)
    }

    /// `RtArgs…`, the inputs as the body reads them (`lifetime`: some are lent), and a policy's
    /// `to_inputs`.
    fn args_struct(&self, r: &ResolverDef, cname: &str, lifetime: bool, out: &mut String) {
        let args_ty = format!("RtArgs{cname}{}", if lifetime { "<'a>" } else { "" });
        let arg_fields: Vec<String> = r
            .inputs
            .iter()
            .map(|p| {
                if is_copy(&p.ty) {
                    format!("{}: {},", raw_ident(&p.name), self.rty(&p.ty))
                } else if let Ty::List(i) = &p.ty {
                    // Read as a slice: the caller lends a list it holds (`Vec`) or a record's
                    // (`rt::List`), or gives one it reads no more (`rt::Arg`).
                    format!("{}: rt::Arg<'a, {}>,", raw_ident(&p.name), self.rty(i))
                } else {
                    format!("{}: &'a {},", raw_ident(&p.name), self.rty(&p.ty))
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "/// The inputs of `{}` as its body reads them (the generated code's own; applications use `{cname}Inputs`).\n#[doc(hidden)]\npub struct {args_ty} {{ {} }}",
            r.name,
            arg_fields
                .iter()
                .map(|f| format!("pub {f}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        if r.policy {
            // An application's policy takes the owned inputs.
            let copy = per_input(r, |n| format!("{n}: self.{n}"), |n| format!("{n}: self.{n}.to_owned()"));
            let _ = writeln!(
                out,
                "impl RtArgs{cname}{} {{ fn to_inputs(&self) -> {cname}Inputs {{ {cname}Inputs {{ {} }} }} }}",
                if lifetime { "<'_>" } else { "" },
                copy.join(", ")
            );
        }
    }

    /// The public entry point (`<name>`, or `<name>_with` and `<name>` for one that uses a
    /// policy) lending `RtArgs…` (`lend`) to the body `rt_body_<name>`, which runs `body`.
    fn entry_fns(&self, rid: usize, r: &ResolverDef, cname: &str, lifetime: bool, body: String, lend: &[String]) -> String {
        let mut out = String::new();
        let uses_policy = self.uses_policy[rid];
        let fn_name = if uses_policy {
            format!("{}_with", r.name)
        } else {
            raw_ident(&r.name)
        };
        let body_fn = format!("rt_body_{}", r.name);
        let mut f = codegen::Function::new(&fn_name);
        f.vis("pub")
            .doc(format!("{} [{}]\n\nSource: {}:{}", r.title, r.cite, r.source, r.line))
            .generic("D: rt::Dice + ?Sized")
            .generic("T: rt::Trace");
        if uses_policy {
            f.generic("P: Policy + ?Sized");
        }
        f.arg("dice", "&mut D").arg("trace", "&mut T");
        if uses_policy {
            f.arg("policy", "&mut P");
        }
        f.arg("inp", format!("&{cname}Inputs"))
            .ret(format!("Result<{cname}Outcome, rt::Error>"))
            // A resolution starts here: no steps taken yet (`rt::steps`).
            .line("rt::steps::begin();")
            .line(format!(
                "{body_fn}(dice, trace, {}&{}RtArgs{cname} {{ {} }})",
                if uses_policy { "policy, " } else { "" },
                if r.policy { "" } else { "mut " },
                lend.join(", ")
            ));
        let mut b = codegen::Function::new(&body_fn);
        b.generic("D: rt::Dice + ?Sized").generic("T: rt::Trace");
        if uses_policy {
            b.generic("P: Policy + ?Sized");
        }
        b.arg("dice", "&mut D").arg("trace", "&mut T");
        if uses_policy {
            b.arg("policy", "&mut P");
        }
        // A policy's body reads its loan (an application's policy gets owned inputs); any other
        // holds its arguments to change, to take a list input it reads no more.
        b.arg(
            "inp",
            format!(
                "&{}RtArgs{cname}{}",
                if r.policy { "" } else { "mut " },
                if lifetime { "<'_>" } else { "" }
            ),
        )
        .ret(format!("Result<{cname}Outcome, rt::Error>"))
        .line(self.located(r, &format!("{cname}Outcome"), &body));
        if uses_policy {
            // The plain entry point decides as the rules' own policies do.
            let _ = writeln!(
                out,
                "/// {} [{}], deciding with the rules' default policies (see [`Policy`]).\npub fn {rn}<D: rt::Dice + ?Sized, T: rt::Trace>(dice: &mut D, trace: &mut T, inp: &{cname}Inputs) -> Result<{cname}Outcome, rt::Error> {{ {n}_with(dice, trace, &mut DefaultPolicy, inp) }}",
                r.title,
                r.cite,
                n = r.name,
                rn = raw_ident(&r.name)
            );
        }
        let mut s = codegen::Scope::new();
        s.push_fn(f);
        s.push_fn(b);
        out.push_str(&s.to_string());
        out
    }

    /// The resolver's forward pass (`rt_fwd_<name>`, when it has one: `ir::forward_passes`) and
    /// its typed exact odds in the system's `odds` module, by the forward pass or else by replay.
    /// `checks` starts the body (inputs checked, outcome made), `lend` makes its `RtArgs…` of the
    /// typed inputs `inp`.
    fn forward_def(&self, rid: usize, r: &'a ResolverDef, checks: &str, lend: &[String]) -> String {
        let cname = camel(&r.name);
        let rn = raw_ident(&r.name);
        let doc = format!(
            "/// Exact odds of `{}` ({}) [{}]: every distinct outcome with its exact probability, as `rt::enumerate` of\n/// the resolver gives them.\n",
            r.name, r.title, r.cite
        );
        if !self.forward.get(rid).copied().unwrap_or(false) {
            self.odds_fns.borrow_mut().push(format!(
                "{doc}pub fn {rn}(inp: &{cname}Inputs) -> Result<rt::Distribution<{cname}Outcome>, rt::Error> {{ rt::enumerate(|dice_| super::{rn}(dice_, &mut rt::NoTrace, inp)) }}\n"
            ));
            return String::new();
        }
        // The body again, as a forward pass: locals named afresh, nothing moved out.
        self.ref_locals.borrow_mut().clear();
        self.view_locals.borrow_mut().clear();
        self.lazy_locals.borrow_mut().clear();
        self.inlined.borrow_mut().clear();
        self.takeable.borrow_mut().clear();
        self.fwd_vars.borrow_mut().clear();
        self.fwd_loops.borrow_mut().clear();
        self.fwd_labels.set(0);
        self.fwd.set(true);
        let mut body = self.call_step(r);
        body.push_str(checks);
        self.fwd_block(&r.body, &[], &mut body);
        body.push_str("Ok(())");
        self.fwd.set(false);
        let lifetime = if r.inputs.iter().any(|p| !is_copy(&p.ty)) { "<'_>" } else { "" };
        self.odds_fns.borrow_mut().push(format!(
            "{doc}pub fn {rn}(inp: &{cname}Inputs) -> Result<rt::Distribution<{cname}Outcome>, rt::Error> {{ rt::enumerate_forward(|e_, s_| super::rt_fwd_{n}(e_, &mut rt::NoTrace, &RtArgs{cname} {{ {} }}, rt::Fw::one(), s_), |dice_| super::{rn}(dice_, &mut rt::NoTrace, inp)) }}\n",
            lend.join(", "),
            n = r.name
        ));
        format!(
            "/// The forward pass of `{n}` for exact odds (`rt::enumerate_forward`): each leaf's outcome and weight go to `rt_sink`.\n#[doc(hidden)]\npub fn rt_fwd_{n}<T: rt::Trace>(rt_e: &mut rt::Enumerator, trace: &mut T, inp: &RtArgs{cname}{lifetime}, rt_w: rt::Fw, rt_sink: &mut rt::Sink<'_, {cname}Outcome>) -> Result<(), rt::Error> {{\n{}\n}}\n",
            self.located(r, "()", &body),
            n = r.name
        )
    }

    /// A body that returns `Result<ty, rt::Error>`, run so that an error leaving it is located at
    /// the statement that raised it (`rt_at`, a `Cell` that each statement sets as it starts,
    /// `site_mark`, and a view moved into a later statement sets around its work, `expr`)
    /// and names this resolver among its calls (`rt::leave`; `docs/dsl.md`, "Run-time errors").
    fn located(&self, r: &ResolverDef, ty: &str, body: &str) -> String {
        format!(
            "let rt_at = std::cell::Cell::new(usize::MAX);\nlet rt_r = (|| -> Result<{ty}, rt::Error> {{\n{body}\n}})();\nrt_r.map_err(|e| rt::leave(e, {}, rt_at.get()))",
            self.sites_name(r)
        )
    }

    fn sites_name(&self, r: &ResolverDef) -> String {
        format!("RT_SITES_{}", r.name.to_uppercase())
    }

    /// The places and citations of the resolver's statements (`Gen::sites`), as one static text
    /// (`rt::leave` reads it): the resolver (`system.resolver`), its file, then a line
    /// `line:col<TAB>citation` per statement.
    fn sites_table(&self, r: &ResolverDef) -> String {
        let sites = self.sites.borrow();
        let file = sites
            .first()
            .and_then(|(at, _)| crate::ir::split_place(at))
            .map_or("", |(f, _, _)| f);
        let mut text = format!("{}.{}\n{file}", self.sys.name, r.name);
        for (at, cite) in sites.iter() {
            let (_, line, col) = crate::ir::split_place(at).unwrap_or(("", 0, 0));
            text.push_str(&format!("\n{line}:{col}\t{cite}"));
        }
        format!("static {}: &str = {};\n", self.sites_name(r), lit(&text))
    }

    /// `rt_at = <index>;` before the code of statement `s` where that code may fail (`located`):
    /// a statement that cannot raise an error needs no place. A `require` is always marked.
    pub(super) fn site_mark(&self, s: &Stmt, code: &str, o: &mut String) {
        let may_fail = code.contains('?') || code.contains("Err(") || matches!(s, Stmt::Require { .. });
        if !may_fail {
            return;
        }
        if let Some(i) = self.site_index(s.at()) {
            let _ = writeln!(o, "rt_at.set({i});");
        }
    }

    /// The index of the place `at` among the resolver's (`Gen::sites`).
    pub(super) fn site_index(&self, at: &str) -> Option<usize> {
        self.sites.borrow().iter().position(|(a, _)| a == at)
    }

    /// Can exact odds branch over this resolver's outcomes where another calls it
    /// (`ir::branches_over_calls`)?
    pub(super) fn memoizable(&self, rid: usize) -> bool {
        self.branches.get(rid).copied().unwrap_or(false)
    }

    /// A resolver written as the step of a procedure: some outputs carry the next round's inputs
    /// (same name, same type) and a yes/no output can end the rounds. Its typed chain
    /// (`chain_…`) walks states as its own inputs struct; any other resolver's `odds --until`
    /// walks dynamic values, with the same answer.
    pub(super) fn chainable(&self, r: &ResolverDef) -> bool {
        let mut carried = false;
        for p in &r.inputs {
            if let Some(o) = r.outputs.iter().find(|o| o.name == p.name) {
                if self.rty(&o.ty) != self.rty(&p.ty) {
                    return false;
                }
                carried = true;
            }
        }
        carried && r.outputs.iter().any(|o| o.ty == Ty::Bool)
    }

    /// `chain_<name>`: the typed chain of a step (see `chainable`), `None` for an `until` that is
    /// not one of its yes/no outputs (the dynamic chain then says why).
    fn chain_fn(&self, r: &ResolverDef) -> String {
        let cname = camel(&r.name);
        let arms: Vec<String> = r
            .outputs
            .iter()
            .filter(|o| o.ty == Ty::Bool)
            .map(|o| format!("{} => |o| o.{},", lit(&o.name), raw_ident(&o.name)))
            .collect();
        // An input named like an output is carried from round to round; the others are the
        // start's in every state, so states are told apart by the carried ones alone.
        let carried = |name: &str| r.outputs.iter().any(|o| o.name == name);
        let fields: Vec<String> = r
            .inputs
            .iter()
            .map(|p| {
                let n = raw_ident(&p.name);
                let from = if carried(&p.name) { "o" } else { "s" };
                if is_copy(&p.ty) {
                    format!("{n}: {from}.{n}")
                } else {
                    format!("{n}: {from}.{n}.clone()")
                }
            })
            .collect();
        let varying: Vec<String> = r.inputs.iter().filter(|p| carried(&p.name)).map(|p| raw_ident(&p.name)).collect();
        let hash_of = |from: &str| -> String {
            let parts: String = varying
                .iter()
                .map(|n| format!("std::hash::Hash::hash(&{from}.{n}, &mut h_); "))
                .collect();
            format!("{{ let mut h_ = rt::state_hasher(); {parts}std::hash::Hasher::finish(&h_) }}")
        };
        let same_as = |from: &str| -> String {
            let parts: Vec<String> = varying.iter().map(|n| format!("{from}.{n} == t.{n}")).collect();
            if parts.is_empty() {
                "true".to_string()
            } else {
                parts.join(" && ")
            }
        };
        format!(
            "fn chain_{n}(inputs_: &rt::Inputs, until_: &str, max_rounds_: u32) -> Option<Result<rt::Chain, rt::Error>> {{ \
             let ended_: fn(&{cname}Outcome) -> bool = match until_ {{ {} _ => return None }}; \
             let step_ = rt::ChainStep::<{cname}Inputs, {cname}Outcome> {{ ended: ended_, \
             next: |s, o| {cname}Inputs {{ {} }}, \
             hash: |s| {}, next_hash: |_s, o| {}, \
             same: |s, t| {}, next_is: |_s, o, t| {} }}; \
             Some({cname}Inputs::from_values(inputs_).and_then(|start_| rt::chain_typed(start_, max_rounds_, &mut |s_| odds::{rn}(s_), &step_, |o| o.to_value()))) }}\n",
            arms.join(" "),
            fields.join(", "),
            hash_of("s"),
            hash_of("o"),
            same_as("s"),
            same_as("o"),
            n = r.name,
            rn = raw_ident(&r.name)
        )
    }

    /// The application's side of a resolver's inputs: `from_values` (a bound map; absent inputs
    /// take their defaults), `new` (the inputs without a default are its arguments, the others
    /// take their defaults), a `with_…` setter per input, `parse` (text as `--set` gives it, with
    /// "did you mean") and `to_values`; `Default` when every input has a default.
    fn inputs_api(&self, rid: usize, r: &ResolverDef, reads: &[String]) -> String {
        let cname = camel(&r.name);
        let ty = format!("{cname}Inputs");
        let mut o = String::new();
        let required: Vec<&Param> = r.inputs.iter().filter(|p| p.default.is_none()).collect();
        let args: Vec<String> = required
            .iter()
            .map(|p| format!("{}: {}", raw_ident(&p.name), self.rty(&p.ty)))
            .collect();
        let inits: Vec<String> = r
            .inputs
            .iter()
            .map(|p| match &p.default {
                Some(d) => format!("{}: {}", raw_ident(&p.name), self.konst(d, &p.ty, false)),
                None => raw_ident(&p.name),
            })
            .collect();
        let new_doc = if required.is_empty() {
            "Every input at its default.".to_string()
        } else {
            let names: Vec<String> = required.iter().map(|p| format!("`{}` ({})", p.name, self.ty_text(&p.ty))).collect();
            format!(
                "The inputs without a default, {}; every other input at its default (change one with its `with_…` setter).",
                names.join(", ")
            )
        };
        let _ = writeln!(
            o,
            "\nimpl {ty} {{\n/// Typed inputs from dynamic values (`rt::bind_inputs` gives them); an input the map leaves out\n/// takes its default, and one without a default is `rt::Error::MissingInput`.\npub fn from_values(m: &rt::Inputs) -> Result<Self, rt::Error> {{ Ok({ty} {{ {} }}) }}\n/// {new_doc}\npub fn new({}) -> Self {{ {ty} {{ {} }} }}",
            reads.join(" "),
            args.join(", "),
            inits.join(", ")
        );
        for p in &r.inputs {
            let what = if p.doc.is_empty() { String::new() } else { format!(": {}", p.doc) };
            let default = match &p.default {
                Some(d) => format!(" (default `{}`)", self.const_text(d)),
                None => String::new(),
            };
            let cite = if p.cite.is_empty() {
                String::new()
            } else {
                format!(" [{}]", p.cite)
            };
            let _ = writeln!(
                o,
                "/// Sets `{n}`{what}{default}{cite}.\npub fn with_{n}(mut self, value: {t}) -> Self {{ self.{f} = value; self }}",
                n = p.name,
                t = self.rty(&p.ty),
                f = raw_ident(&p.name)
            );
        }
        let vals: Vec<String> = r
            .inputs
            .iter()
            .map(|p| {
                format!(
                    "m.insert({}.to_string(), {});",
                    lit(&p.name),
                    self.to_value(&format!("self.{}", raw_ident(&p.name)), &p.ty)
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "/// Inputs from text, as `rulebook roll --set NAME=TEXT` takes them: keys by name or alias\n/// (case and separators ignored), enums by variant, lists comma-separated; every input not given\n/// takes its default. Unknown names and keys are `rt::Error::Unknown` with the nearest choices.\npub fn parse(sets: &[(&str, &str)]) -> Result<Self, rt::Error> {{ rt::compiled::parse(&SYSTEM, {rid}, sets) }}\n/// Inputs from YAML text, a mapping of input names to values (as `rulebook roll --input FILE.yaml`\n/// reads them); every input not given takes its default.\npub fn from_yaml(yaml: &str) -> Result<Self, rt::Error> {{ rt::compiled::from_yaml(&SYSTEM, {rid}, yaml) }}\n/// The inputs as dynamic values (what `from_values` reads back).\npub fn to_values(&self) -> rt::Inputs {{ let mut m = rt::Inputs::new(); {} m }}\n}}",
            vals.join(" "),
        );
        if required.is_empty() {
            let _ = writeln!(o, "impl Default for {ty} {{ fn default() -> Self {{ Self::new() }} }}");
        }
        o
    }

    /// The step a call of `r` takes (`ir::takes_steps`), or nothing.
    fn call_step(&self, r: &ResolverDef) -> String {
        if crate::ir::takes_steps(&r.body) {
            self.step_at("Call", &r.at)
        } else {
            String::new()
        }
    }

    /// A step of the resolution (`rt::steps::take`) at `at`, a loop or a call of the resolver being
    /// written.
    pub(super) fn step_at(&self, kind: &str, at: &str) -> String {
        let r = &self.sys.resolvers[self.current.get()];
        format!(
            "rt::steps::take(&rt::Site {{ kind: rt::SiteKind::{kind}, at: {}, system: {}, resolver: {} }})?;\n",
            lit(at),
            lit(&self.sys.name),
            lit(&r.name)
        )
    }
}
