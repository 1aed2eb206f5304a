//! An outcome flattened, as a simulation tallies it: its leaves (whole numbers, decimals, and the
//! categorical values: enums, yes/no, texts) with dotted paths (`result`, `losses_a.infantry.lost`).
//! A list of records whose first field is a label (an enum or a text) gives one entry per label:
//! `final."Alpha".strength`; a list of anything else gives nothing.
//!
//! The flattening is a stream of events ([`Flat`]): a field or label entered, left, a leaf. A
//! [`crate::Tally`] follows the stream without building the paths as long as it repeats the last
//! run's (most runs of a simulation have the same fields and labels in the same order), and
//! [`visit_flat`] builds each leaf's path.

use crate::value::Value;

/// The label of a list item: its first field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label<'a> {
    Enum(&'static str),
    Text(&'a str),
}

impl Label<'_> {
    /// Adds the label to a path as a value shows itself: a text quoted where it needs it.
    pub(crate) fn push_to(self, path: &mut String) {
        match self {
            Label::Enum(name) => path.push_str(name),
            Label::Text(t) => crate::value::push_text(path, t),
        }
    }
}

/// Where the events of a flattened outcome go, in order. Every `key` or `label` is closed by an
/// `up`; between them come the leaves and the entries nested in it.
pub trait Flat {
    /// A record field entered (also a labelled list item's field).
    fn key(&mut self, key: &'static str);
    /// A labelled list item entered.
    fn label(&mut self, label: Label<'_>);
    /// The last field or label entered is left.
    fn up(&mut self);
    /// A whole-number leaf.
    fn int(&mut self, x: i64);
    /// Any other leaf: `Value::None`, a decimal, or a categorical value.
    fn leaf(&mut self, v: &Value);
    /// A field that is a whole number: `key`, `int`, `up`. Always inlined: a simulation calls it
    /// for every field of every run, and a call cost `sim starleader.fire` 5% (callgrind).
    #[inline(always)]
    fn int_field(&mut self, key: &'static str, x: i64) {
        self.key(key);
        self.int(x);
        self.up();
    }
    /// A field that is any other leaf: `key`, `leaf`, `up` (always inlined, as `int_field`).
    #[inline(always)]
    fn leaf_field(&mut self, key: &'static str, v: &Value) {
        self.key(key);
        self.leaf(v);
        self.up();
    }
}

/// A value that can give its flattened events: an outcome, a record, a dynamic [`Value`].
/// Generated code implements it for the rules' outcomes and records, with the events their
/// `to_value` would give: a simulation then tallies a run without building its `Value`.
pub trait Flatten {
    /// The events of the value, into `f`.
    fn flatten<F: Flat + ?Sized>(&self, f: &mut F);
    /// The events of the value as an item of a list: a record whose first field is a label (an
    /// enum or a text) gives its label, its other fields and an `up`; anything else nothing.
    fn flatten_item<F: Flat + ?Sized>(&self, f: &mut F);
}

impl Flatten for Value {
    fn flatten<F: Flat + ?Sized>(&self, f: &mut F) {
        match self {
            Value::Record(fields) => {
                for (k, x) in fields {
                    f.key(k);
                    x.flatten(f);
                    f.up();
                }
            }
            Value::List(items) => {
                for item in items {
                    item.flatten_item(f);
                }
            }
            Value::Int(i) => f.int(*i),
            other => f.leaf(other),
        }
    }

    fn flatten_item<F: Flat + ?Sized>(&self, f: &mut F) {
        if let Value::Record(fields) = self {
            let label = match fields.first() {
                Some((_, Value::Enum(_, name))) => Label::Enum(name),
                Some((_, Value::Text(t))) => Label::Text(t),
                _ => return,
            };
            f.label(label);
            for (k, x) in &fields[1..] {
                f.key(k);
                x.flatten(f);
                f.up();
            }
            f.up();
        }
    }
}

/// The path of each entry entered, kept in one buffer: `up` goes back to where the entry began.
#[derive(Debug, Default)]
pub(crate) struct Path {
    pub(crate) path: String,
    starts: Vec<usize>,
}

impl Path {
    pub(crate) fn key(&mut self, key: &str) {
        self.open();
        self.path.push_str(key);
    }

    pub(crate) fn label(&mut self, label: Label<'_>) {
        self.open();
        label.push_to(&mut self.path);
    }

    fn open(&mut self) {
        self.starts.push(self.path.len());
        if !self.path.is_empty() {
            self.path.push('.');
        }
    }

    pub(crate) fn up(&mut self) {
        if let Some(start) = self.starts.pop() {
            self.path.truncate(start);
        }
    }
}

/// Visits the leaves of `v` with their dotted paths.
pub fn visit_flat(v: &Value, f: &mut dyn FnMut(&str, &Value)) {
    struct Visit<'f> {
        path: Path,
        f: &'f mut dyn FnMut(&str, &Value),
    }
    impl Flat for Visit<'_> {
        fn key(&mut self, key: &'static str) {
            self.path.key(key);
        }
        fn label(&mut self, label: Label<'_>) {
            self.path.label(label);
        }
        fn up(&mut self) {
            self.path.up();
        }
        fn int(&mut self, x: i64) {
            (self.f)(&self.path.path, &Value::Int(x));
        }
        fn leaf(&mut self, v: &Value) {
            (self.f)(&self.path.path, v);
        }
    }
    v.flatten(&mut Visit { path: Path::default(), f });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_fields_and_labelled_items() {
        let unit = |name: &str, n: i64| Value::Record(vec![("name", Value::Text(name.into())), ("strength", Value::Int(n))]);
        let v = Value::Record(vec![
            ("result", Value::Enum(1, "won")),
            ("final", Value::List(vec![unit("Alpha", 3), unit("B Coy", 0), Value::Int(9)])),
            (
                "losses",
                Value::List(vec![Value::Record(vec![
                    ("unit_type", Value::Enum(0, "infantry")),
                    ("lost", Value::Int(2)),
                ])]),
            ),
            ("empty", Value::Record(vec![])),
            ("nested", Value::Record(vec![("deep", Value::None)])),
        ]);
        let mut seen = Vec::new();
        visit_flat(&v, &mut |p, x| seen.push(format!("{p}={x}")));
        assert_eq!(
            seen,
            [
                "result=won",
                "final.Alpha.strength=3",
                "final.\"B Coy\".strength=0",
                "losses.infantry.lost=2",
                "nested.deep=none"
            ]
        );
    }
}
