//! IR → Rust: one module per system with typed enums, table statics, resolver functions generic over
//! dice and trace, and a `SYSTEM` registry for the CLI. Output is deterministic and formatted.
//!
//! Generated code uses only `rulebook_runtime`'s public API and never panics: table rows are read
//! with `.get()`, integer arithmetic is plain only where `check` proved it cannot overflow.
//!
//! This module holds the entry points and the generator's state (`Gen`); each part adds its own
//! `impl Gen` block, named by what it converts: `items` (enums, records, the `Policy` trait, the
//! `keys` module), `tables`, `resolvers` (types, entry points, bodies, chains), `stmts`, `exprs`,
//! `views` (lists read by reference), `forward` (the forward pass for exact odds), `ownership`
//! (copies, loans, moves and changes in place) and `registry` (`SYSTEM`, `to_value`, flatten,
//! reading inputs); `types` gives the Rust types and constants, and `analysis` the free analyses
//! of the IR they decide by.

mod analysis;
mod exprs;
mod forward;
mod items;
mod ownership;
mod registry;
mod resolvers;
mod stmts;
mod tables;
mod types;
mod views;

use crate::ir::*;
use std::collections::BTreeMap;

/// A rules name as a Rust identifier: Rust keywords become raw identifiers (`mod` → `r#mod`), so
/// rules text may use any name the language allows.
pub fn raw_ident(s: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "box", "break", "const", "continue", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for",
        "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
        "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
        "abstract", "become",
    ];
    if KEYWORDS.contains(&s) {
        format!("r#{s}")
    } else {
        s.to_string()
    }
}

pub fn camel(s: &str) -> String {
    s.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn upper(s: &str) -> String {
    s.to_uppercase()
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

/// The generated code before formatting (for debugging the generator).
pub fn generate_unformatted(p: &Program) -> String {
    let mut scope = codegen::Scope::new();
    for sys in &p.systems {
        match Gen::new(sys).module() {
            Ok(m) => {
                scope.raw(&m);
            }
            Err(e) => return e,
        }
    }
    scope.to_string()
}

/// Generate the whole `rules.rs` for a program. `header` is the do-not-edit stamp.
pub fn generate(p: &Program, header: &str) -> Result<String, String> {
    let mut scope = codegen::Scope::new();
    for sys in &p.systems {
        let g = Gen::new(sys);
        let module = g.module()?;
        scope.raw(&module);
    }
    let names: Vec<String> = p.systems.iter().map(|s| format!("&{}::SYSTEM", raw_ident(&s.name))).collect();
    scope.raw(format!(
        "/// Every compiled rule system.\npub static SYSTEMS: &[&rulebook_runtime::SystemInfo] = &[{}];",
        names.join(", ")
    ));
    let code = scope.to_string();
    let file = syn::parse_file(&code).map_err(|e| format!("generated code does not parse ({e}); this is a compiler bug"))?;
    Ok(format!("{header}{}", prettyplease::unparse(&file)))
}

struct Gen<'a> {
    sys: &'a System,
    /// Per resolver: does it consult a policy, directly or through the resolvers it calls?
    uses_policy: Vec<bool>,
    key_cols: std::cell::RefCell<BTreeMap<(Vec<usize>, String), usize>>,
    specs: std::cell::RefCell<Vec<String>>,
    /// The locals of the resolver being written that are bound to a reference (an element of a
    /// list iterated in place): an expression reads them as `(*v)`, a place like `inp.x`.
    ref_locals: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// The locals declared `mut` that hold a list or a call's outcome: the ones a last use can
    /// move out of (`std::mem::take`) instead of copying.
    takeable: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// The `let` locals bound to a view, a `Vec<&T>` of references to the items of a list that
    /// nothing changes while the view is read (`let near = filter(f in fighters: ...)`): read
    /// only as a list to go through, never copied whole.
    view_locals: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// The `var` locals that start as a list input the body still reads (`var fs = fighters`),
    /// each with its input: a `Cow` that reads the input where it lies until the first change
    /// copies it (`lazy_copy`).
    lazy_locals: std::cell::RefCell<BTreeMap<String, String>>,
    /// The `let` locals written where they are read instead (`inlined_view`): a filtered or
    /// sorted view read once, by the statement right after it, as the list of an aggregate.
    inlined: std::cell::RefCell<BTreeMap<String, &'a Expr>>,
    /// What may still run after the statement being written: the rest of each enclosing block,
    /// and each enclosing loop's body (run again, except for the locals it declares afresh).
    later: std::cell::RefCell<Vec<Later<'a>>>,
    /// Per call in the resolver being written (by its local): the fields of the callee's outcome
    /// read after it, `None` when the outcome is read whole. Exact odds tell the callee's
    /// outcomes apart by these alone (`rt::memo_call`).
    call_reads: std::cell::RefCell<BTreeMap<String, Option<std::collections::BTreeSet<String>>>>,
    /// Per resolver: do exact odds branch over its outcomes where it is called (`rt::memo_call`)?
    branches: Vec<bool>,
    /// Calls written so far in this system: numbers its call sites (`rt::memo_call`).
    call_sites: std::cell::Cell<usize>,
    /// The `rt_call_<n>` functions of the calls of the resolver being written.
    site_fns: std::cell::RefCell<Vec<String>>,
    /// Outputs of the resolver being written that a top-level `set out = input` gives a list
    /// input's value, and that nothing reads back (`deferred_sets`): output → input. The copy is
    /// made only if no later `set` replaces it (`rt_keep_<output>`).
    deferred: std::cell::RefCell<BTreeMap<String, String>>,
    /// The rolls of the resolver being written read only through one range table
    /// (`ir::classed_rolls`): roll's local → table. Exact odds branch over its rows
    /// (`Dice::roll_classed`).
    classed: std::cell::RefCell<BTreeMap<String, usize>>,
    /// Per resolver: has it a forward pass (`ir::forward_passes`)?
    forward: Vec<bool>,
    /// Writing a forward pass (`rt_fwd_<name>`): a `return` hands the leaf to the sink, and no
    /// local is moved out (the rest of the body runs once per value of each roll before it).
    fwd: std::cell::Cell<bool>,
    /// The forward pass's `var` locals in scope, copied afresh for each value of a roll.
    fwd_vars: std::cell::RefCell<Vec<String>>,
    /// The labels of the forward pass's loops over values around the statement being written.
    fwd_loops: std::cell::RefCell<Vec<String>>,
    /// Loops over values written so far in the resolver's forward pass: names their labels.
    fwd_labels: std::cell::Cell<usize>,
    /// Writing a check (`ir::is_check`): its blocks belong to its group, which declares the
    /// failed `require`s (`violations`) before it and stops after it.
    checking: std::cell::Cell<bool>,
    /// Writing the body of a resolver that is not a policy (`rt_body_<name>`), which holds its
    /// `RtArgs…` to change: a list input read no more may be taken (`rt::Arg::take`), to be the
    /// body's own list or given to a callee.
    owns_args: std::cell::Cell<bool>,
    /// Views are being written for a loop whose body runs between their items (`Stmt::For`): a
    /// filter then keeps its items in a list first, as no closure may borrow what the body uses.
    eager_views: std::cell::Cell<bool>,
    /// The typed exact odds of each resolver, for the system's `odds` module.
    odds_fns: std::cell::RefCell<Vec<String>>,
    /// The resolver being written: the step limit's sites name it (`rt::Site`).
    current: std::cell::Cell<usize>,
    /// The places of the statements of the resolver being written, with the citations they name
    /// (`ir::stmt_sites`): a statement sets `rt_at` to its index as it starts, and an error
    /// leaving the resolver is located there (`rt::leave`).
    sites: std::cell::RefCell<Vec<(String, String)>>,
    /// The place of the statement being written.
    current_at: std::cell::RefCell<String>,
    /// What a view moved into a later statement works out for each item (`inlined_view`): the
    /// body of each of its aggregates (by address) → the place of the view's `let`, which an error
    /// raised there names.
    view_bodies: std::cell::RefCell<BTreeMap<usize, String>>,
}

impl<'a> Gen<'a> {
    fn new(sys: &'a System) -> Self {
        Gen {
            sys,
            uses_policy: crate::ir::uses_policy(sys),
            key_cols: Default::default(),
            specs: Default::default(),
            ref_locals: Default::default(),
            takeable: Default::default(),
            view_locals: Default::default(),
            lazy_locals: Default::default(),
            inlined: Default::default(),
            later: Default::default(),
            call_reads: Default::default(),
            branches: crate::ir::branches_over_calls(sys),
            call_sites: Default::default(),
            site_fns: Default::default(),
            deferred: Default::default(),
            eager_views: Default::default(),
            classed: Default::default(),
            forward: crate::ir::forward_passes(sys),
            fwd: Default::default(),
            fwd_vars: Default::default(),
            fwd_loops: Default::default(),
            fwd_labels: Default::default(),
            owns_args: Default::default(),
            checking: Default::default(),
            odds_fns: Default::default(),
            current: Default::default(),
            sites: Default::default(),
            current_at: Default::default(),
            view_bodies: Default::default(),
        }
    }

    fn module(&self) -> Result<String, String> {
        let sys = self.sys;
        let mut m = codegen::Scope::new();
        m.raw("use rulebook_runtime as rt;");
        for e in &sys.enums {
            m.raw(self.enum_def(e));
        }
        for r in &sys.records {
            m.raw(self.record_def(r));
        }
        for (tid, t) in sys.tables.iter().enumerate() {
            m.raw(self.table_def(tid, t));
        }
        for (rid, r) in sys.resolvers.iter().enumerate() {
            m.raw(&self.resolver_def(rid, r)?);
        }
        if sys.resolvers.iter().any(|r| r.policy) {
            m.raw(self.policy_trait());
        }
        // Accessors and dice specs are collected while generating bodies.
        for ((tables, col), id) in self.key_cols.borrow().iter() {
            m.raw(self.key_col_fn(*id, tables, col));
        }
        for s in self.specs.borrow().iter() {
            m.raw(s);
        }
        m.raw(format!(
            "/// Exact odds of each resolver of the system as its typed outcomes: the same distribution as\n/// `odds` gives, worked out by the resolver's forward pass where it has one.\npub mod odds {{\nuse super::*;\n{}\n}}",
            self.odds_fns.borrow().concat()
        ));
        m.raw(self.registry());
        m.raw(self.keys_module());
        let doc = format!("//! {} — compiled from `rules-src/{}/`.", sys.title, sys.name);
        Ok(format!(
            "#[allow(dead_code, unused_labels, unused_variables, unused_mut, unused_assignments, unreachable_patterns, unused_parens, clippy::all, reason = \"generated code: labels, bindings and match arms follow the rules text one to one\")]\npub mod {} {{\n{doc}\n{}\n}}",
            raw_ident(&sys.name),
            m.to_string()
        ))
    }
}

/// What may still run after a statement (`Gen::later`): statements, the locals they declare
/// afresh (a loop body's, on its next run), and whether nothing runs after them (a `return`).
struct Later<'a> {
    stmts: &'a [Stmt],
    fresh: Vec<String>,
    last: bool,
    /// A `break` follows `stmts`: the loop around ends there (its body does not run again).
    exits: bool,
    /// The body of a loop, which may run again.
    is_loop: bool,
}
