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
    /// Adds `x` at the end. Written in place: a `Few` of large items (units) is not moved whole
    /// to add one.
    pub fn push(&mut self, x: T) {
        match self {
            Few::None => *self = Few::One(x),
            Few::One(_) => {
                if let Few::One(a) = std::mem::take(self) {
                    *self = Few::Many(vec![a, x]);
                }
            }
            Few::Many(v) => v.push(x),
        }
    }

    /// The items, in order: a loop reads them where they lie, not moved out one by one.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Few::None => &[],
            Few::One(x) => std::slice::from_ref(x),
            Few::Many(v) => v,
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
            assert_eq!(f.as_slice(), want.as_slice());
        }
    }
}
