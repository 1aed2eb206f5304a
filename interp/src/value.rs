//! The interpreter's own value: the shape of `rt::Value`, ordered and compared the same way, but
//! with lists, records and text shared, so reading a whole army's list costs a reference count
//! rather than a deep copy. Values become `rt::Value` only where they leave the interpreter: trace
//! events, outcomes and messages.

use rt::{Dec, Value};
use rulebook_runtime as rt;
use std::fmt;
use std::sync::Arc;

/// Variant order, and so derived ordering and equality, follows `rt::Value` exactly.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum V {
    None,
    Bool(bool),
    Int(i64),
    Dec(Dec),
    Enum(u16, &'static str),
    Text(Arc<str>),
    Key(rt::Key),
    List(Arc<Vec<V>>),
    Record(Arc<Vec<(&'static str, V)>>),
}

impl V {
    pub fn list(items: Vec<V>) -> V {
        V::List(Arc::new(items))
    }

    pub fn record(fields: Vec<(&'static str, V)>) -> V {
        V::Record(Arc::new(fields))
    }

    pub fn text(s: &str) -> V {
        V::Text(Arc::from(s))
    }

    pub fn field(&self, name: &str) -> Option<&V> {
        match self {
            V::Record(fields) => fields.iter().find(|(k, _)| *k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            V::None => Value::None,
            V::Bool(b) => Value::Bool(*b),
            V::Int(i) => Value::Int(*i),
            V::Dec(d) => Value::Dec(*d),
            V::Enum(i, n) => Value::Enum(*i, n),
            V::Text(t) => Value::Text(t.to_string()),
            V::Key(k) => Value::Key(*k),
            V::List(xs) => Value::List(xs.iter().map(V::to_value).collect()),
            V::Record(fs) => Value::Record(fs.iter().map(|(k, v)| (*k, v.to_value())).collect()),
        }
    }

    /// Record field names must outlive the program: an input's record is rebuilt by the caller
    /// from the declared fields (`Sys::read_inputs`), so its names are the rules' own.
    pub fn from_value(v: &Value) -> V {
        match v {
            Value::None => V::None,
            Value::Bool(b) => V::Bool(*b),
            Value::Int(i) => V::Int(*i),
            Value::Dec(d) => V::Dec(*d),
            Value::Enum(i, n) => V::Enum(*i, n),
            Value::Text(t) => V::text(t),
            Value::Key(k) => V::Key(*k),
            Value::List(xs) => V::list(xs.iter().map(V::from_value).collect()),
            Value::Record(fs) => V::record(fs.iter().map(|(k, v)| (*k, V::from_value(v))).collect()),
        }
    }
}

impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_value().fmt(f)
    }
}
