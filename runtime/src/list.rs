//! `List<T>`: the type of a record's list field (`attackers: list text` in a `record`), which
//! generated code copies far more often than it changes.
//!
//! A battle copies its list of units at each Unit Action (the rules build the new list while
//! reading the old one), and each copy of a unit copied its lists too: an allocation, the items'
//! copies and a free for each non-empty list field, about a tenth of a Mercenary battle's time.
//! A `List` keeps its items in one shared, unchangeable block (`Arc<[T]>`; none at all when it is
//! empty): a copy shares the block, and a list that grows gets a new block with the old items and
//! the new ones. It reads as a slice (`Deref<Target = [T]>`), and compares, orders and hashes as
//! its items do, so it behaves as the `Vec` it replaces wherever a list is a value.
//!
//! Lists elsewhere (inputs, outputs, locals) stay `Vec`: they are built and changed in place.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The most items a list made by the rules may hold: far above any rules' (an army is tens of
/// units), far below what would exhaust memory. A list that grows past it (`xs + ys`, an item
/// added) stops the resolution with `Error::ListTooLong`, in both backends.
pub const MAX_LIST_LEN: usize = 100_000;

/// `Ok` while a list of `len` items is within `MAX_LIST_LEN`; generated code and the interpreter
/// call it after a list grows.
#[inline]
pub fn list_room(len: usize) -> Result<(), crate::Error> {
    if len > MAX_LIST_LEN {
        return Err(crate::Error::ListTooLong { limit: MAX_LIST_LEN });
    }
    Ok(())
}

/// A record's list field: copied by sharing its items, read as a slice. See the module docs.
pub struct List<T>(Option<Arc<[T]>>);

impl<T> List<T> {
    /// The empty list (allocates nothing).
    pub const fn new() -> Self {
        List(None)
    }

    /// The items, as a slice.
    pub fn as_slice(&self) -> &[T] {
        self.0.as_deref().unwrap_or(&[])
    }
}

impl<T: Clone> List<T> {
    /// Adds `more` at the end: one new block with the items so far and `more` (the old block
    /// stays with the lists that share it).
    pub fn extend<I: IntoIterator<Item = T>>(&mut self, more: I)
    where
        I::IntoIter: ExactSizeIterator,
    {
        let more = more.into_iter();
        if more.len() == 0 {
            return;
        }
        // The old items and the new ones, of known count: the block is allocated once.
        self.0 = Some(self.as_slice().iter().cloned().chain(more).collect());
    }

    /// Adds one item at the end, as `extend` does.
    pub fn push(&mut self, item: T) {
        self.extend([item]);
    }
}

impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        List(self.0.clone())
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List::new()
    }
}

impl<T> std::ops::Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        if v.is_empty() {
            List(None)
        } else {
            List(Some(v.into()))
        }
    }
}

impl<T: Clone> From<&[T]> for List<T> {
    fn from(v: &[T]) -> Self {
        if v.is_empty() {
            List(None)
        } else {
            List(Some(v.into()))
        }
    }
}

impl<T, const N: usize> From<[T; N]> for List<T> {
    fn from(v: [T; N]) -> Self {
        List::from(Vec::from(v))
    }
}

impl<T> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        List::from(items.into_iter().collect::<Vec<T>>())
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<T: PartialEq> PartialEq for List<T> {
    fn eq(&self, o: &Self) -> bool {
        self.as_slice() == o.as_slice()
    }
}

impl<T: Eq> Eq for List<T> {}

impl<T: PartialEq> PartialEq<Vec<T>> for List<T> {
    fn eq(&self, o: &Vec<T>) -> bool {
        self.as_slice() == o.as_slice()
    }
}

impl<T: PartialEq> PartialEq<List<T>> for Vec<T> {
    fn eq(&self, o: &List<T>) -> bool {
        self.as_slice() == o.as_slice()
    }
}

impl<T: PartialOrd> PartialOrd for List<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        self.as_slice().partial_cmp(o.as_slice())
    }
}

impl<T: Ord> Ord for List<T> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.as_slice().cmp(o.as_slice())
    }
}

impl<T: Hash> Hash for List<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_slice().hash(h);
    }
}

#[cfg(test)]
mod tests {
    use super::List;
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    fn hash_of<T: Hash + ?Sized>(x: &T) -> u64 {
        let mut h = DefaultHasher::new();
        x.hash(&mut h);
        h.finish()
    }

    /// A copy shares the items until one side grows; the other keeps what it had, as a `Vec`'s
    /// copy would.
    #[test]
    fn a_copy_keeps_its_items_when_the_original_grows() {
        let mut a: List<String> = vec!["Able".to_string()].into();
        let b = a.clone();
        // Shared, not copied: the copy's items are the original's.
        assert_eq!(b.as_ptr(), a.as_ptr());
        a.push("Baker".to_string());
        a.extend(["Charlie".to_string()]);
        a.extend(Vec::<String>::new());
        assert_eq!(&*a, ["Able", "Baker", "Charlie"]);
        assert_eq!(&*b, ["Able"]);
        assert_ne!(b.as_ptr(), a.as_ptr());
        let mut e: List<u8> = List::new();
        assert!(e.is_empty());
        e.extend([1, 2]);
        assert_eq!(e, vec![1, 2]);
        assert_eq!(vec![1, 2], e);
    }

    /// Equality, order and hash are the items', as a `Vec`'s are: built, grown or copied, the
    /// same items compare equal, and lists order as their slices do.
    #[test]
    fn lists_compare_order_and_hash_as_their_items() {
        let built: List<i64> = vec![1, 2, 3].into();
        let mut grown: List<i64> = List::from([1]);
        grown.extend([2, 3]);
        let collected: List<i64> = (1..=3).collect();
        assert_eq!(built, grown);
        assert_eq!(built, collected);
        assert_eq!(hash_of(&built), hash_of(&grown));
        assert_eq!(hash_of(&built), hash_of(&vec![1i64, 2, 3]));
        let empty: List<i64> = Vec::new().into();
        assert_eq!(empty, List::default());
        assert_eq!(hash_of(&empty), hash_of(&Vec::<i64>::new()));
        let mut sorted = [List::from([2i64]), List::from([1i64, 5]), empty.clone(), List::from([1i64])];
        sorted.sort();
        let want: Vec<Vec<i64>> = vec![vec![], vec![1], vec![1, 5], vec![2]];
        assert_eq!(sorted.iter().map(|l| l.to_vec()).collect::<Vec<_>>(), want);
        assert_eq!(format!("{built:?}"), "[1, 2, 3]");
        assert_eq!((&built).into_iter().sum::<i64>(), 6);
    }
}
