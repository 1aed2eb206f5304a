//! Expressions lowered: names to positions, constants to values.

use super::{FieldInit, Lower, Step, K, X};
use rulebook_compiler::ir::{Expr, ExprKind};

impl Lower<'_> {
    pub(super) fn expr(&mut self, e: &'static Expr) -> X {
        let k = match &e.kind {
            ExprKind::Const(c) => K::Const(crate::eval::konst(self.sys, c, &e.ty)),
            ExprKind::Local(v) => match self.local(v) {
                Some(slot) => K::Local(slot),
                None => K::Missing(v),
            },
            ExprKind::Input(n) => match self.r.inputs.iter().position(|p| p.name == *n) {
                Some(i) => K::Input(i),
                None => K::Missing(n),
            },
            ExprKind::Output(n) => match self.r.outputs.iter().position(|p| p.name == *n) {
                Some(i) => K::Output(i),
                None => K::Missing(n),
            },
            ExprKind::KeyCol { key, tables, column, .. } => K::KeyCol {
                key: self.boxed(key),
                tables,
                column,
            },
            ExprKind::KeyName { key, .. } => K::KeyName(self.boxed(key)),
            ExprKind::Field(b, name) => {
                let (at, name) = self.field_at(&b.ty, name);
                let optional = matches!(b.ty, rulebook_compiler::ir::Ty::Opt(_));
                let base = self.expr(b);
                let step = Step { name, at, optional };
                match base.k {
                    // A place's field extends its path.
                    K::Local(_) | K::Input(_) | K::Output(_) => K::Path {
                        root: Box::new(base),
                        steps: Box::new([step]),
                    },
                    K::Path { root, steps } => K::Path {
                        root,
                        steps: steps.into_vec().into_iter().chain([step]).collect(),
                    },
                    _ => K::Field {
                        base: Box::new(base),
                        name,
                        at,
                        optional,
                    },
                }
            }
            ExprKind::Lookup { table, args } => K::Lookup {
                table: *table,
                args: self.exprs(args),
            },
            ExprKind::Func(func, args) => K::Func(func, self.exprs(args)),
            ExprKind::Agg { kind, var, list, body } => {
                let list = self.boxed(list);
                let (slot, body) = self.binding(var, |l| l.boxed(body));
                K::Agg {
                    kind: *kind,
                    slot,
                    list,
                    body,
                }
            }
            ExprKind::Neg(x) => K::Neg(self.boxed(x)),
            ExprKind::Not(x) => K::Not(self.boxed(x)),
            ExprKind::Bin(op, a, b) => K::Bin(*op, self.boxed(a), self.boxed(b)),
            ExprKind::Cmp(op, a, b) => K::Cmp(*op, self.boxed(a), self.boxed(b)),
            ExprKind::In(a, b) => K::In(self.boxed(a), self.boxed(b)),
            ExprKind::Is(x, tables) => K::Is(self.boxed(x), tables),
            ExprKind::If(arms, otherwise) => K::If(
                arms.iter().map(|(c, v)| (self.expr(c), self.expr(v))).collect(),
                self.boxed(otherwise),
            ),
            ExprKind::ToDec(x) => K::ToDec(self.boxed(x)),
            ExprKind::Construct { rec, fields } => K::Construct {
                rec: *rec,
                fields: self.field_inits(*rec, fields),
            },
            ExprKind::With { base, rec, updates } => {
                // The updates are worked out before the base: lower them in that order too.
                let updates = self.field_inits(*rec, updates);
                K::With {
                    base: self.boxed(base),
                    rec: *rec,
                    updates,
                }
            }
            ExprKind::Some(x) => K::Some(self.boxed(x)),
            ExprKind::List(items) => K::List(self.exprs(items)),
        };
        let place = matches!(k, K::Const(_) | K::Local(_) | K::Input(_) | K::Output(_) | K::Path { .. });
        X { k, ir: e, place }
    }

    fn boxed(&mut self, e: &'static Expr) -> Box<X> {
        Box::new(self.expr(e))
    }

    pub(super) fn exprs(&mut self, es: &'static [Expr]) -> Vec<X> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn field_inits(&mut self, rec: usize, fields: &'static [(String, Expr)]) -> Vec<FieldInit> {
        let def = self.sys.records.get(rec);
        fields
            .iter()
            .map(|(n, x)| {
                let decl = def.and_then(|d| d.fields.iter().position(|(f, _, _)| f == n));
                let bounds = match def.zip(decl).map(|(d, i)| &d.fields[i]) {
                    Some((_, rulebook_compiler::ir::Ty::Int, b)) => *b,
                    _ => None,
                };
                FieldInit {
                    // The declaration's own text, as the record holds it (see `field_at`).
                    name: def.zip(decl).map(|(d, i)| d.fields[i].0.as_str()).unwrap_or(n),
                    // A field the record lacks (never from checked rules) is left where it falls.
                    at: decl.unwrap_or(usize::MAX),
                    bounds,
                    value: self.expr(x),
                }
            })
            .collect()
    }
}
