//! Hover on the dice of a `roll`: their exact distribution, from the runtime's own odds engine
//! (`DiceSpec::distribution`, the one `rulebook odds` enumerates rolls with): the mean as an
//! exact fraction and to two decimals, and each total with its chance. Dice whose count or
//! reroll range the rules compute when they run are said to depend on the inputs.

use super::world::Analysis;
use rulebook_compiler::ast::{self, Span, StmtKind};
use rulebook_compiler::ir;
use rulebook_runtime::{DiceSpec, Read as RtRead};
use std::path::Path;

/// The most totals the hover's table lists.
const MAX_ROWS: usize = 120;

/// The hover of the dice of a roll at byte `offset` of the file at `path`, if dice are there.
pub fn hover(a: &Analysis, path: &Path, offset: usize) -> Option<String> {
    let file = a.file_of(path)?;
    let text = a.texts.get(file)?;
    let items = &a.files.get(file)?.as_ref()?.items;
    let (stmt, dice) = items.iter().find_map(|it| match it {
        ast::Item::Resolver(r) => roll_at(&r.body, offset),
        _ => None,
    })?;
    let written = text.get(dice.start..dice.end).unwrap_or("").trim().to_string();
    let sys = a.systems.get(a.system_of(file))?;
    let place = place_of(text, &a.sources.get(file)?.path, stmt.start);
    let Some(ir_dice) = sys.resolvers.iter().find_map(|r| ir_roll(&r.body, &place)) else {
        return Some(format!("**{written}**: the odds show once the rules check"));
    };
    Some(match spec_of(ir_dice) {
        Ok(spec) => match spec.distribution() {
            Ok(dist) => table(&written, &dist),
            Err(e) => format!("**{written}**: {e}"),
        },
        Err(why) => format!("**{written}**: {why}; its odds depend on the inputs (`rulebook odds` gives them for given inputs)"),
    })
}

/// The statement span and dice span of the roll whose dice are at `offset`, at any depth.
fn roll_at(body: &[ast::Stmt], offset: usize) -> Option<(Span, Span)> {
    let inside = |s: Span| s.start <= offset && offset <= s.end;
    for s in body.iter().filter(|s| inside(s.span)) {
        let found = match &s.kind {
            StmtKind::Roll { dice, opposed, .. } => {
                let second = opposed.as_ref().map(|o| o.second.span);
                [Some(dice.span), second]
                    .into_iter()
                    .flatten()
                    .find(|d| inside(*d))
                    .map(|d| (s.span, d))
            }
            StmtKind::If { arms, otherwise } => arms
                .iter()
                .find_map(|(_, b)| roll_at(b, offset))
                .or_else(|| roll_at(otherwise.as_deref().unwrap_or_default(), offset)),
            StmtKind::Match { arms, .. } => arms.iter().find_map(|(_, b)| roll_at(b, offset)),
            StmtKind::Repeat { body, .. } | StmtKind::For { body, .. } => roll_at(body, offset),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `path:line:col` of a byte offset, as the checker names a statement's place (`ir::Stmt`'s `at`).
fn place_of(text: &str, path: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{path}:{line}:{col}")
}

/// The dice of the checked roll statement at `place`.
fn ir_roll<'a>(body: &'a [ir::Stmt], place: &str) -> Option<&'a ir::Dice> {
    body.iter().find_map(|s| match s {
        ir::Stmt::Roll { dice, at, .. } if at == place => Some(dice),
        other => other.blocks().into_iter().find_map(|b| ir_roll(b, place)),
    })
}

/// A whole number the checker folded, if the expression is one.
fn constant(e: &ir::Expr) -> Option<i64> {
    match e.kind {
        ir::ExprKind::Const(ir::Const::Int(v)) => Some(v),
        _ => None,
    }
}

/// The runtime's description of dice whose every part is a constant; else what is not.
fn spec_of(d: &ir::Dice) -> Result<DiceSpec, String> {
    let count = constant(&d.count).ok_or("the number of dice is computed from values the rules get")?;
    if let ir::Read::Opposed {
        second,
        first_mod,
        second_mod,
    } = &d.read
    {
        let (Some(n2), Some(m1), Some(m2)) = (constant(second), constant(first_mod), constant(second_mod)) else {
            return Err("a side's dice or modifier is computed from values the rules get".into());
        };
        let too_many = || "too many dice to enumerate".to_string();
        return Ok(DiceSpec {
            count: u16::try_from(count + n2).map_err(|_| too_many())?,
            sides: u16::try_from(d.sides).map_err(|_| too_many())?,
            zero_based: d.zero_based,
            read: RtRead::Opposed {
                first: u16::try_from(count).map_err(|_| too_many())?,
                first_mod: i32::try_from(m1).map_err(|_| too_many())?,
                second_mod: i32::try_from(m2).map_err(|_| too_many())?,
            },
            reroll: d.const_reroll().ok_or("the reroll range is computed")?,
        });
    }
    rulebook_compiler::check::runtime_spec(d, count).ok_or_else(|| "a part of these dice is computed from values the rules get".into())
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

/// `|n|/d` reduced (`|n|` alone when `d` divides it); the caller writes the sign.
fn fraction(n: i128, d: u128) -> String {
    let g = gcd(n.unsigned_abs(), d);
    let (n, d) = (n.unsigned_abs() / g, d / g);
    if d == 1 {
        n.to_string()
    } else {
        format!("{n}/{d}")
    }
}

/// `n/d` to two decimals, rounded half up (away from zero).
fn two_decimals(n: i128, d: u128) -> String {
    let hundredths = (n.unsigned_abs() * 200 + d) / (2 * d.max(1));
    let sign = if n < 0 && hundredths > 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", hundredths / 100, hundredths % 100)
}

/// The hover text: the dice as written, the mean, and each total's chance.
fn table(written: &str, dist: &[(i64, u64)]) -> String {
    let total: u128 = dist.iter().map(|&(_, w)| u128::from(w)).sum();
    let sum: i128 = dist.iter().map(|&(v, w)| i128::from(v) * i128::from(w)).sum();
    let neg = if sum < 0 { "-" } else { "" };
    let mut s = format!(
        "**{written}**: mean {neg}{} ≈ {}\n\n| total | chance | % |\n|---:|---:|---:|\n",
        fraction(sum, total),
        two_decimals(sum, total)
    );
    for &(v, w) in dist.iter().take(MAX_ROWS) {
        let w = i128::from(w);
        s.push_str(&format!("| {v} | {} | {} |\n", fraction(w, total), two_decimals(w * 100, total)));
    }
    if dist.len() > MAX_ROWS {
        s.push_str(&format!("\n… and {} more totals\n", dist.len() - MAX_ROWS));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_and_decimals() {
        assert_eq!(fraction(252, 36), "7");
        assert_eq!(fraction(1, 36), "1/36");
        assert_eq!(two_decimals(100, 36), "2.78");
        assert_eq!(two_decimals(-7, 2), "-3.50");
        assert_eq!(two_decimals(-1, 1000), "0.00");
    }
}
