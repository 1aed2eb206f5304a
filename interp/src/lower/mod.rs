//! Lowering: each resolver's checked IR turned, once at load, into the tree the evaluator runs,
//! with every name resolved to a position. Locals become numbered slots of the call's frame (a
//! declaration takes the next free slot, a block's slots are freed when it ends, and a name means
//! the innermost declaration in scope, exactly the scoping the checker gave it); inputs, outputs,
//! record fields and a call's arguments become indices; a field of a field of a local becomes one
//! path; constants become values; a roll's table rows, a call's memo fields and a statement's
//! place in a group of checks are looked up here rather than at every turn.
//!
//! Nothing here decides what a construct means: the nodes keep their checked IR (`ir`) for the
//! evaluator, which follows `docs/dsl.md` as `codegen` does.

mod expr;
mod stmt;

use crate::value::V;
use rulebook_compiler::ast::{Agg, BinOp, CmpOp};
use rulebook_compiler::ir::{self, Func, Stmt, Ty};
use std::collections::BTreeMap;

/// An expression with its names resolved.
pub struct X {
    pub k: K,
    /// The checked expression (its type, for the evaluator's choices).
    pub ir: &'static ir::Expr,
    /// Is it a place: a constant, a local, an input, an output, or a field of one? A place has no
    /// effects and can be read where it is, without a copy.
    pub place: bool,
}

pub enum K {
    /// A constant, already a value.
    Const(V),
    Local(usize),
    Input(usize),
    Output(usize),
    KeyCol {
        key: Box<X>,
        tables: &'static [usize],
        column: &'static str,
    },
    KeyName(Box<X>),
    /// A field of a field ... of a local, an input or an output: a place read in one loop.
    Path {
        root: Box<X>,
        steps: Box<[Step]>,
    },
    /// A record's field: `at` is its position in every record of the base's type (`None` when the
    /// type does not fix one), checked against `name` before use.
    Field {
        base: Box<X>,
        name: &'static str,
        at: Option<usize>,
        optional: bool,
    },
    Lookup {
        table: usize,
        args: Vec<X>,
    },
    Func(&'static Func, Vec<X>),
    Agg {
        kind: Agg,
        slot: usize,
        list: Box<X>,
        body: Box<X>,
    },
    Neg(Box<X>),
    Not(Box<X>),
    Bin(BinOp, Box<X>, Box<X>),
    Cmp(CmpOp, Box<X>, Box<X>),
    In(Box<X>, Box<X>),
    Is(Box<X>, &'static [usize]),
    If(Vec<(X, X)>, Box<X>),
    ToDec(Box<X>),
    /// The fields in the text's order, each with its position in the record and its bounds.
    Construct {
        rec: usize,
        fields: Vec<FieldInit>,
    },
    With {
        base: Box<X>,
        rec: usize,
        updates: Vec<FieldInit>,
    },
    Some(Box<X>),
    List(Vec<X>),
    /// A name the lowering could not resolve (never from checked rules): an internal error when run.
    Missing(&'static str),
}

/// One field read along a path: its name as the records hold it, its position in them (`None`
/// when the type does not fix one), and whether the record read may be `none`.
pub struct Step {
    pub name: &'static str,
    pub at: Option<usize>,
    pub optional: bool,
}

/// One field given to a record built or updated.
pub struct FieldInit {
    pub name: &'static str,
    pub at: usize,
    pub bounds: Option<(i64, i64)>,
    pub value: X,
}

/// A block: its statements, and the slots it declares itself (cleared when it ends).
pub struct Block {
    pub stmts: Vec<S>,
    pub own: Vec<usize>,
}

/// A statement with its names resolved.
pub struct S {
    pub k: SK,
    pub ir: &'static Stmt,
    /// Is it a check (`ir::is_check`), and is the statement after it one?
    pub check: bool,
    pub next_check: bool,
}

#[expect(
    clippy::large_enum_variant,
    reason = "statements are lowered once per load; boxing would only add noise"
)]
pub enum SK {
    Let {
        slot: usize,
        value: X,
        mods: Vec<M>,
    },
    Var {
        slot: usize,
        value: X,
    },
    Assign {
        slot: usize,
        value: X,
    },
    Roll {
        slot: usize,
        dice: Dice,
        classed: Option<&'static [(i64, i64)]>,
    },
    Check {
        slot: usize,
        left: X,
        right: X,
    },
    Set {
        out: usize,
        value: X,
    },
    If {
        arms: Vec<(X, Block)>,
        otherwise: Block,
    },
    Match {
        scrutinee: X,
        arms: Vec<(&'static [ir::Pattern], Block)>,
    },
    Call(Box<Call>),
    Require {
        cond: X,
        message: Vec<Part>,
    },
    Note {
        text: Vec<Part>,
    },
    Return,
    Break,
    Repeat {
        times: i64,
        body: Block,
        at: &'static str,
    },
    For {
        slot: usize,
        list: X,
        body: Block,
        at: &'static str,
    },
    /// A statement naming what the lowering could not resolve (never from checked rules).
    Missing(&'static str),
}

/// A `call` statement: each argument with the callee's input it fills.
pub struct Call {
    pub slot: usize,
    pub resolver: usize,
    pub args: Vec<(Option<usize>, X)>,
    /// Under exact odds the call branches over the callee's outcomes (`rt::memo_call`): the fields
    /// its caller reads (`None` for all). `None` for a call made directly.
    pub memo: Option<Option<Vec<&'static str>>>,
}

/// A modifier of a `let`.
pub enum M {
    One { value: X, when: Option<X>, m: &'static ir::Mod },
    Highest { name: &'static str, mods: Vec<M> },
}

/// A roll's dice with their computed parts lowered.
pub struct Dice {
    pub ir: &'static ir::Dice,
    pub count: X,
    pub read: Read,
    pub reroll: Option<(X, X)>,
}

pub enum Read {
    /// Every read without computed parts (`ir.read` says which).
    Plain,
    Opposed {
        second: X,
        first_mod: X,
        second_mod: X,
    },
    SumFloor {
        per_die: X,
        floor: i64,
    },
}

/// A part of a `require` or `note` message.
pub enum Part {
    Text(&'static str),
    Value(X),
}

/// A resolver lowered: its body, how many slots a call's frame needs, and its outputs' starting
/// values and inputs' defaults as values.
pub struct Code {
    pub body: Block,
    pub slots: usize,
    pub outputs: Vec<V>,
    pub input_defaults: Vec<Option<V>>,
}

/// Lowers every resolver of a system.
pub fn system(sys: &'static ir::System) -> Vec<Code> {
    let memo = memo_calls(sys);
    let classed = classed_rolls(sys);
    sys.resolvers
        .iter()
        .map(|r| {
            let mut l = Lower {
                sys,
                r,
                scope: Vec::new(),
                slots: 0,
                memo: &memo,
                classed: &classed,
            };
            let body = l.block(&r.body);
            Code {
                body,
                slots: l.slots,
                outputs: r
                    .outputs
                    .iter()
                    .map(|p| match &p.default {
                        Some(d) => crate::eval::konst(sys, d, &p.ty),
                        None => crate::eval::default_of(sys, &p.ty),
                    })
                    .collect(),
                input_defaults: r
                    .inputs
                    .iter()
                    .map(|p| p.default.as_ref().map(|d| crate::eval::konst(sys, d, &p.ty)))
                    .collect(),
            }
        })
        .collect()
}

/// The state of lowering one resolver.
struct Lower<'m> {
    sys: &'static ir::System,
    r: &'static ir::ResolverDef,
    /// The locals in scope, innermost last, each with its slot (its place in this stack).
    scope: Vec<(&'static str, usize)>,
    /// The most slots in use at once: a call's frame holds that many.
    slots: usize,
    memo: &'m BTreeMap<usize, Option<Vec<&'static str>>>,
    classed: &'m BTreeMap<usize, &'static [(i64, i64)]>,
}

impl Lower<'_> {
    /// A slot for a declaration of `name`, in scope from now until its block ends. Slots are a
    /// stack: the names in scope hold the slots below their count, so a declaration takes the
    /// next, and a block's slots are free again once it ends (its sibling blocks reuse them).
    fn declare(&mut self, name: &'static str) -> usize {
        let slot = self.scope.len();
        self.slots = self.slots.max(slot + 1);
        self.scope.push((name, slot));
        slot
    }

    /// `name` declared for what `inner` lowers (a loop's or an aggregate's item), and no further.
    fn binding<R>(&mut self, name: &'static str, inner: impl FnOnce(&mut Self) -> R) -> (usize, R) {
        let mark = self.scope.len();
        let slot = self.declare(name);
        let r = inner(self);
        self.scope.truncate(mark);
        (slot, r)
    }

    fn local(&self, name: &str) -> Option<usize> {
        self.scope.iter().rev().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// The position of field `name` in every value of type `t` (a record, outcome or row), with
    /// the name as those values hold it (the declaration's own text, so that reading the field
    /// compares a pointer, not the letters).
    fn field_at(&self, t: &Ty, name: &'static str) -> (Option<usize>, &'static str) {
        let found = match t {
            Ty::Opt(i) => return self.field_at(i, name),
            Ty::Rec(r) => self.sys.records.get(*r).and_then(|d| {
                d.fields
                    .iter()
                    .enumerate()
                    .find(|(_, (f, _, _))| f == name)
                    .map(|(i, (f, _, _))| (i, f.as_str()))
            }),
            Ty::Outcome(r) => self.sys.resolvers.get(*r).and_then(|d| {
                d.outputs
                    .iter()
                    .enumerate()
                    .find(|(_, p)| p.name == name)
                    .map(|(i, p)| (i, p.name.as_str()))
            }),
            Ty::Row(t) => self.sys.tables.get(*t).and_then(|t| match t.result {
                Some(_) => (name == "value").then_some((0, "value")),
                None => t
                    .columns
                    .iter()
                    .enumerate()
                    .find(|(_, (c, _))| c == name)
                    .map(|(i, (c, _))| (i, c.as_str())),
            }),
            _ => None,
        };
        match found {
            Some((i, n)) => (Some(i), n),
            None => (None, name),
        }
    }
}

/// The call statements of `sys` that generated code makes through `rt::memo_call` (a callee
/// without policies), each with the fields its caller reads (`ir::call_reads`).
fn memo_calls(sys: &'static ir::System) -> BTreeMap<usize, Option<Vec<&'static str>>> {
    let branches = ir::branches_over_calls(sys);
    let mut out = BTreeMap::new();
    for r in &sys.resolvers {
        let reads = ir::call_reads(&r.body);
        ir::each_stmt(&r.body, |s| {
            if let Stmt::Call { var, resolver, .. } = s {
                if branches.get(*resolver).copied().unwrap_or(false) {
                    // The callee's own output names, which the outcome record holds.
                    let outputs = &sys.resolvers[*resolver].outputs;
                    let fields = reads.get(var).cloned().flatten().map(|fs| {
                        fs.iter()
                            .filter_map(|n| outputs.iter().find(|p| p.name == *n).map(|p| p.name.as_str()))
                            .collect()
                    });
                    out.insert(s as *const Stmt as usize, fields);
                }
            }
        });
    }
    out
}

/// The roll statements of `sys` read only through one range table, with that table's rows.
fn classed_rolls(sys: &'static ir::System) -> BTreeMap<usize, &'static [(i64, i64)]> {
    let mut out = BTreeMap::new();
    for r in &sys.resolvers {
        let classed = ir::classed_rolls(sys, &r.body);
        ir::each_stmt(&r.body, |s| {
            if let Stmt::Roll { var, .. } = s {
                if let Some(t) = classed.get(var).and_then(|t| sys.tables.get(*t)) {
                    let rows: Vec<(i64, i64)> = t.rows.iter().map(|row| row.range).collect();
                    out.insert(s as *const Stmt as usize, &*Box::leak(rows.into_boxed_slice()));
                }
            }
        });
    }
    out
}
