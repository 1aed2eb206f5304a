//! A sorted view (`sort(x in list: key)` read in place by generated code) that makes no list when
//! the items are in order already: a battle's units kept in the order of the battle file and
//! sorted by that order, a plan built in the order it is sorted by.

/// The items of a sorted view, in order: the items as they come when they were in order
/// already, else sorted by their keys.
#[derive(Clone, Debug)]
pub enum SortedView<I, K, T> {
    InPlace(I),
    Keyed(std::vec::IntoIter<(K, T)>),
}

impl<I: Iterator<Item = T>, K, T> Iterator for SortedView<I, K, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            SortedView::InPlace(items) => items.next(),
            SortedView::Keyed(keyed) => keyed.next().map(|(_, x)| x),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            SortedView::InPlace(items) => items.size_hint(),
            SortedView::Keyed(keyed) => keyed.size_hint(),
        }
    }
}

/// `items` in the order of a stable sort by `key`, greatest first with `desc`. The keys are worked
/// out once to see whether the items are in that order already (then they are read as they
/// come); if not, once more each, to sort them. So `key` must neither fail nor trace, which
/// generated code makes sure of.
pub fn sorted_view<T: Copy, K: Ord, I: Iterator<Item = T> + Clone>(
    items: I,
    mut key: impl FnMut(T) -> K,
    desc: bool,
) -> SortedView<I, K, T> {
    let mut last: Option<K> = None;
    let mut in_order = true;
    for x in items.clone() {
        let k = key(x);
        if last.as_ref().is_some_and(|l| if desc { k > *l } else { k < *l }) {
            in_order = false;
            break;
        }
        last = Some(k);
    }
    if in_order {
        return SortedView::InPlace(items);
    }
    let mut keyed: Vec<(K, T)> = Vec::with_capacity(crate::room(&items));
    for x in items {
        keyed.push((key(x), x));
    }
    if desc {
        keyed.sort_by(|a, b| b.0.cmp(&a.0));
    } else {
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
    }
    SortedView::Keyed(keyed.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<'a>(v: impl Iterator<Item = &'a (i64, &'static str)>) -> Vec<&'static str> {
        v.map(|x| x.1).collect()
    }

    #[test]
    fn in_order_items_are_read_in_place_and_others_sorted_stably() {
        let up = [(1, "a"), (2, "b"), (2, "c"), (5, "d")];
        let v = sorted_view(up.iter(), |x| x.0, false);
        assert!(matches!(v, SortedView::InPlace(_)));
        assert_eq!(names(v), ["a", "b", "c", "d"]);
        // Descending: the same items are out of order; ties keep their places.
        let v = sorted_view(up.iter(), |x| x.0, true);
        assert!(matches!(v, SortedView::Keyed(_)));
        assert_eq!(names(v), ["d", "b", "c", "a"]);
        let down = [(5, "d"), (2, "b"), (2, "c"), (1, "a")];
        let v = sorted_view(down.iter(), |x| x.0, true);
        assert!(matches!(v, SortedView::InPlace(_)));
        assert_eq!(names(v), ["d", "b", "c", "a"]);
        let mixed = [(3, "x"), (1, "y"), (3, "z"), (2, "w"), (1, "v")];
        assert_eq!(names(sorted_view(mixed.iter(), |x| x.0, false)), ["y", "v", "w", "x", "z"]);
        assert_eq!(names(sorted_view(mixed.iter(), |x| x.0, true)), ["x", "z", "w", "y", "v"]);
        let none: [(i64, &str); 0] = [];
        assert_eq!(names(sorted_view(none.iter(), |x| x.0, false)), Vec::<&str>::new());
        // Each ordering equals the standard library's stable sort.
        for n in 0..200u64 {
            let items: Vec<(i64, &str)> = (0..(n % 9)).map(|i| (((n * 7 + i * 13) % 5) as i64, "")).collect();
            let mut want: Vec<(i64, &str)> = items.clone();
            want.sort_by_key(|x| x.0);
            let got: Vec<(i64, &str)> = sorted_view(items.iter(), |x| x.0, false).copied().collect();
            assert_eq!(got, want);
        }
    }
}
