//! The checked, typed intermediate representation that `check` produces and `codegen` consumes.
//! Every name here is resolved, every expression typed, every table validated.

mod places;
use crate::ast::{Agg, BinOp, CmpOp, Span};
pub use places::{split_place, stmt_sites};
use std::fmt::Write as _;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ty {
    Int,
    Dec,
    Bool,
    Text,
    Enum(usize),
    /// A row of one of these keyed tables (sorted ids).
    Key(Vec<usize>),
    Opt(Box<Ty>),
    List(Box<Ty>),
    /// The outcome record of a resolver.
    Outcome(usize),
    /// A row record of a range table with columns.
    Row(usize),
    /// A declared `record` type.
    Rec(usize),
    /// The literal `none` before it meets an optional type.
    NoneLit,
    /// The literal `[]` before it meets a list type.
    EmptyList,
    /// Error recovery: already reported.
    Error,
}

/// An integer interval, in i128 so that sums of i64 bounds cannot overflow while checking.
/// `known == false` means the value is not statically bounded (a `var` changed in a loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iv {
    pub lo: i128,
    pub hi: i128,
    pub known: bool,
}

impl Iv {
    pub const UNKNOWN: Iv = Iv {
        lo: i64::MIN as i128,
        hi: i64::MAX as i128,
        known: false,
    };
    pub fn exact(v: i64) -> Iv {
        Iv {
            lo: v as i128,
            hi: v as i128,
            known: true,
        }
    }
    pub fn range(lo: i64, hi: i64) -> Iv {
        Iv {
            lo: lo as i128,
            hi: hi as i128,
            known: true,
        }
    }
    pub fn join(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            known: self.known && o.known,
        }
    }
    pub fn fits_i64(&self) -> bool {
        self.lo >= i64::MIN as i128 && self.hi <= i64::MAX as i128
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i64),
    Dec(i64, i64),
    Bool(bool),
    Text(String),
    Enum(usize, usize),
    Key { table: usize, row: usize, name: String },
    None,
    List(Vec<Const>),
}

#[derive(Clone, Debug)]
pub struct Program {
    pub systems: Vec<System>,
}

#[derive(Clone, Debug)]
pub struct System {
    pub name: String,
    pub title: String,
    pub cite_prefix: String,
    pub options: Vec<OptionDef>,
    pub enums: Vec<EnumDef>,
    pub tables: Vec<TableDef>,
    pub resolvers: Vec<ResolverDef>,
    pub records: Vec<RecordDef>,
    /// The `const` declarations, by name: the checker folds their values into the expressions
    /// that read them; kept here for comparing two versions of the rules (`changes`).
    pub consts: Vec<(String, Const)>,
}

/// A record field: name, type and declared int bounds.
pub type RecordField = (String, Ty, Option<(i64, i64)>);

#[derive(Clone, Debug)]
pub struct RecordDef {
    pub name: String,
    pub title: String,
    pub cite: String,
    /// Field name, type and declared int bounds (checked at run time when a record is built).
    pub fields: Vec<RecordField>,
}

#[derive(Clone, Debug)]
pub struct OptionDef {
    pub name: String,
    pub title: String,
    pub cite: String,
}

#[derive(Clone, Debug)]
pub struct EnumDef {
    pub name: String,
    pub title: String,
    pub cite: String,
    pub variants: Vec<(String, String)>,
}

#[derive(Clone, Debug)]
pub enum TableKind {
    Keyed,
    /// Indexed by an integer in `lo..=hi` (from dice or a declared type).
    Range {
        lo: i64,
        hi: i64,
    },
    /// Rows along one axis, columns along the other; a row holds one cell per column.
    Matrix {
        rows: Axis,
        cols: Axis,
    },
    /// Keyed by an enum (`key unit: unit_type`): one row per variant, in declaration order.
    ByEnum {
        key_enum: usize,
    },
    /// Indexed `by decimal`: each row a band of exact decimals (`RowDef::band`), together covering
    /// every decimal; a value on a shared end belongs to the first row in the text that has it.
    DecRange,
}

/// A band of exact decimals, both ends included, `None` for an open end; each end is a reduced
/// (numerator, denominator).
pub type DecBand = (Option<(i64, i64)>, Option<(i64, i64)>);

/// One axis of a matrix: the variants of an enum, or every whole number of `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    Enum(usize),
    Int { lo: i64, hi: i64 },
}

impl Axis {
    /// The label of position `i` on this axis: a variant name, or the number.
    pub fn label(&self, sys: &System, i: usize) -> String {
        match self {
            Axis::Enum(e) => sys
                .enums
                .get(*e)
                .and_then(|e| e.variants.get(i))
                .map(|(v, _)| v.clone())
                .unwrap_or_default(),
            Axis::Int { lo, .. } => (*lo as i128 + i as i128).to_string(),
        }
    }
}

impl TableKind {
    /// The kind as the registry names it: "keyed", "range" or "matrix".
    pub fn label(&self) -> &'static str {
        match self {
            TableKind::Keyed => "keyed",
            TableKind::Range { .. } => "range",
            TableKind::DecRange => "decimal range",
            TableKind::Matrix { .. } => "matrix",
            TableKind::ByEnum { .. } => "enum",
        }
    }
}

#[derive(Clone, Debug)]
pub struct TableDef {
    pub name: String,
    pub title: String,
    pub cite: String,
    pub kind: TableKind,
    pub key_column: String,
    pub columns: Vec<(String, Ty)>,
    /// For `=> value` tables: the value type; rows have one cell.
    pub result: Option<Ty>,
    pub rows: Vec<RowDef>,
    pub aliases: Vec<(String, usize)>,
    pub source: String,
    pub line: usize,
    pub used: bool,
}

#[derive(Clone, Debug)]
pub struct RowDef {
    /// Keyed: the key; range: "3..4"; matrix: the row label.
    pub label: String,
    pub range: (i64, i64),
    /// The band of a row of a table `by decimal`.
    pub band: Option<DecBand>,
    pub cells: Vec<Const>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    pub bounds: Option<(i64, i64)>,
    pub default: Option<Const>,
    pub doc: String,
    pub cite: String,
    pub is_option: bool,
    /// Declared with `choice`: a decision `best` may take in each state (docs/dsl.md).
    pub choice: bool,
}

#[derive(Clone, Debug)]
pub struct ResolverDef {
    pub policy: bool,
    pub name: String,
    pub title: String,
    pub cite: String,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Param>,
    pub body: Vec<Stmt>,
    pub source: String,
    pub line: usize,
    /// `path:line:col` of the declaration, which the step limit names (`rt::Site`).
    pub at: String,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub iv: Iv,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Func {
    Floor,
    Ceil,
    Round,
    Abs,
    Min,
    Max,
    Clamp,
    Len,
    Sqrt,
    /// `sqrt(x, places)`: rounded down at that many decimal places, a decimal.
    SqrtPlaces(u32),
}

impl Expr {
    /// The expressions directly inside this one (not the dice of a roll: expressions hold none).
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Input(_) | ExprKind::Output(_) => Vec::new(),
            ExprKind::KeyCol { key, .. } | ExprKind::KeyName { key, .. } => vec![key],
            ExprKind::Field(b, _) => vec![b],
            ExprKind::Lookup { args, .. } | ExprKind::Func(_, args) | ExprKind::List(args) => args.iter().collect(),
            ExprKind::Agg { list, body, .. } => vec![list, body],
            ExprKind::Neg(x) | ExprKind::Not(x) | ExprKind::ToDec(x) | ExprKind::Some(x) | ExprKind::Is(x, _) => vec![x],
            ExprKind::Bin(_, a, b) | ExprKind::Cmp(_, a, b) | ExprKind::In(a, b) => vec![a, b],
            ExprKind::If(arms, otherwise) => {
                let mut v: Vec<&Expr> = arms.iter().flat_map(|(c, x)| [c, x]).collect();
                v.push(otherwise);
                v
            }
            ExprKind::Construct { fields, .. } => fields.iter().map(|(_, x)| x).collect(),
            ExprKind::With { base, updates, .. } => {
                let mut v = vec![&**base];
                v.extend(updates.iter().map(|(_, x)| x));
                v
            }
        }
    }

    /// Does this expression read the local variable `var` anywhere?
    pub fn mentions_local(&self, var: &str) -> bool {
        self.has(&|k| matches!(k, ExprKind::Local(v) if v == var))
    }

    /// Does this expression read the input `name` anywhere?
    pub fn mentions_input(&self, name: &str) -> bool {
        self.has(&|k| matches!(k, ExprKind::Input(i) if i == name))
    }

    /// Is `is` true of this expression or of any inside it?
    fn has(&self, is: &dyn Fn(&ExprKind) -> bool) -> bool {
        // An explicit stack: expressions can be deep (the parser bounds them, but not tightly).
        let mut todo = vec![self];
        while let Some(e) = todo.pop() {
            if is(&e.kind) {
                return true;
            }
            todo.extend(e.children());
        }
        false
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Const(Const),
    Local(String),
    Input(String),
    Output(String),
    KeyCol {
        key: Box<Expr>,
        tables: Vec<usize>,
        column: String,
        optional: bool,
    },
    KeyName {
        key: Box<Expr>,
        optional: bool,
    },
    Field(Box<Expr>, String),
    Lookup {
        table: usize,
        args: Vec<Expr>,
    },
    Func(Func, Vec<Expr>),
    Agg {
        kind: Agg,
        var: String,
        list: Box<Expr>,
        body: Box<Expr>,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    In(Box<Expr>, Box<Expr>),
    Is(Box<Expr>, Vec<usize>),
    If(Vec<(Expr, Expr)>, Box<Expr>),
    ToDec(Box<Expr>),
    /// A record built field by field (all fields, in declaration order).
    Construct {
        rec: usize,
        fields: Vec<(String, Expr)>,
    },
    /// A copy of a record with some fields replaced.
    With {
        base: Box<Expr>,
        rec: usize,
        updates: Vec<(String, Expr)>,
    },
    Some(Box<Expr>),
    List(Vec<Expr>),
}

#[derive(Clone, Debug)]
pub enum Read {
    Sum,
    KeepHighest(i64),
    KeepLowest(i64),
    Flux,
    BadFlux,
    Percentile,
    SumFloor {
        per_die: Box<Expr>,
        floor: i64,
    },
    /// Exploding dice, summed: the depth (1..=100) is the most extra throws per die.
    Explode(i64),
    /// An opposed roll: `Dice::count` dice plus `first_mod` against `second` dice plus
    /// `second_mod`, read as the difference (the runtime's `Read::Opposed`).
    Opposed {
        second: Box<Expr>,
        first_mod: Box<Expr>,
        second_mod: Box<Expr>,
    },
}

#[derive(Clone, Debug)]
pub struct Dice {
    pub count: Box<Expr>,
    pub sides: i64,
    pub zero_based: bool,
    pub read: Read,
    /// The values thrown again, both ends included; an open end is `i64::MIN` or `i64::MAX`.
    /// Either end may be computed (`reroll (targets + 1)..6`).
    pub reroll: Option<(Expr, Expr)>,
    pub notation: String,
}

impl Dice {
    /// The reroll range when both ends are constants: `Some(None)` without a reroll, `None` when
    /// an end is computed at run time.
    pub fn const_reroll(&self) -> Option<Option<(i64, i64)>> {
        match &self.reroll {
            None => Some(None),
            Some((lo, hi)) => match (&lo.kind, &hi.kind) {
                (ExprKind::Const(Const::Int(a)), ExprKind::Const(Const::Int(b))) => Some(Some((*a, *b))),
                _ => None,
            },
        }
    }
}

#[derive(Clone, Debug)]
#[expect(clippy::large_enum_variant, reason = "modifier lists are short; boxing would only add noise")]
pub enum Mod {
    One {
        value: Expr,
        name: String,
        when: Option<Expr>,
        cite: String,
    },
    Highest {
        name: String,
        mods: Vec<Mod>,
    },
}

#[derive(Clone, Debug)]
pub enum Pattern {
    Wild,
    Range(Option<i64>, Option<i64>),
    /// On a decimal: both ends included, each an exact (numerator, denominator), reduced.
    DecRange(Option<(i64, i64)>, Option<(i64, i64)>),
    Variant(usize, usize),
}

#[derive(Clone, Debug)]
pub enum MsgPart {
    Text(String),
    Value(Expr),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Let {
        var: String,
        name: String,
        ty: Ty,
        value: Expr,
        cite: Option<String>,
        mods: Vec<Mod>,
        clamp: Option<(Option<i64>, Option<i64>)>,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Var {
        var: String,
        name: String,
        ty: Ty,
        value: Expr,
        cite: Option<String>,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Assign {
        var: String,
        name: String,
        ty: Ty,
        value: Expr,
        cite: Option<String>,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Roll {
        var: String,
        label: String,
        dice: Dice,
        cite: String,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Check {
        var: String,
        left: Expr,
        op: CmpOp,
        right: Expr,
        left_text: String,
        right_text: String,
        cite: String,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Set {
        field: String,
        value: Expr,
        cite: String,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    If {
        arms: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Vec<Stmt>,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Match {
        scrutinee: Expr,
        arms: Vec<(Vec<Pattern>, Vec<Stmt>)>,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Call {
        var: String,
        resolver: usize,
        args: Vec<(String, Expr)>,
        cite: String,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Require {
        cond: Expr,
        message: Vec<MsgPart>,
        cite: String,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Note {
        /// The text, with `{name}` values interpolated as in a `require` message.
        text: Vec<MsgPart>,
        cite: String,
        /// `path:line:col` of the statement, which an error raised by it names.
        at: String,
    },
    Return,
    Break,
    /// `at`: `path:line:col` of the loop, which the step limit names (`rt::Site`).
    Repeat {
        times: i64,
        body: Vec<Stmt>,
        at: String,
    },
    For {
        var: String,
        list: Expr,
        body: Vec<Stmt>,
        at: String,
    },
}

impl Stmt {
    /// The expressions this statement evaluates itself (not those of the statements inside it):
    /// values, conditions, arguments, the parts of dice and modifiers, interpolated values.
    pub fn exprs(&self) -> Vec<&Expr> {
        fn mods<'a>(ms: &'a [Mod], out: &mut Vec<&'a Expr>) {
            for m in ms {
                match m {
                    Mod::One { value, when, .. } => {
                        out.push(value);
                        out.extend(when.iter());
                    }
                    Mod::Highest { mods: inner, .. } => mods(inner, out),
                }
            }
        }
        fn msg(parts: &[MsgPart]) -> impl Iterator<Item = &Expr> {
            parts.iter().filter_map(|p| match p {
                MsgPart::Value(e) => Some(e),
                MsgPart::Text(_) => None,
            })
        }
        let mut out = Vec::new();
        match self {
            Stmt::Let { value, mods: ms, .. } => {
                out.push(value);
                mods(ms, &mut out);
            }
            Stmt::Var { value, .. } | Stmt::Assign { value, .. } | Stmt::Set { value, .. } => out.push(value),
            Stmt::Roll { dice, .. } => {
                out.push(&*dice.count);
                match &dice.read {
                    Read::SumFloor { per_die, .. } => out.push(per_die),
                    Read::Opposed {
                        second,
                        first_mod,
                        second_mod,
                    } => out.extend([&**second, &**first_mod, &**second_mod]),
                    _ => {}
                }
                if let Some((lo, hi)) = &dice.reroll {
                    out.extend([lo, hi]);
                }
            }
            Stmt::Check { left, right, .. } => out.extend([left, right]),
            Stmt::If { arms, .. } => out.extend(arms.iter().map(|(c, _)| c)),
            Stmt::Match { scrutinee, .. } => out.push(scrutinee),
            Stmt::Call { args, .. } => out.extend(args.iter().map(|(_, e)| e)),
            Stmt::Require { cond, message, .. } => {
                out.push(cond);
                out.extend(msg(message));
            }
            Stmt::Note { text, .. } => out.extend(msg(text)),
            Stmt::For { list, .. } => out.push(list),
            Stmt::Return | Stmt::Break | Stmt::Repeat { .. } => {}
        }
        out
    }

    /// The blocks of statements inside this one.
    pub fn blocks(&self) -> Vec<&[Stmt]> {
        match self {
            Stmt::If { arms, otherwise, .. } => {
                let mut v: Vec<&[Stmt]> = arms.iter().map(|(_, b)| b.as_slice()).collect();
                v.push(otherwise);
                v
            }
            Stmt::Match { arms, .. } => arms.iter().map(|(_, b)| b.as_slice()).collect(),
            Stmt::Repeat { body, .. } | Stmt::For { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    /// The locals this statement, or any inside it, declares (`let`, `var`, rolls, checks, calls,
    /// loop variables).
    pub fn declares(&self, out: &mut Vec<String>) {
        match self {
            Stmt::Let { var, .. } | Stmt::Var { var, .. } | Stmt::Roll { var, .. } | Stmt::Check { var, .. } | Stmt::Call { var, .. } => {
                out.push(var.clone())
            }
            Stmt::For { var, .. } => out.push(var.clone()),
            _ => {}
        }
        for b in self.blocks() {
            for s in b {
                s.declares(out);
            }
        }
    }
}

/// Texts both backends show for types and constants (the registry's column types, `list`, and
/// input defaults parsed like `--set`).
impl System {
    pub fn ty_text(&self, t: &Ty) -> String {
        match t {
            Ty::Int => "int".into(),
            Ty::Dec => "decimal".into(),
            Ty::Bool => "bool".into(),
            Ty::Text => "text".into(),
            Ty::Enum(e) => self.enums[*e].name.clone(),
            Ty::Key(ts) => ts.iter().map(|t| self.tables[*t].name.clone()).collect::<Vec<_>>().join(" | "),
            Ty::Opt(i) => format!("{}?", self.ty_text(i)),
            Ty::List(i) => format!("list {}", self.ty_text(i)),
            _ => "?".into(),
        }
    }

    /// A constant as `--set` text (for input defaults shown by `list` and parsed by `bind_inputs`).
    pub fn const_text(&self, c: &Const) -> String {
        match c {
            Const::Int(v) => v.to_string(),
            Const::Dec(n, d) => {
                let mut s = String::new();
                let _ = write!(s, "{}", n / d);
                if n % d != 0 {
                    // Exact: reduced denominators of decimal literals are powers of 2 and 5.
                    let mut rem = (n % d).abs();
                    if *n < 0 && n / d == 0 {
                        s = "-0".into();
                    }
                    s.push('.');
                    let mut guard = 0;
                    while rem != 0 && guard < 18 {
                        rem *= 10;
                        let _ = write!(s, "{}", rem / d);
                        rem %= d;
                        guard += 1;
                    }
                }
                s
            }
            Const::Bool(b) => b.to_string(),
            Const::Text(t) => t.clone(),
            Const::Enum(e, v) => self.enums[*e].variants[*v].0.clone(),
            Const::Key { name, .. } => name.clone(),
            Const::None => String::new(),
            Const::List(items) => items.iter().map(|i| self.const_text(i)).collect::<Vec<_>>().join(","),
        }
    }
}

/// Calls `f` on every statement of `body` and of the blocks inside them, each once (in no
/// particular order).
pub fn each_stmt<'a>(body: &'a [Stmt], mut f: impl FnMut(&'a Stmt)) {
    let mut todo: Vec<&'a [Stmt]> = vec![body];
    while let Some(block) = todo.pop() {
        for s in block {
            f(s);
            todo.extend(s.blocks());
        }
    }
}

/// Is `s` a check: a `require`, or an `if`, `match`, `for` or `repeat` whose blocks hold only
/// checks? Consecutive checks are one group: every one of them runs, and then a failed `require`
/// among them stops the resolution (`docs/dsl.md`, "`require`"). Both backends stop there.
pub fn is_check(s: &Stmt) -> bool {
    match s {
        Stmt::Require { .. } => true,
        Stmt::If { arms, otherwise, .. } => {
            let mut blocks = arms.iter().map(|(_, b)| b.as_slice()).chain([otherwise.as_slice()]);
            checks_only(blocks.clone()) && blocks.any(|b| !b.is_empty())
        }
        Stmt::Match { arms, .. } => checks_only(arms.iter().map(|(_, b)| b.as_slice())) && arms.iter().any(|(_, b)| !b.is_empty()),
        Stmt::For { body, .. } | Stmt::Repeat { body, .. } => !body.is_empty() && body.iter().all(is_check),
        _ => false,
    }
}

fn checks_only<'a>(mut blocks: impl Iterator<Item = &'a [Stmt]>) -> bool {
    blocks.all(|b| b.iter().all(is_check))
}

/// Does the group of checks that `s` belongs to end with `s`, the statement before `next`? Its
/// failed `require`s stop the resolution there.
pub fn ends_checks(s: &Stmt, next: Option<&Stmt>) -> bool {
    is_check(s) && !next.is_some_and(is_check)
}

/// Does a call of a resolver with this body take a step (`rt::steps`)? Only when the body loops or
/// calls: a body that does neither runs each of its statements at most once, so its work is
/// bounded by its text, and the step of the loop turn or the call that reached it bounds the rest.
pub fn takes_steps(body: &[Stmt]) -> bool {
    let mut found = false;
    each_stmt(body, |s| {
        found |= matches!(s, Stmt::Repeat { .. } | Stmt::For { .. } | Stmt::Call { .. })
    });
    found
}

/// For each call in `body` (by its local): the fields of its outcome read anywhere in `body`, or
/// `None` when the outcome is read whole (a `let` of it, say).
pub fn call_reads(body: &[Stmt]) -> std::collections::BTreeMap<String, Option<std::collections::BTreeSet<String>>> {
    let mut calls = std::collections::BTreeMap::new();
    let mut exprs: Vec<&Expr> = Vec::new();
    each_stmt(body, |s| {
        if let Stmt::Call { var, .. } = s {
            calls.insert(var.clone(), Some(std::collections::BTreeSet::new()));
        }
        exprs.extend(s.exprs());
    });
    while let Some(e) = exprs.pop() {
        match &e.kind {
            ExprKind::Field(b, f) if matches!(&b.kind, ExprKind::Local(v) if calls.contains_key(v)) => {
                if let ExprKind::Local(v) = &b.kind {
                    if let Some(Some(fields)) = calls.get_mut(v) {
                        fields.insert(f.clone());
                    }
                }
            }
            ExprKind::Local(v) => {
                if let Some(slot) = calls.get_mut(v) {
                    *slot = None;
                }
            }
            _ => exprs.extend(e.children()),
        }
    }
    calls
}

/// The rolls of `body` read only as the whole key of one range table (`roll h = 1d6` then
/// `heavy_hit_table(h)`, and `h` nowhere else): per roll's local, that table. Two values in one
/// row of it lead to the same outcome, so exact odds branch over the rows instead of the values
/// (`rulebook_runtime::Dice::roll_classed`). A local some other statement also declares or
/// assigns, or an aggregate's variable shadows, is left out. Both backends ask this, so they walk
/// the same tree.
pub fn classed_rolls(sys: &System, body: &[Stmt]) -> std::collections::BTreeMap<String, usize> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut rolls: BTreeSet<String> = BTreeSet::new();
    let mut others: BTreeSet<String> = BTreeSet::new();
    let mut exprs: Vec<&Expr> = Vec::new();
    each_stmt(body, |s| {
        match s {
            Stmt::Roll { var, .. } => {
                rolls.insert(var.clone());
            }
            Stmt::Assign { var, .. } => {
                others.insert(var.clone());
            }
            _ => {
                let mut declared = Vec::new();
                s.declares(&mut declared);
                // `declares` goes into the blocks, whose statements are visited on their own.
                if s.blocks().is_empty() {
                    others.extend(declared);
                } else if let Stmt::For { var, .. } = s {
                    others.insert(var.clone());
                }
            }
        }
        exprs.extend(s.exprs());
    });
    // The rolls read otherwise (or shadowed), and the table each other roll is read through.
    let mut bad: BTreeSet<String> = others;
    let mut tables: BTreeMap<&str, usize> = BTreeMap::new();
    while let Some(e) = exprs.pop() {
        match &e.kind {
            ExprKind::Lookup { table, args } if args.len() == 1 => match args.first().map(|a| &a.kind) {
                Some(ExprKind::Local(v)) if rolls.contains(v) => {
                    let range = sys.tables.get(*table).is_some_and(|t| matches!(t.kind, TableKind::Range { .. }));
                    if !range || tables.insert(v.as_str(), *table).is_some_and(|t| t != *table) {
                        bad.insert(v.clone());
                    }
                }
                _ => exprs.extend(e.children()),
            },
            ExprKind::Local(v) => {
                bad.insert(v.clone());
            }
            ExprKind::Agg { var, .. } => {
                bad.insert(var.clone());
                exprs.extend(e.children());
            }
            _ => exprs.extend(e.children()),
        }
    }
    tables
        .into_iter()
        .filter(|(v, _)| !bad.contains(*v))
        .map(|(v, t)| (v.to_string(), t))
        .collect()
}

/// Per resolver: has it a forward pass for exact odds (`rt_fwd_<name>` in generated code,
/// `rulebook_runtime::enumerate_forward`)? When it branches over its calls (`branches_over_calls`)
/// and no roll or call is inside a loop: the pass puts the rest of the body inside a loop over
/// each roll's values and each call's classes, which a statement run again by a loop cannot have.
/// Not when it throws no dice (`rolls_dice`): its one outcome comes from one run of its body.
pub fn forward_passes(sys: &System) -> Vec<bool> {
    fn in_loop(stmts: &[Stmt], inside: bool) -> bool {
        stmts.iter().any(|s| match s {
            Stmt::Roll { .. } | Stmt::Call { .. } => inside,
            Stmt::Repeat { .. } | Stmt::For { .. } => s.blocks().into_iter().any(|b| in_loop(b, true)),
            _ => s.blocks().into_iter().any(|b| in_loop(b, inside)),
        })
    }
    // Without dice there is one outcome: replaying the body once finds it.
    branches_over_calls(sys)
        .into_iter()
        .zip(rolls_dice(sys))
        .zip(&sys.resolvers)
        .map(|((b, rolls), r)| b && rolls && !in_loop(&r.body, false))
        .collect()
}

/// Per resolver: does it throw dice, itself or through the resolvers it calls? One that does not
/// has a single outcome for given inputs.
pub fn rolls_dice(sys: &System) -> Vec<bool> {
    let mut rolls: Vec<bool> = sys
        .resolvers
        .iter()
        .map(|r| any_stmt(&r.body, &|s| matches!(s, Stmt::Roll { .. })))
        .collect();
    // Through calls, to a fixed point: each pass marks the callers of a resolver marked before.
    loop {
        let next: Vec<bool> = sys
            .resolvers
            .iter()
            .zip(&rolls)
            .map(|(r, &own)| own || any_stmt(&r.body, &|s| matches!(s, Stmt::Call { resolver, .. } if rolls[*resolver])))
            .collect();
        if next == rolls {
            return rolls;
        }
        rolls = next;
    }
}

/// Does any statement of `body`, at any depth, meet `f`?
fn any_stmt(body: &[Stmt], f: &dyn Fn(&Stmt) -> bool) -> bool {
    body.iter().any(|s| f(s) || s.blocks().into_iter().any(|b| any_stmt(b, f)))
}

/// Per resolver: do exact odds branch over its outcomes where another calls it
/// (`rulebook_runtime::memo_call`)? Not when a policy decides in it, itself or through its calls:
/// an application's policy is its own code. Both backends ask this, so they walk the same tree.
pub fn branches_over_calls(sys: &System) -> Vec<bool> {
    let uses = uses_policy(sys);
    sys.resolvers.iter().zip(uses).map(|(r, u)| !r.policy && !u).collect()
}

/// Which resolvers consult a policy, directly or through the resolvers they call.
pub fn uses_policy(sys: &System) -> Vec<bool> {
    fn calls(stmts: &[Stmt], out: &mut Vec<usize>) {
        for s in stmts {
            match s {
                Stmt::Call { resolver, .. } => out.push(*resolver),
                Stmt::If { arms, otherwise, .. } => {
                    arms.iter().for_each(|(_, b)| calls(b, out));
                    calls(otherwise, out);
                }
                Stmt::Match { arms, .. } => arms.iter().for_each(|(_, b)| calls(b, out)),
                Stmt::Repeat { body, .. } | Stmt::For { body, .. } => calls(body, out),
                _ => {}
            }
        }
    }
    let callees: Vec<Vec<usize>> = sys
        .resolvers
        .iter()
        .map(|r| {
            let mut v = Vec::new();
            calls(&r.body, &mut v);
            v
        })
        .collect();
    let mut uses: Vec<bool> = callees.iter().map(|c| c.iter().any(|&x| sys.resolvers[x].policy)).collect();
    loop {
        let mut changed = false;
        for r in 0..uses.len() {
            if !uses[r] && callees[r].iter().any(|&c| uses[c] && !sys.resolvers[c].policy) {
                uses[r] = true;
                changed = true;
            }
        }
        if !changed {
            return uses;
        }
    }
}
