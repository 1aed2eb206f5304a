//! Every use of every declared name: a walk over each file's syntax tree that tells, for each
//! name written, which declaration it stands for (a resolver, table, column, enum, variant,
//! record, field, type, constant or option of the file's system). A bare name or a `.field` is
//! told by the checked program where the checker got that far (the type of `x` in `x.f`, a
//! local against a variant of the same name), else by the names alone: a name bound in the
//! resolver is a local, a field name that one record or table has is that one's.

use super::world::Analysis;
use rulebook_compiler::ast::{
    self, DiceExpr, DiceMod, ExprKind, Ident, Item, ModItem, Pattern, RowHead, Span, StmtKind, TableKind, TypeExpr,
};
use rulebook_compiler::ir;
use std::collections::{BTreeMap, BTreeSet};

/// What a name stands for: a declaration of one system, named by its kind, its owner (the enum
/// of a variant, the record of a field, the table of a column) and its name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Target {
    pub system: String,
    pub kind: &'static str,
    pub owner: String,
    pub name: String,
}

/// A name written in file `file` at `span`, standing for `target`; `decl` when it is the
/// declaration itself.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Occurrence {
    pub file: usize,
    pub span: Span,
    pub target: Target,
    pub decl: bool,
}

/// The kinds a target can be; a `policy` is a resolver.
pub fn target_kind(decl_kind: &str) -> Option<&'static str> {
    Some(match decl_kind {
        "resolver" | "policy" => "resolver",
        "table" => "table",
        "column" => "column",
        "enum" => "enum",
        "variant" => "variant",
        "record" => "record",
        "field" => "field",
        "type" => "type",
        "const" => "const",
        "option" => "option",
        _ => return None,
    })
}

/// The names one system declares, to tell what a name written in it stands for.
#[derive(Default)]
struct Names {
    tables: BTreeMap<String, Vec<String>>,
    enums: BTreeMap<String, Vec<String>>,
    records: BTreeMap<String, Vec<String>>,
    /// A type alias and the first type it names.
    aliases: BTreeMap<String, String>,
    consts: BTreeSet<String>,
    options: BTreeSet<String>,
    resolvers: BTreeSet<String>,
}

impl Names {
    fn add(&mut self, item: &Item) {
        let names = |v: &[(Ident, TypeExpr)]| v.iter().map(|(n, _)| n.name.clone()).collect::<Vec<_>>();
        match item {
            Item::System { .. } => {}
            Item::Option { name, .. } => drop(self.options.insert(name.name.clone())),
            Item::Enum(e) => drop(
                self.enums
                    .insert(e.name.name.clone(), e.variants.iter().map(|(v, _)| v.name.clone()).collect()),
            ),
            Item::Type { name, ty, .. } => {
                if let Some(a) = ty.atoms.first() {
                    self.aliases.insert(name.name.clone(), a.name.name.clone());
                }
            }
            Item::Const { name, .. } => drop(self.consts.insert(name.name.clone())),
            Item::Table(t) => drop(self.tables.insert(t.name.name.clone(), names(&t.columns))),
            Item::Resolver(r) => drop(self.resolvers.insert(r.name.name.clone())),
            Item::Record { name, fields, .. } => drop(self.records.insert(name.name.clone(), names(fields))),
        }
    }

    /// The enum a type names (through aliases), if it is one.
    fn enum_of(&self, ty: &TypeExpr) -> Option<String> {
        let mut n = ty.atoms.first()?.name.name.clone();
        for _ in 0..16 {
            if self.enums.contains_key(&n) {
                return Some(n);
            }
            n = self.aliases.get(&n)?.clone();
        }
        None
    }

    /// The record or table that has a field or column of this name, when only one has.
    fn field_owner(&self, f: &str) -> Option<(&'static str, String)> {
        let recs = self
            .records
            .iter()
            .filter(|(_, fs)| fs.iter().any(|x| x == f))
            .map(|(r, _)| ("field", r.clone()));
        let tabs = self
            .tables
            .iter()
            .filter(|(_, cs)| cs.iter().any(|x| x == f))
            .map(|(t, _)| ("column", t.clone()));
        let all: Vec<(&'static str, String)> = recs.chain(tabs).collect();
        (all.len() == 1).then(|| all.into_iter().next()).flatten()
    }

    /// The enum that has a variant of this name, when only one has.
    fn variant_owner(&self, v: &str) -> Option<String> {
        let all: Vec<&String> = self
            .enums
            .iter()
            .filter(|(_, vs)| vs.iter().any(|x| x == v))
            .map(|(e, _)| e)
            .collect();
        (all.len() == 1).then(|| all[0].clone())
    }
}

/// Every occurrence of a declared name in the analysed folder, sorted, each once.
pub fn index(a: &Analysis) -> Vec<Occurrence> {
    let mut out = Vec::new();
    let folders: BTreeSet<&str> = (0..a.files.len()).map(|i| a.system_of(i)).collect();
    for folder in folders {
        let in_folder: Vec<(usize, &ast::File)> = a
            .files
            .iter()
            .enumerate()
            .filter(|(i, _)| a.system_of(*i) == folder)
            .filter_map(|(i, f)| Some((i, f.as_ref()?)))
            .collect();
        let mut names = Names::default();
        for (_, f) in &in_folder {
            f.items.iter().for_each(|it| names.add(it));
        }
        let sys = a.systems.get(folder);
        let typed = sys.map(typed_exprs).unwrap_or_default();
        for (file, f) in in_folder {
            let mut w = Walk {
                sys: folder.to_string(),
                names: &names,
                ir: sys,
                typed: &typed,
                locals: BTreeSet::new(),
                file,
                out: Vec::new(),
            };
            f.items.iter().for_each(|it| w.item(it));
            out.extend(w.out);
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.file == b.file && a.span == b.span && a.target == b.target);
    out
}

/// Every expression of a system's resolver bodies by its span (the innermost of those that share
/// one), but those the checker could not type.
fn typed_exprs(sys: &ir::System) -> BTreeMap<Span, &ir::Expr> {
    let mut out = BTreeMap::new();
    let mut stmts: Vec<&ir::Stmt> = sys.resolvers.iter().flat_map(|r| r.body.iter()).collect();
    while let Some(s) = stmts.pop() {
        let mut todo = s.exprs();
        while let Some(e) = todo.pop() {
            if e.ty != ir::Ty::Error {
                out.insert(e.span, e);
            }
            todo.extend(e.children());
        }
        for b in s.blocks() {
            stmts.extend(b.iter());
        }
    }
    out
}

/// The walk over one file.
struct Walk<'a> {
    sys: String,
    names: &'a Names,
    ir: Option<&'a ir::System>,
    typed: &'a BTreeMap<Span, &'a ir::Expr>,
    /// The names bound in the resolver being walked: its inputs, outputs and locals.
    locals: BTreeSet<String>,
    file: usize,
    out: Vec<Occurrence>,
}

impl Walk<'_> {
    fn push(&mut self, kind: &'static str, owner: &str, name: &str, span: Span, decl: bool) {
        self.out.push(Occurrence {
            file: self.file,
            span,
            target: Target {
                system: self.sys.clone(),
                kind,
                owner: owner.to_string(),
                name: name.to_string(),
            },
            decl,
        });
    }

    fn decl(&mut self, kind: &'static str, owner: &str, id: &Ident) {
        self.push(kind, owner, &id.name, id.span, true);
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::System { .. } => {}
            Item::Option { name, .. } => self.decl("option", "", name),
            Item::Enum(e) => {
                self.decl("enum", "", &e.name);
                for (v, _) in &e.variants {
                    self.decl("variant", &e.name.name, v);
                }
            }
            Item::Type { name, ty, .. } => {
                self.decl("type", "", name);
                self.ty(ty);
            }
            Item::Const { name, value, .. } => {
                self.decl("const", "", name);
                self.cell(value, None);
            }
            Item::Record { name, fields, .. } => {
                self.decl("record", "", name);
                for (f, ty) in fields {
                    self.decl("field", &name.name, f);
                    self.ty(ty);
                }
            }
            Item::Table(t) => self.table(t),
            Item::Resolver(r) => self.resolver(r),
        }
    }

    /// A type name written: a type alias, enum, record or table.
    fn type_name(&mut self, id: &Ident) {
        let n = &id.name;
        let kind = if self.names.aliases.contains_key(n) {
            "type"
        } else if self.names.enums.contains_key(n) {
            "enum"
        } else if self.names.records.contains_key(n) {
            "record"
        } else if self.names.tables.contains_key(n) {
            "table"
        } else {
            return;
        };
        self.push(kind, "", n, id.span, false);
    }

    fn ty(&mut self, ty: &TypeExpr) {
        for a in &ty.atoms {
            self.type_name(&a.name);
        }
    }

    /// A variant where `hint` is expected (or a constant, or a variant of the one enum that has it).
    fn variant_or_const(&mut self, n: &str, span: Span, hint: Option<&str>) {
        if let Some(e) = hint.filter(|e| self.names.enums.get(*e).is_some_and(|vs| vs.iter().any(|v| v == n))) {
            self.push("variant", e, n, span, false);
        } else if self.names.consts.contains(n) {
            self.push("const", "", n, span, false);
        } else if let Some(e) = self.names.variant_owner(n) {
            self.push("variant", &e, n, span, false);
        }
    }

    fn cell(&mut self, c: &ast::Cell, hint: Option<&str>) {
        match &c.kind {
            ast::CellKind::Ident(n) => self.variant_or_const(n, c.span, hint),
            ast::CellKind::List(cs) => cs.iter().for_each(|c| self.cell(c, hint)),
            _ => {}
        }
    }

    fn table(&mut self, t: &ast::TableDecl) {
        self.decl("table", "", &t.name);
        let mut row_enum = t.key_ty.as_ref().map(|k| k.name.clone());
        let (mut col_enum, mut result_enum) = (None, None);
        match &t.kind {
            TableKind::Keyed => {}
            TableKind::By { index, result } => {
                match index {
                    ast::ByIndex::Dice(d) => self.dice(d),
                    ast::ByIndex::Type(a) => self.type_name(&a.name),
                }
                if let Some(r) = result {
                    self.ty(r);
                    result_enum = self.names.enum_of(r);
                }
            }
            TableKind::Matrix {
                row_ty, col_ty, result, ..
            } => {
                self.type_name(&row_ty.name);
                self.type_name(&col_ty.name);
                self.ty(result);
                let one = |a: &ast::TypeAtom| TypeExpr {
                    list_depth: 0,
                    atoms: vec![a.clone()],
                    optional: false,
                    span: a.name.span,
                };
                row_enum = self.names.enum_of(&one(row_ty));
                col_enum = self.names.enum_of(&one(col_ty));
                result_enum = self.names.enum_of(result);
            }
        }
        if let Some(k) = &t.key_ty {
            self.type_name(k);
        }
        let col_enums: Vec<Option<String>> = t.columns.iter().map(|(_, ty)| self.names.enum_of(ty)).collect();
        for (c, ty) in &t.columns {
            self.decl("column", &t.name.name, c);
            self.ty(ty);
        }
        for h in t.header.iter().flatten() {
            self.variant_or_const(&h.name, h.span, col_enum.as_deref());
        }
        for row in &t.rows {
            if let (RowHead::Label(l), Some(e)) = (&row.head, &row_enum) {
                self.variant_or_const(l, row.head_span, Some(e));
            }
            for (i, c) in row.cells.iter().enumerate() {
                let hint = col_enums.get(i).cloned().flatten().or_else(|| result_enum.clone());
                self.cell(c, hint.as_deref());
            }
        }
    }

    fn resolver(&mut self, r: &ast::ResolverDecl) {
        self.decl("resolver", "", &r.name);
        self.locals.clear();
        for p in r.inputs.iter().chain(&r.outputs) {
            self.locals.insert(p.name.name.clone());
            self.ty(&p.ty);
            if let Some(d) = &p.default {
                let hint = self.names.enum_of(&p.ty);
                self.cell(d, hint.as_deref());
            }
        }
        bound_in(&r.body, &mut self.locals);
        self.block(&r.body);
    }

    fn block(&mut self, body: &[ast::Stmt]) {
        body.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &ast::Stmt) {
        match &s.kind {
            StmtKind::Let { value, mods, .. } => {
                self.expr(value);
                for m in mods {
                    match m {
                        ModItem::One(m) => self.modifier(m),
                        ModItem::Highest { mods, .. } => mods.iter().for_each(|m| self.modifier(m)),
                    }
                }
            }
            StmtKind::Var { ty, value, .. } => {
                if let Some(t) = ty {
                    self.ty(t);
                }
                self.expr(value);
            }
            StmtKind::Assign { value, .. } | StmtKind::Set { value, .. } => self.expr(value),
            StmtKind::Roll { dice, opposed, .. } => {
                self.dice(dice);
                if let Some(o) = opposed {
                    o.first_mod.iter().chain(&o.second_mod).for_each(|e| self.expr(e));
                    self.dice(&o.second);
                }
            }
            StmtKind::Check { left, right, .. } => {
                self.expr(left);
                self.expr(right);
            }
            StmtKind::If { arms, otherwise } => {
                for (c, b) in arms {
                    self.expr(c);
                    self.block(b);
                }
                self.block(otherwise.as_deref().unwrap_or_default());
            }
            StmtKind::Match { scrutinee, arms } => self.match_stmt(scrutinee, arms),
            StmtKind::Call { resolver, args, .. } => {
                if self.names.resolvers.contains(&resolver.name) {
                    self.push("resolver", "", &resolver.name, resolver.span, false);
                }
                args.iter().for_each(|(_, e)| self.expr(e));
            }
            StmtKind::Require {
                cond,
                message,
                message_span,
                ..
            } => {
                self.expr(cond);
                self.message(message, *message_span);
            }
            StmtKind::Note { text, text_span, .. } => self.message(text, *text_span),
            StmtKind::Return | StmtKind::Break => {}
            StmtKind::Repeat { body, .. } => self.block(body),
            StmtKind::For { list, body, .. } => {
                self.expr(list);
                self.block(body);
            }
        }
    }

    fn modifier(&mut self, m: &ast::Modifier) {
        self.expr(&m.value);
        if let Some(w) = &m.when {
            self.expr(w);
        }
    }

    fn match_stmt(&mut self, scrutinee: &ast::Expr, arms: &[ast::MatchArm]) {
        self.expr(scrutinee);
        let hint = match self.typed.get(&scrutinee.span).map(|e| strip(&e.ty)) {
            Some(ir::Ty::Enum(e)) => self.ir.and_then(|s| s.enums.get(*e)).map(|e| e.name.clone()),
            _ => None,
        };
        for (pats, body) in arms {
            for (p, span) in pats {
                if let Pattern::Name(id) = p {
                    self.variant_or_const(&id.name, id.span, hint.as_deref());
                } else {
                    let _ = span;
                }
            }
            self.block(body);
        }
    }

    /// The `{name}` and `{name.field}` values a `require` or `note` text shows.
    fn message(&mut self, msg: &str, span: Span) {
        let mut offset = span.start + 1;
        let mut rest = msg;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else { break };
            let path = &rest[open + 1..open + close];
            let whole = Span {
                file: span.file,
                start: offset + open + 1,
                end: offset + open + close,
            };
            let mut at = whole.start;
            for (i, seg) in path.split('.').enumerate() {
                let lead = seg.len() - seg.trim_start().len();
                let word = seg.trim();
                let s = Span {
                    file: span.file,
                    start: at + lead,
                    end: at + lead + word.len(),
                };
                if i == 0 {
                    self.name_use(word, whole, s);
                } else if let Some((kind, owner)) = self.names.field_owner(word) {
                    self.push(kind, &owner, word, s, false);
                }
                at += seg.len() + 1;
            }
            offset += open + close + 1;
            rest = &rest[open + close + 1..];
        }
    }

    fn dice(&mut self, d: &DiceExpr) {
        if let ast::DiceCount::Expr(e) = &d.count {
            self.expr(e);
        }
        for m in &d.mods {
            match m {
                DiceMod::Each { value, .. } => self.expr(value),
                DiceMod::Reroll(lo, hi) => lo.iter().chain(hi).for_each(|e| self.expr(e)),
                _ => {}
            }
        }
    }

    /// A bare name at `span` (its expression, as the checker saw it, at `typed_at`).
    fn name_use(&mut self, n: &str, typed_at: Span, span: Span) {
        match self.typed.get(&typed_at).map(|e| &e.kind) {
            Some(ir::ExprKind::Local(_) | ir::ExprKind::Input(_) | ir::ExprKind::Output(_)) => {}
            Some(ir::ExprKind::Const(ir::Const::Enum(e, _))) if !self.names.consts.contains(n) => {
                if let Some(en) = self.ir.and_then(|s| s.enums.get(*e)) {
                    let en = en.name.clone();
                    self.push("variant", &en, n, span, false);
                }
            }
            Some(ir::ExprKind::Const(_)) if self.names.consts.contains(n) => self.push("const", "", n, span, false),
            _ if self.locals.contains(n) => {}
            _ => self.variant_or_const(n, span, None),
        }
    }

    fn expr(&mut self, e: &ast::Expr) {
        match &e.kind {
            ExprKind::Name(n) => self.name_use(n, e.span, e.span),
            ExprKind::Option(id) if self.names.options.contains(&id.name) => self.push("option", "", &id.name, id.span, false),
            ExprKind::Field(base, id) => self.field(base, id, e.span),
            ExprKind::Call(id, args) => {
                if self.names.tables.contains_key(&id.name) {
                    self.push("table", "", &id.name, id.span, false);
                }
                args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Construct(id, fields) => {
                if self.names.records.contains_key(&id.name) {
                    self.push("record", "", &id.name, id.span, false);
                }
                self.field_inits(Some(id.name.clone()), fields);
            }
            ExprKind::With(base, fields) => {
                self.expr(base);
                let rec = match self.typed.get(&e.span).map(|x| &x.kind) {
                    Some(ir::ExprKind::With { rec, .. }) => self.ir.and_then(|s| s.records.get(*rec)).map(|r| r.name.clone()),
                    _ => None,
                };
                self.field_inits(rec, fields);
            }
            ExprKind::Agg { var, list, body, .. } => {
                self.locals.insert(var.name.clone());
                self.expr(list);
                self.expr(body);
            }
            ExprKind::Update { var, list, cond, body } => {
                self.locals.insert(var.name.clone());
                [list, cond, body].into_iter().for_each(|x| self.expr(x));
            }
            ExprKind::Neg(x) | ExprKind::Not(x) => self.expr(x),
            ExprKind::Bin(_, a, b) | ExprKind::Cmp(_, a, b) | ExprKind::In(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Is(x, id) => {
                self.expr(x);
                self.type_name(id);
            }
            ExprKind::If(arms, otherwise) => {
                for (c, x) in arms {
                    self.expr(c);
                    self.expr(x);
                }
                self.expr(otherwise);
            }
            ExprKind::List(xs) => xs.iter().for_each(|x| self.expr(x)),
            _ => {}
        }
    }

    /// `field: value` of a record built or copied (`rec` the record, when known).
    fn field_inits(&mut self, rec: Option<String>, fields: &[(Ident, ast::Expr)]) {
        for (f, x) in fields {
            match &rec {
                Some(r) if self.names.records.get(r).is_some_and(|fs| fs.contains(&f.name)) => {
                    self.push("field", r, &f.name, f.span, false)
                }
                Some(_) => {}
                None => {
                    if let Some(("field", r)) = self.names.field_owner(&f.name) {
                        self.push("field", &r, &f.name, f.span, false);
                    }
                }
            }
            self.expr(x);
        }
    }

    /// `base.id`: a variant named with its enum, a table's column, a record's field.
    fn field(&mut self, base: &ast::Expr, id: &Ident, span: Span) {
        let here = self.typed.get(&span).map(|x| &x.kind);
        if let ExprKind::Name(n) = &base.kind {
            let has = self.names.enums.get(n).is_some_and(|vs| vs.contains(&id.name));
            let qualified = match here {
                Some(k) => matches!(k, ir::ExprKind::Const(ir::Const::Enum(..))),
                None => !self.locals.contains(n),
            };
            if has && qualified {
                self.push("enum", "", n, base.span, false);
                self.push("variant", n, &id.name, id.span, false);
                return;
            }
        }
        self.expr(base);
        let ir = self.ir;
        let table = |t: &usize| ir.and_then(|s| s.tables.get(*t)).map(|t| t.name.clone());
        match here {
            Some(ir::ExprKind::KeyCol { tables, column, .. }) if *column == id.name => {
                for t in tables.iter().filter_map(table) {
                    self.push("column", &t, &id.name, id.span, false);
                }
            }
            Some(ir::ExprKind::Field(b, _)) => match strip(&b.ty) {
                ir::Ty::Rec(r) => {
                    if let Some(r) = ir.and_then(|s| s.records.get(*r)) {
                        self.push("field", &r.name.clone(), &id.name, id.span, false);
                    }
                }
                ir::Ty::Row(t) => {
                    if let Some(t) = table(t) {
                        self.push("column", &t, &id.name, id.span, false);
                    }
                }
                _ => {}
            },
            Some(_) => {}
            None => {
                if let Some((kind, owner)) = self.names.field_owner(&id.name) {
                    self.push(kind, &owner, &id.name, id.span, false);
                }
            }
        }
    }
}

/// A type without its optional and list wrappers.
pub fn strip(t: &ir::Ty) -> &ir::Ty {
    match t {
        ir::Ty::Opt(x) | ir::Ty::List(x) => strip(x),
        other => other,
    }
}

/// The names the statements bind (`let`, `var`, `roll`, `check`, `call`, `for`), at any depth.
fn bound_in(body: &[ast::Stmt], out: &mut BTreeSet<String>) {
    for s in body {
        match &s.kind {
            StmtKind::Let { name, .. }
            | StmtKind::Var { name, .. }
            | StmtKind::Roll { name, .. }
            | StmtKind::Check { name, .. }
            | StmtKind::Call { name, .. } => drop(out.insert(name.name.clone())),
            StmtKind::For { var, body, .. } => {
                out.insert(var.name.clone());
                bound_in(body, out);
            }
            StmtKind::If { arms, otherwise } => {
                arms.iter().for_each(|(_, b)| bound_in(b, out));
                bound_in(otherwise.as_deref().unwrap_or_default(), out);
            }
            StmtKind::Match { arms, .. } => arms.iter().for_each(|(_, b)| bound_in(b, out)),
            StmtKind::Repeat { body, .. } => bound_in(body, out),
            _ => {}
        }
    }
}
