//! `Arg<T>`: a list input as a resolver's body receives it (generated `RtArgs…`).
//!
//! A caller that still reads the list afterwards lends it (`Lent`); a caller that reads it no more
//! (a battle handing its army to the step that changes it) gives it (`Given`). The body reads
//! either as a slice. Where the body changes the list into its own (`var fs = fighters`, the input
//! read no more after), `take` hands it over: the given list itself, without a copy, or a copy of
//! the lent one. The code generator takes a list only where nothing reads the input afterwards.

use std::ops::Deref;

/// A list input, lent or given; reads as a slice. See the module docs.
#[derive(Debug)]
pub enum Arg<'a, T> {
    Lent(&'a [T]),
    Given(Vec<T>),
}

impl<T> Deref for Arg<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Arg::Lent(s) => s,
            Arg::Given(v) => v,
        }
    }
}

impl<T: Clone> Arg<'_, T> {
    /// The list to change: the given one (left empty here), or a copy of the lent one.
    pub fn take(&mut self) -> Vec<T> {
        match self {
            Arg::Lent(s) => s.to_vec(),
            Arg::Given(v) => std::mem::take(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_list_is_handed_over_and_a_lent_one_copied() {
        let kept = vec![String::from("A HQ"), String::from("B HQ")];
        let mut lent = Arg::Lent(&kept);
        assert_eq!(&*lent, kept.as_slice());
        let copy = lent.take();
        assert_eq!(copy, kept);
        assert_ne!(copy.as_ptr(), kept.as_ptr(), "a copy");
        let given = vec![String::from("A 1st Platoon")];
        let at = given.as_ptr();
        let mut arg = Arg::Given(given);
        assert_eq!(arg.len(), 1);
        let mine = arg.take();
        assert_eq!(mine.as_ptr(), at, "the same list, not a copy");
        assert!(arg.is_empty());
    }
}
