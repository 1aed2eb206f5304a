//! Declarations into `ast::Item`s: `system`, `option`, `enum`, `type`, `const`, `record` and
//! `resolver` with its `in` and `out` parameters, and the type expressions they use.

use super::{not_kw, unquote, Lower, Rule, MAX_LIST_DEPTH};
use crate::ast::*;
use crate::diag::Diagnostic;
use pest::iterators::Pair;

impl Lower {
    pub(super) fn item(&mut self, p: Pair<Rule>) -> Option<Item> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::system_decl => {
                let mut it = p.into_inner().filter(not_kw);
                let name = self.ident(it.next()?);
                let title = unquote(&it.next()?);
                let cite_prefix = it.next().map(|c| unquote(&c));
                Some(Item::System {
                    name,
                    title,
                    cite_prefix,
                    span,
                })
            }
            Rule::option_decl => {
                let mut it = p.into_inner().filter(not_kw);
                let name = self.ident(it.next()?);
                let title = unquote(&it.next()?);
                let cite = self.cite(it.next()?);
                Some(Item::Option { name, title, cite })
            }
            Rule::enum_decl => self.enum_decl(p),
            Rule::type_decl => {
                let mut it = p.into_inner().filter(not_kw);
                let name = self.ident(it.next()?);
                let ty = self.type_expr(it.next()?);
                let doc = it.next().map(|d| unquote(&d));
                Some(Item::Type { name, ty, doc })
            }
            Rule::const_decl => self.const_decl(p),
            Rule::record_decl => self.record_decl(p),
            Rule::table_decl => self.table(p).map(Item::Table),
            Rule::resolver_decl => self.resolver(p).map(Item::Resolver),
            _ => None,
        }
    }

    /// `enum name ["title"] [cite] { variant ["doc"], ... }`.
    fn enum_decl(&mut self, p: Pair<Rule>) -> Option<Item> {
        let mut name = None;
        let mut title = None;
        let mut cite = None;
        let mut variants = Vec::new();
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::ident => name = Some(self.ident(c)),
                Rule::string => title = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                Rule::variant => {
                    let mut vi = c.into_inner().filter(not_kw);
                    let id = self.ident(vi.next()?);
                    let doc = vi.next().map(|d| unquote(&d));
                    variants.push((id, doc));
                }
                _ => {}
            }
        }
        Some(Item::Enum(EnumDecl {
            name: name?,
            title,
            cite,
            variants,
        }))
    }

    /// `const name = cell ["doc"] cite`.
    fn const_decl(&mut self, p: Pair<Rule>) -> Option<Item> {
        let mut it = p.into_inner().filter(not_kw);
        let name = self.ident(it.next()?);
        let value = self.cell(it.next()?);
        let mut doc = None;
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::string => doc = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                _ => {}
            }
        }
        Some(Item::Const {
            name,
            value,
            doc,
            cite: cite?,
        })
    }

    /// `record name ["title"] [cite] { field: type, ... }`.
    fn record_decl(&mut self, p: Pair<Rule>) -> Option<Item> {
        let mut name = None;
        let mut title = None;
        let mut cite = None;
        let mut fields = Vec::new();
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::ident => name = Some(self.ident(c)),
                Rule::string => title = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                Rule::field => {
                    let mut ci = c.into_inner().filter(not_kw);
                    let n = self.ident(ci.next()?);
                    let t = self.type_expr(ci.next()?);
                    fields.push((n, t));
                }
                _ => {}
            }
        }
        Some(Item::Record {
            name: name?,
            title,
            cite,
            fields,
        })
    }

    pub(super) fn type_expr(&mut self, p: Pair<Rule>) -> TypeExpr {
        let span = self.span(&p);
        let mut list_depth = 0;
        let mut atoms = Vec::new();
        let mut optional = false;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::list_kw => list_depth += 1,
                Rule::opt_mark => optional = true,
                Rule::type_atom => atoms.push(self.type_atom(c)),
                Rule::col_atom => {
                    if let Some(n) = c.into_inner().find(not_kw) {
                        atoms.push(TypeAtom {
                            name: self.ident(n),
                            bounds: None,
                        });
                    }
                }
                _ => {}
            }
        }
        if list_depth > MAX_LIST_DEPTH {
            self.diags.push(
                Diagnostic::error(
                    "E0002",
                    span,
                    format!("`list` nested {list_depth} deep, more than the limit of {MAX_LIST_DEPTH}"),
                )
                .label("too deep")
                .help("a list of lists of lists is as deep as a type goes in practice; use a record or a table"),
            );
            list_depth = 0;
        }
        TypeExpr {
            list_depth,
            atoms,
            optional,
            span,
        }
    }

    pub(super) fn type_atom(&mut self, p: Pair<Rule>) -> TypeAtom {
        let mut it = p.into_inner().filter(not_kw);
        let name = it.next().map(|n| self.ident(n)).unwrap_or(Ident {
            name: String::new(),
            span: Span::default(),
        });
        let bounds = it.next().map(|b| {
            let mut bi = b.into_inner().filter(not_kw);
            let lo = bi.next().map(|x| self.int(&x)).unwrap_or(0);
            let hi = bi.next().map(|x| self.int(&x)).unwrap_or(0);
            (lo, hi)
        });
        TypeAtom { name, bounds }
    }

    fn resolver(&mut self, p: Pair<Rule>) -> Option<ResolverDecl> {
        let span = self.span(&p);
        let policy = p.clone().into_inner().any(|c| c.as_rule() == Rule::policy_kw);
        let mut it = p.into_inner().filter(not_kw).filter(|c| c.as_rule() != Rule::policy_kw);
        let name = self.ident(it.next()?);
        let mut title = None;
        let mut cite = None;
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let mut body = Vec::new();
        for c in it {
            match c.as_rule() {
                Rule::string => title = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                Rule::input_decl => inputs.push(self.param(c)?),
                Rule::output_decl => outputs.push(self.param(c)?),
                _ => {
                    if let Some(s) = self.stmt(c) {
                        body.push(s)
                    }
                }
            }
        }
        Some(ResolverDecl {
            policy,
            name,
            title,
            cite: cite?,
            inputs,
            outputs,
            body,
            span,
        })
    }

    fn param(&mut self, p: Pair<Rule>) -> Option<Param> {
        let choice = p
            .clone()
            .into_inner()
            .find(|c| c.as_rule() == Rule::kw_choice)
            .map(|c| self.span(&c));
        let mut it = p.into_inner().filter(not_kw);
        let name = self.ident(it.next()?);
        let ty = self.type_expr(it.next()?);
        let mut default = None;
        let mut doc = None;
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::cell => default = Some(self.cell(c)),
                Rule::string => doc = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                _ => {}
            }
        }
        Some(Param {
            choice,
            name,
            ty,
            default,
            doc,
            cite,
        })
    }
}
