//! Table declarations into `ast::TableDecl`: the `by`, `matrix`, `key`, `columns` and alias lines,
//! the matrix header, and each row's head and cells.

use super::{not_kw, unquote, Lower, Rule};
use crate::ast::*;
use pest::iterators::Pair;

impl Lower {
    pub(super) fn table(&mut self, p: Pair<Rule>) -> Option<TableDecl> {
        let span = self.span(&p);
        let mut it = p.into_inner().filter(not_kw).peekable();
        let name = self.ident(it.next()?);
        let mut title = None;
        let mut cite = None;
        let mut kind = TableKind::Keyed;
        let mut key = None;
        let mut key_ty = None;
        let mut columns = Vec::new();
        let mut aliases = Vec::new();
        let mut header = None;
        let mut rows = Vec::new();
        for c in it {
            match c.as_rule() {
                Rule::string => title = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                Rule::by_clause => {
                    let mut bi = c.into_inner().filter(not_kw);
                    let idx = bi.next()?;
                    let index = if idx.as_rule() == Rule::dice {
                        ByIndex::Dice(self.dice(idx))
                    } else {
                        ByIndex::Type(self.type_atom(idx))
                    };
                    let result = bi.next().map(|t| self.type_expr(t));
                    kind = TableKind::By { index, result };
                }
                Rule::matrix_clause => {
                    let mut mi = c.into_inner().filter(not_kw);
                    let row_name = self.ident(mi.next()?);
                    let row_ty = self.type_atom(mi.next()?);
                    let col_name = self.ident(mi.next()?);
                    let col_ty = self.type_atom(mi.next()?);
                    let result = self.type_expr(mi.next()?);
                    kind = TableKind::Matrix {
                        row_name,
                        row_ty,
                        col_name,
                        col_ty,
                        result,
                    };
                }
                Rule::key_line => {
                    let mut ki = c.into_inner().filter(not_kw);
                    key = ki.next().map(|k| self.ident(k));
                    key_ty = ki.next().map(|k| self.ident(k));
                }
                Rule::columns_line => {
                    for col in c.into_inner().filter(not_kw) {
                        let mut ci = col.into_inner().filter(not_kw);
                        let n = self.ident(ci.next()?);
                        let t = self.type_expr(ci.next()?);
                        columns.push((n, t));
                    }
                }
                Rule::alias_line => {
                    let aspan = self.span(&c);
                    let mut names: Vec<(String, Span)> = c.into_inner().filter(not_kw).map(|s| (unquote(&s), self.span(&s))).collect();
                    if let Some((target, _)) = names.pop() {
                        aliases.push((names, target, aspan));
                    }
                }
                // A numeric label (an int axis) is kept as its text.
                Rule::matrix_header => header = Some(c.into_inner().filter(not_kw).map(|i| self.ident(i)).collect()),
                Rule::row => rows.push(self.row(c)?),
                _ => {}
            }
        }
        Some(TableDecl {
            name,
            title,
            cite: cite?,
            kind,
            key,
            key_ty,
            columns,
            aliases,
            header,
            rows,
            span,
        })
    }

    fn row(&mut self, p: Pair<Rule>) -> Option<Row> {
        let span = self.span(&p);
        let arrow = p.as_str().contains("=>") && {
            // `=>` only counts when it follows the head directly (a string cell may contain it).
            let mut it = p.clone().into_inner().filter(not_kw);
            let head_end = it.next().map(|h| h.as_span().end()).unwrap_or(0);
            p.as_str()[head_end - p.as_span().start()..].trim_start().starts_with("=>")
        };
        let mut it = p.into_inner().filter(not_kw);
        let head_pair = it.next()?;
        let head_span = self.span(&head_pair);
        let h = head_pair.into_inner().find(not_kw)?;
        let head = match h.as_rule() {
            Rule::string => RowHead::Key(unquote(&h)),
            Rule::range_pat => {
                let (lo, hi) = self.range_pat(h);
                RowHead::Range(lo, hi)
            }
            Rule::dec_range_pat => match self.dec_range_pat(h) {
                Pattern::Range(lo, hi) => RowHead::Range(lo, hi),
                Pattern::DecRange(lo, hi) => RowHead::DecRange(lo, hi),
                _ => return None,
            },
            _ => RowHead::Label(h.as_str().to_string()),
        };
        let cells = it.map(|c| self.cell(c)).collect();
        Some(Row {
            head,
            head_span,
            arrow,
            cells,
            span,
        })
    }
}
