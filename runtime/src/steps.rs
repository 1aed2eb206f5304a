//! The step limit: every resolution ends. A step is one turn of a loop (`repeat`, `for`) or one
//! call of a resolver that itself loops or calls (`ir::takes_steps`); a resolution may take at most [`MAX_STEPS`], counted the same way by both
//! backends, so a seeded result is the same on every machine, and a resolution that would run
//! for hours stops with an error naming the loop's rules line.
//!
//! The count is the thread's own (a resolution runs on one thread): taking a step is an add and a
//! compare on a thread-local, whatever the source of dice (a virtual call to a `dyn Dice` per step
//! cost a battle 7% more instructions). A resolution begins ([`begin`]) where it is entered from
//! outside: a generated public function, an interpreted registry entry, each path exact odds
//! replay. An enumeration inside another (a callee's, under exact odds) keeps the outer count
//! ([`Nested`]). Every [`CHECK_EVERY`] steps the slow path also reads the time budget of exact
//! odds (`watch::cancelled`), so `odds --budget` stops a loop that runs long between two dice.

use crate::error::Error;

/// The stack a thread that runs resolutions is given (reserved, not used, until a resolution
/// goes deep). The checker bounds how deep a resolution goes: at most 32 calls, each inside at most
/// 47 nested blocks, the innermost expression at most 64 deep; the interpreter's debug build needs
/// under 32 MiB for that (`interp/tests/deep.rs`), release builds far less. The CLI runs its work,
/// its exact odds and its simulations on threads this large; an application running rules text
/// at those limits gives its own threads as much.
pub const RESOLUTION_STACK: usize = 64 << 20;

/// The most steps one resolution may take: far above any rules' (a long battle takes thousands),
/// and reached in well under a second of compiled code.
pub const MAX_STEPS: u64 = 10_000_000;

/// How often (in steps) the slow path runs: a power of two.
pub const CHECK_EVERY: u64 = 1 << 14;

thread_local! {
    /// The steps taken by the resolution under way on this thread.
    static TAKEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A resolution starts: no steps taken.
#[inline]
pub fn begin() {
    TAKEN.with(|t| t.set(0));
}

/// The steps taken so far by the resolution under way.
pub fn taken() -> u64 {
    TAKEN.with(|t| t.get())
}

/// Takes one step at `site` (where the loop or call is written: `file:line:col`, the
/// resolver). Past [`MAX_STEPS`] the resolution stops with `Error::StepLimit`; a cancelled
/// time budget stops it with `Error::Stopped`.
#[cfg(not(rulebook_no_step_limit))]
#[inline(always)]
pub fn take(site: &Site<'_>) -> Result<(), Error> {
    let n = TAKEN.with(|t| {
        let n = t.get() + 1;
        t.set(n);
        n
    });
    if n & (CHECK_EVERY - 1) == 0 {
        return check(n, site);
    }
    Ok(())
}

/// Built with `--cfg rulebook_no_step_limit` (for measuring only: `benches/steps.sh` times the
/// resolvers with and without the limit), a step costs nothing and no resolution is stopped.
#[cfg(rulebook_no_step_limit)]
#[inline(always)]
pub fn take(_site: &Site<'_>) -> Result<(), Error> {
    Ok(())
}

#[cfg(not(rulebook_no_step_limit))]
#[cold]
#[inline(never)]
fn check(taken: u64, site: &Site<'_>) -> Result<(), Error> {
    if taken > MAX_STEPS {
        return Err(Error::StepLimit {
            limit: MAX_STEPS,
            at: site.to_string(),
        });
    }
    if let Some(seconds) = crate::watch::cancelled() {
        return Err(Error::Stopped {
            seconds,
            at: site.to_string(),
            steps: taken,
        });
    }
    Ok(())
}

/// An enumeration inside a resolution (a callee's, under exact odds) begins its own paths; the
/// resolution's count comes back when it ends, however it ends.
pub struct Nested(u64);

impl Nested {
    pub fn new() -> Nested {
        Nested(taken())
    }
}

impl Default for Nested {
    fn default() -> Self {
        Nested::new()
    }
}

impl Drop for Nested {
    fn drop(&mut self) {
        let n = self.0;
        TAKEN.with(|t| t.set(n));
    }
}

/// What takes a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// A turn of a `repeat` or `for`.
    Loop,
    /// A call of a resolver (the resolution's own start included).
    Call,
}

/// Where a step is taken: the rules text's place and the resolver it is in. Generated code writes
/// these as constants; the interpreter makes them from its rules as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site<'a> {
    pub kind: SiteKind,
    /// `path:line:col` of the loop, `path:line` of the resolver called.
    pub at: &'a str,
    pub system: &'a str,
    pub resolver: &'a str,
}

impl std::fmt::Display for Site<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (system, resolver, at) = (self.system, self.resolver, self.at);
        match self.kind {
            SiteKind::Loop => write!(f, "the loop at {at} in {system}.{resolver}"),
            SiteKind::Call => write!(f, "the call of {system}.{resolver} ({at})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static LOOP: Site = Site {
        kind: SiteKind::Loop,
        at: "rules-src/s/f.rules:3:5",
        system: "s",
        resolver: "r",
    };

    #[test]
    #[cfg(not(rulebook_no_step_limit))]
    fn the_limit_is_exact_and_names_the_site() {
        begin();
        // The check runs every CHECK_EVERY steps: the first past the limit that it sees fails.
        let mut failed_at = None;
        for i in 1..=MAX_STEPS + CHECK_EVERY {
            if let Err(e) = take(&LOOP) {
                failed_at = Some((i, e));
                break;
            }
        }
        let (i, e) = failed_at.expect("the limit stops the loop");
        assert!(i > MAX_STEPS && i <= MAX_STEPS + CHECK_EVERY, "{i}");
        assert_eq!(
            e.to_string(),
            "the resolution took more than 10000000 steps (turns of loops and calls) and was stopped at the loop at rules-src/s/f.rules:3:5 in s.r; lower the loops' bounds or give them a `break`"
        );
        {
            let _inner = Nested::new();
            begin();
            assert_eq!(take(&LOOP), Ok(()));
            assert_eq!(taken(), 1);
        }
        assert!(taken() > MAX_STEPS, "a nested enumeration gives the count back");
        begin();
        assert_eq!(taken(), 0);
        assert_eq!(take(&LOOP), Ok(()));
    }
}
