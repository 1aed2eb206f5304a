//! The abstract syntax tree of rules text: every node keeps its span so diagnostics can point at it.

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub file: usize,
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Cite {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct File {
    pub items: Vec<Item>,
}

/// `alias "A", "B" => "Key"`: the alias texts with their spans, the target key, the line span.
pub type AliasLine = (Vec<(String, Span)>, String, Span);
/// One `match` arm: its patterns (with spans) and its body.
pub type MatchArm = (Vec<(Pattern, Span)>, Vec<Stmt>);

#[derive(Clone, Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "AST items are built once per file; boxing them would only add noise"
)]
pub enum Item {
    System {
        name: Ident,
        title: String,
        cite_prefix: Option<String>,
        span: Span,
    },
    Option {
        name: Ident,
        title: String,
        cite: Cite,
    },
    Enum(EnumDecl),
    Type {
        name: Ident,
        ty: TypeExpr,
        doc: Option<String>,
    },
    Const {
        name: Ident,
        value: Cell,
        doc: Option<String>,
        cite: Cite,
    },
    Table(TableDecl),
    Resolver(ResolverDecl),
    Record {
        name: Ident,
        title: Option<String>,
        cite: Option<Cite>,
        fields: Vec<(Ident, TypeExpr)>,
    },
}

#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub name: Ident,
    pub title: Option<String>,
    pub cite: Option<Cite>,
    pub variants: Vec<(Ident, Option<String>)>,
}

#[derive(Clone, Debug)]
pub struct TypeExpr {
    pub list_depth: usize,
    pub atoms: Vec<TypeAtom>,
    pub optional: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TypeAtom {
    pub name: Ident,
    pub bounds: Option<(i64, i64)>,
}

#[derive(Clone, Debug)]
pub enum TableKind {
    Keyed,
    By {
        index: ByIndex,
        result: Option<TypeExpr>,
    },
    /// Each axis is an enum or a bounded int (`distance: int 0..5`).
    Matrix {
        row_name: Ident,
        row_ty: TypeAtom,
        col_name: Ident,
        col_ty: TypeAtom,
        result: TypeExpr,
    },
}

#[derive(Clone, Debug)]
pub enum ByIndex {
    Dice(DiceExpr),
    Type(TypeAtom),
}

#[derive(Clone, Debug)]
pub struct TableDecl {
    pub name: Ident,
    pub title: Option<String>,
    pub cite: Cite,
    pub kind: TableKind,
    pub key: Option<Ident>,
    /// `key unit: unit_type`: the enum whose variants are the rows.
    pub key_ty: Option<Ident>,
    pub columns: Vec<(Ident, TypeExpr)>,
    pub aliases: Vec<AliasLine>,
    pub header: Option<Vec<Ident>>,
    pub rows: Vec<Row>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum RowHead {
    Key(String),
    Range(Option<i64>, Option<i64>),
    /// A range with a decimal end (a row of a table `by decimal`), each end an exact
    /// (numerator, denominator).
    DecRange(Option<(i64, i64)>, Option<(i64, i64)>),
    Label(String),
}

#[derive(Clone, Debug)]
pub struct Row {
    pub head: RowHead,
    pub head_span: Span,
    /// `=> value` rows have exactly one cell and `arrow` set.
    pub arrow: bool,
    pub cells: Vec<Cell>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum CellKind {
    Int(i64),
    Dec(i64, i64),
    Bool(bool),
    Str(String),
    Ident(String),
    None,
    List(Vec<Cell>),
}

#[derive(Clone, Debug)]
pub struct Cell {
    pub kind: CellKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ResolverDecl {
    /// A `policy`: a decision the book leaves to the players, replaceable by an embedding application.
    pub policy: bool,
    pub name: Ident,
    pub title: Option<String>,
    pub cite: Cite,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Param>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    /// `choice` in place of `in`: a decision (its keyword's span).
    pub choice: Option<Span>,
    pub name: Ident,
    pub ty: TypeExpr,
    pub default: Option<Cell>,
    pub doc: Option<String>,
    pub cite: Option<Cite>,
}

#[derive(Clone, Debug)]
pub struct Modifier {
    pub value: Expr,
    pub name: String,
    pub when: Option<Expr>,
    pub cite: Cite,
    pub span: Span,
}

#[derive(Clone, Debug)]
#[expect(clippy::large_enum_variant, reason = "modifier lists are short; boxing would only add noise")]
pub enum ModItem {
    One(Modifier),
    Highest { name: String, mods: Vec<Modifier>, span: Span },
}

#[derive(Clone, Debug)]
pub enum Pattern {
    Wild,
    Range(Option<i64>, Option<i64>),
    /// A range with a decimal end, each end an exact (numerator, denominator).
    DecRange(Option<(i64, i64)>, Option<(i64, i64)>),
    Name(Ident),
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Let {
        name: Ident,
        value: Expr,
        cite: Option<Cite>,
        mods: Vec<ModItem>,
        clamp: Option<(Option<i64>, Option<i64>, Span)>,
    },
    Var {
        name: Ident,
        ty: Option<TypeExpr>,
        value: Expr,
        cite: Option<Cite>,
    },
    Assign {
        name: Ident,
        value: Expr,
        cite: Option<Cite>,
    },
    Roll {
        name: Ident,
        dice: DiceExpr,
        /// `dice + m vs dice + m`: the first side's modifier (with `dice`), and the other side.
        opposed: Option<Box<Opposed>>,
        label: Option<String>,
        cite: Option<Cite>,
    },
    Check {
        name: Ident,
        left: Expr,
        op: CmpOp,
        right: Expr,
        cite: Option<Cite>,
    },
    Set {
        name: Ident,
        value: Expr,
        cite: Option<Cite>,
    },
    If {
        arms: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    Match {
        scrutinee: Expr,
        arms: Vec<MatchArm>,
    },
    Call {
        name: Ident,
        resolver: Ident,
        args: Vec<(Ident, Expr)>,
        cite: Option<Cite>,
    },
    Require {
        cond: Expr,
        message: String,
        message_span: Span,
        cite: Cite,
    },
    Note {
        text: String,
        text_span: Span,
        cite: Option<Cite>,
    },
    Return,
    Break,
    Repeat {
        times: i64,
        body: Vec<Stmt>,
    },
    For {
        var: Ident,
        list: Expr,
        body: Vec<Stmt>,
    },
}

#[derive(Clone, Debug)]
pub struct DiceExpr {
    pub count: DiceCount,
    pub sides: i64,
    pub mods: Vec<DiceMod>,
    pub span: Span,
}

/// The rest of an opposed roll `DICE [± terms] vs DICE [± terms] [reroll ties]` (the first dice
/// are the roll's own): each side's modifier as one sum (`None` without terms).
#[derive(Clone, Debug)]
pub struct Opposed {
    pub first_mod: Option<Expr>,
    pub second: DiceExpr,
    pub second_mod: Option<Expr>,
    pub ties_reroll: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum DiceCount {
    Lit(i64),
    Expr(Box<Expr>),
}

/// A dice modifier. Each end of `Reroll` is a number or an expression in parentheses (`None` when open);
/// `Explode` holds its depth, `None` when the rules leave it out (E0403).
#[derive(Clone, Debug)]
pub enum DiceMod {
    Keep { highest: bool, n: i64 },
    Drop { highest: bool, n: i64 },
    Flux,
    BadFlux,
    ZeroBased,
    Each { value: Box<Expr>, floor: i64 },
    Reroll(Option<Box<Expr>>, Option<Box<Expr>>),
    Explode(Option<i64>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Coalesce,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agg {
    Sum,
    Product,
    Count,
    Any,
    All,
    Max,
    Min,
    Map,
    Filter,
    First,
    Sort,
    SortDesc,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Dec(i64, i64),
    Bool(bool),
    Str(String),
    Name(String),
    List(Vec<Expr>),
    Option(Ident),
    /// `in.name`: the input of that name, whatever else is called so.
    InputRef(Ident),
    /// `out.name`: the output of that name as set so far.
    OutputRef(Ident),
    Field(Box<Expr>, Ident),
    Call(Ident, Vec<Expr>),
    /// `record_type(field: value, ...)`
    Construct(Ident, Vec<(Ident, Expr)>),
    /// `value with (field: value, ...)`
    With(Box<Expr>, Vec<(Ident, Expr)>),
    Agg {
        kind: Agg,
        var: Ident,
        list: Box<Expr>,
        body: Box<Expr>,
    },
    /// `update(var in list where cond: body)`: the list with every item that makes `cond` yes
    /// replaced by `body`, the others kept, in order.
    Update {
        var: Ident,
        list: Box<Expr>,
        cond: Box<Expr>,
        body: Box<Expr>,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    In(Box<Expr>, Box<Expr>),
    Is(Box<Expr>, Ident),
    If(Vec<(Expr, Expr)>, Box<Expr>),
}
