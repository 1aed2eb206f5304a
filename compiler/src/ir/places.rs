//! Where each statement is written, and the rule it cites: what a run-time error raised by it
//! names (`docs/dsl.md`, "Run-time errors").

use super::{each_stmt, ResolverDef, Stmt};

/// `$on` applied to the place of statement `$s` (every kind has one but `return` and `break`,
/// which give `$none`).
macro_rules! with_place {
    ($s:expr, $at:ident => $on:expr, $none:expr) => {
        match $s {
            Stmt::Let { at: $at, .. }
            | Stmt::Var { at: $at, .. }
            | Stmt::Assign { at: $at, .. }
            | Stmt::Roll { at: $at, .. }
            | Stmt::Check { at: $at, .. }
            | Stmt::Set { at: $at, .. }
            | Stmt::If { at: $at, .. }
            | Stmt::Match { at: $at, .. }
            | Stmt::Call { at: $at, .. }
            | Stmt::Require { at: $at, .. }
            | Stmt::Note { at: $at, .. }
            | Stmt::Repeat { at: $at, .. }
            | Stmt::For { at: $at, .. } => $on,
            Stmt::Return | Stmt::Break => $none,
        }
    };
}

impl Stmt {
    /// `path:line:col` of the statement (of a loop, its head); empty for `return` and `break`.
    pub fn at(&self) -> &str {
        with_place!(self, at => at, "")
    }

    /// The citation an error raised by the statement names: its own, else `fallback` (its
    /// resolver's).
    pub fn cite_or<'s>(&'s self, fallback: &'s str) -> &'s str {
        let own = match self {
            Stmt::Let { cite, .. } | Stmt::Var { cite, .. } | Stmt::Assign { cite, .. } => cite.as_deref(),
            Stmt::Roll { cite, .. }
            | Stmt::Check { cite, .. }
            | Stmt::Set { cite, .. }
            | Stmt::Call { cite, .. }
            | Stmt::Require { cite, .. }
            | Stmt::Note { cite, .. } => Some(cite.as_str()),
            _ => None,
        };
        own.filter(|c| !c.is_empty()).unwrap_or(fallback)
    }

    /// Gives the statement its place (the checker does, once it is built).
    pub fn set_at(&mut self, place: String) {
        with_place!(self, at => *at = place, {})
    }
}

/// The places of a resolver's statements, each once, in the order they are written, with the
/// citation each names (`Stmt::cite_or`): the table a run-time error's place is taken from.
pub fn stmt_sites(r: &ResolverDef) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    each_stmt(&r.body, |s| {
        if !s.at().is_empty() && !out.iter().any(|(a, _)| a == s.at()) {
            out.push((s.at().to_string(), s.cite_or(&r.cite).to_string()));
        }
    });
    out
}

/// `path:line:col` (a statement's place, `Stmt::at`) taken apart, from the right: a path may hold
/// `:` itself.
pub fn split_place(at: &str) -> Option<(&str, usize, usize)> {
    let mut parts = at.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, col))
}

#[cfg(test)]
mod tests {
    use super::split_place;

    #[test]
    fn a_place_is_taken_apart_from_the_right() {
        assert_eq!(split_place("c:/rules/a.rules:12:5"), Some(("c:/rules/a.rules", 12, 5)));
        assert_eq!(split_place("a.rules:x:5"), None);
    }
}
