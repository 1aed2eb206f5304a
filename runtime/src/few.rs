//! `Few<T>`: the items a loop goes through when its body changes the list they came from
//! (`for t in filter(x in fs: ...)` with `fs` assigned inside): copies taken as the loop starts.
//! Such a filter mostly keeps none or one (a unit looked up by name); those need no allocation.

/// Items kept in order: none or one in place, more in a `Vec`.
#[derive(Clone, Debug, Default)]
pub enum Few<T> {
    #[default]
    None,
    One(T),
    Many(Vec<T>),
}

impl<T> Few<T> {
    /// Adds `x` at the end.
    pub fn push(&mut self, x: T) {
        *self = match std::mem::take(self) {
            Few::None => Few::One(x),
            Few::One(a) => Few::Many(vec![a, x]),
            Few::Many(mut v) => {
                v.push(x);
                Few::Many(v)
            }
        };
    }
}

/// The items of a `Few`, in order.
pub enum FewIter<T> {
    One(Option<T>),
    Many(std::vec::IntoIter<T>),
}

impl<T> Iterator for FewIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        match self {
            FewIter::One(x) => x.take(),
            FewIter::Many(v) => v.next(),
        }
    }
}

impl<T> IntoIterator for Few<T> {
    type Item = T;
    type IntoIter = FewIter<T>;
    fn into_iter(self) -> FewIter<T> {
        match self {
            Few::None => FewIter::One(None),
            Few::One(x) => FewIter::One(Some(x)),
            Few::Many(v) => FewIter::Many(v.into_iter()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_item_in_order() {
        for n in 0..5 {
            let mut f = Few::None;
            for i in 0..n {
                f.push(i.to_string());
            }
            let want: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            assert_eq!(f.into_iter().collect::<Vec<_>>(), want);
        }
    }
}
