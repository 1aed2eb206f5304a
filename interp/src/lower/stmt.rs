//! Statements and blocks lowered: each declaration given its slot, each value lowered before the
//! name it declares comes into scope (so `let x = x + 1` reads the outer `x`), as evaluation runs.

use super::{Block, Call, Dice, Lower, Part, Read, M, S, SK};
use rulebook_compiler::ir::{self, MsgPart, Stmt};

impl Lower<'_> {
    /// A block in its own scope: the names it declares end with it.
    pub(super) fn block(&mut self, stmts: &'static [Stmt]) -> Block {
        let mark = self.scope.len();
        let lowered = stmts
            .iter()
            .enumerate()
            .map(|(i, s)| S {
                k: self.stmt(s),
                ir: s,
                check: ir::is_check(s),
                next_check: stmts.get(i + 1).is_some_and(ir::is_check),
            })
            .collect();
        let own = self.scope[mark..].iter().map(|(_, slot)| *slot).collect();
        self.scope.truncate(mark);
        Block { stmts: lowered, own }
    }

    fn stmt(&mut self, s: &'static Stmt) -> SK {
        match s {
            Stmt::Let { var, value, mods, .. } => {
                let value = self.expr(value);
                let mods = self.mods(mods);
                SK::Let {
                    slot: self.declare(var),
                    value,
                    mods,
                }
            }
            Stmt::Var { var, value, .. } => {
                let value = self.expr(value);
                SK::Var {
                    slot: self.declare(var),
                    value,
                }
            }
            Stmt::Assign { var, value, .. } => match self.local(var) {
                Some(slot) => SK::Assign {
                    slot,
                    value: self.expr(value),
                },
                None => SK::Missing(var),
            },
            Stmt::Roll { var, dice, .. } => {
                let dice = self.dice(dice);
                SK::Roll {
                    slot: self.declare(var),
                    dice,
                    classed: self.classed.get(&(s as *const Stmt as usize)).copied(),
                }
            }
            Stmt::Check { var, left, right, .. } => {
                let (left, right) = (self.expr(left), self.expr(right));
                SK::Check {
                    slot: self.declare(var),
                    left,
                    right,
                }
            }
            Stmt::Set { field, value, .. } => match self.r.outputs.iter().position(|p| p.name == *field) {
                Some(out) => SK::Set {
                    out,
                    value: self.expr(value),
                },
                None => SK::Missing(field),
            },
            Stmt::If { arms, otherwise, .. } => SK::If {
                arms: arms.iter().map(|(c, b)| (self.expr(c), self.block(b))).collect(),
                otherwise: self.block(otherwise),
            },
            Stmt::Match { scrutinee, arms, .. } => SK::Match {
                scrutinee: self.expr(scrutinee),
                arms: arms.iter().map(|(p, b)| (p.as_slice(), self.block(b))).collect(),
            },
            Stmt::Call { var, resolver, args, .. } => {
                let callee = self.sys.resolvers.get(*resolver);
                let args = args
                    .iter()
                    .map(|(n, e)| (callee.and_then(|c| c.inputs.iter().position(|p| p.name == *n)), self.expr(e)))
                    .collect();
                SK::Call(Box::new(Call {
                    resolver: *resolver,
                    args,
                    memo: self.memo.get(&(s as *const Stmt as usize)).cloned(),
                    slot: self.declare(var),
                }))
            }
            Stmt::Require { cond, message, .. } => SK::Require {
                cond: self.expr(cond),
                message: self.parts(message),
            },
            Stmt::Note { text, .. } => SK::Note { text: self.parts(text) },
            Stmt::Return => SK::Return,
            Stmt::Break => SK::Break,
            Stmt::Repeat { times, body, at } => SK::Repeat {
                times: *times,
                body: self.block(body),
                at,
            },
            Stmt::For { var, list, body, at } => {
                let list = self.expr(list);
                let (slot, body) = self.binding(var, |l| l.block(body));
                SK::For { slot, list, body, at }
            }
        }
    }

    fn mods(&mut self, mods: &'static [ir::Mod]) -> Vec<M> {
        mods.iter()
            .map(|m| match m {
                ir::Mod::One { value, when, .. } => M::One {
                    value: self.expr(value),
                    when: when.as_ref().map(|w| self.expr(w)),
                    m,
                },
                ir::Mod::Highest { name, mods } => M::Highest {
                    name,
                    mods: self.mods(mods),
                },
            })
            .collect()
    }

    fn dice(&mut self, d: &'static ir::Dice) -> Dice {
        let count = self.expr(&d.count);
        let read = match &d.read {
            ir::Read::Opposed {
                second,
                first_mod,
                second_mod,
            } => Read::Opposed {
                second: self.expr(second),
                first_mod: self.expr(first_mod),
                second_mod: self.expr(second_mod),
            },
            ir::Read::SumFloor { per_die, floor } => Read::SumFloor {
                per_die: self.expr(per_die),
                floor: *floor,
            },
            _ => Read::Plain,
        };
        let reroll = d.reroll.as_ref().map(|(lo, hi)| (self.expr(lo), self.expr(hi)));
        Dice {
            ir: d,
            count,
            read,
            reroll,
        }
    }

    fn parts(&mut self, parts: &'static [MsgPart]) -> Vec<Part> {
        parts
            .iter()
            .map(|p| match p {
                MsgPart::Text(t) => Part::Text(t),
                MsgPart::Value(e) => Part::Value(self.expr(e)),
            })
            .collect()
    }
}
