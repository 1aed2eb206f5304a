//! Dynamic values: how resolver inputs and outcomes look to the CLI, JSON output and the odds
//! merger, plus the typed accessors generated `from_values` code uses to read bound inputs.

use crate::error::Error;
use crate::num::Dec;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// A row of a keyed table: table id, row index and the row's key text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub table: u16,
    pub row: u16,
    pub name: &'static str,
}

/// Any input or outcome value. Ordering is structural (variant, then contents: integers and
/// decimals numerically, enum variants in their declared order, keys by table and row, records
/// field by field), which gives the
/// odds table a stable order that does not depend on how outcomes were found.
// Equality (below) is the derived one, done faster: equal values still hash alike.
#[allow(clippy::derived_hash_with_manual_eq)]
#[derive(Clone, Debug, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Dec(Dec),
    /// An enum variant: its place in the enum's declaration (which orders it) and its name.
    Enum(u16, &'static str),
    Text(String),
    Key(Key),
    List(Vec<Value>),
    /// Record fields in declaration order.
    Record(Vec<(&'static str, Value)>),
}

/// Equality as derived, variant and contents, but an enum variant's name is compared as a
/// pointer first: a simulation's tally compares every categorical leaf with the values counted so
/// far, and the names are the generated code's constants.
impl PartialEq for Value {
    fn eq(&self, o: &Self) -> bool {
        // Exhaustive over `self`: a new variant must say how it compares.
        match self {
            Value::None => matches!(o, Value::None),
            Value::Bool(a) => matches!(o, Value::Bool(b) if a == b),
            Value::Int(a) => matches!(o, Value::Int(b) if a == b),
            Value::Dec(a) => matches!(o, Value::Dec(b) if a == b),
            Value::Enum(a, x) => matches!(o, Value::Enum(b, y) if a == b && (std::ptr::eq(*x, *y) || x == y)),
            Value::Text(a) => matches!(o, Value::Text(b) if a == b),
            Value::Key(a) => matches!(o, Value::Key(b) if a == b),
            Value::List(a) => matches!(o, Value::List(b) if a == b),
            Value::Record(a) => matches!(o, Value::Record(b) if a == b),
        }
    }
}

/// Bound inputs by input name. A BTreeMap so iteration (and thus any output) is in name order.
pub type Inputs = BTreeMap<String, Value>;

impl Value {
    /// JSON form: Enum -> "variant", Key -> "name", Dec -> number (or "n/d"), Record -> object in
    /// field order, None -> null.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::None => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Dec(d) => d.to_json(),
            Value::Enum(_, e) => J::String((*e).to_string()),
            Value::Text(t) => J::String(t.clone()),
            Value::Key(k) => J::String(k.name.to_string()),
            Value::List(l) => J::Array(l.iter().map(Value::to_json).collect()),
            Value::Record(fields) => J::Object(fields.iter().map(|(k, v)| ((*k).to_string(), v.to_json())).collect()),
        }
    }

    /// The value of a record field, if this is a record that has it.
    pub fn field(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Record(fields) => fields.iter().find(|(k, _)| *k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Short name of the value's kind, for "expected int" style messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "none",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Dec(_) => "decimal",
            Value::Enum(..) => "enum",
            Value::Text(_) => "text",
            Value::Key(_) => "key",
            Value::List(_) => "list",
            Value::Record(_) => "record",
        }
    }
}

/// Text that can be shown bare without being confused with list/record punctuation.
fn needs_quotes(s: &str) -> bool {
    s.is_empty() || s.chars().any(|c| c.is_whitespace() || ",[]{}:\"".contains(c))
}

/// Appends `s` as a value shows it (`write_text`), without the formatting machinery where no
/// character needs escaping: a simulation names every unit of every run in the fields it tallies.
pub(crate) fn push_text(buf: &mut String, s: &str) {
    if !needs_quotes(s) {
        buf.push_str(s);
    } else if s
        .chars()
        .all(|c| c == ' ' || (c.is_ascii_graphic() && !matches!(c, '"' | '\\' | '\'')))
    {
        buf.push('"');
        buf.push_str(s);
        buf.push('"');
    } else {
        use std::fmt::Write;
        let _ = write!(buf, "{s:?}");
    }
}

fn write_text(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    if needs_quotes(s) {
        write!(f, "{s:?}")
    } else {
        f.write_str(s)
    }
}

impl fmt::Display for Value {
    /// Human form: `7.5`, `hit`, `"Ghazi 10/7"`, `[a, b]`, `{result: hit, damage: 3}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("none"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Dec(d) => write!(f, "{d}"),
            Value::Enum(_, e) => f.write_str(e),
            Value::Text(t) => write_text(f, t),
            Value::Key(k) => write_text(f, k.name),
            Value::List(l) => {
                f.write_str("[")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Record(fields) => {
                f.write_str("{")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

impl Serialize for Value {
    /// Same shape as `to_json`, streamed.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::None => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Dec(d) => d.serialize(s),
            Value::Enum(_, e) => s.serialize_str(e),
            Value::Text(t) => s.serialize_str(t),
            Value::Key(k) => s.serialize_str(k.name),
            Value::List(l) => {
                let mut seq = s.serialize_seq(Some(l.len()))?;
                for v in l {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Record(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// Implemented by generated enums.
pub trait EnumType: Sized + Copy {
    const TYPE_NAME: &'static str;
    const VARIANTS: &'static [&'static str];
    fn from_index(i: usize) -> Option<Self>;
    fn index(self) -> usize;
    fn name(self) -> &'static str {
        Self::VARIANTS.get(self.index()).copied().unwrap_or("?")
    }
}

fn lookup<'a>(m: &'a Inputs, name: &str, expected: &str) -> Result<&'a Value, Error> {
    m.get(name).ok_or_else(|| Error::MissingInput {
        input: name.to_string(),
        ty: expected.to_string(),
    })
}

fn bad(name: &str, v: &Value, expected: &str) -> Error {
    Error::BadValue {
        input: name.to_string(),
        text: v.to_string(),
        expected: expected.to_string(),
    }
}

pub fn value_as_int(v: &Value, name: &str) -> Result<i64, Error> {
    match v {
        Value::Int(i) => Ok(*i),
        _ => Err(bad(name, v, "int")),
    }
}

/// Accepts integers too: an int is a decimal with denominator 1.
pub fn value_as_dec(v: &Value, name: &str) -> Result<Dec, Error> {
    match v {
        Value::Dec(d) => Ok(*d),
        Value::Int(i) => Ok(Dec::from_int(*i)),
        _ => Err(bad(name, v, "decimal")),
    }
}

pub fn value_as_bool(v: &Value, name: &str) -> Result<bool, Error> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(bad(name, v, "bool")),
    }
}

pub fn value_as_key(v: &Value, name: &str) -> Result<Key, Error> {
    match v {
        Value::Key(k) => Ok(*k),
        _ => Err(bad(name, v, "key")),
    }
}

pub fn value_as_text<'a>(v: &'a Value, name: &str) -> Result<&'a str, Error> {
    match v {
        Value::Text(t) => Ok(t),
        _ => Err(bad(name, v, "text")),
    }
}

pub fn value_as_enum<E: EnumType>(v: &Value, name: &str) -> Result<E, Error> {
    let found = match v {
        Value::Enum(_, s) => E::VARIANTS.iter().position(|x| x == s).and_then(E::from_index),
        _ => None,
    };
    found.ok_or_else(|| bad(name, v, E::TYPE_NAME))
}

pub fn get_int(m: &Inputs, name: &str) -> Result<i64, Error> {
    value_as_int(lookup(m, name, "int")?, name)
}

pub fn get_dec(m: &Inputs, name: &str) -> Result<Dec, Error> {
    value_as_dec(lookup(m, name, "decimal")?, name)
}

pub fn get_bool(m: &Inputs, name: &str) -> Result<bool, Error> {
    value_as_bool(lookup(m, name, "bool")?, name)
}

pub fn get_key(m: &Inputs, name: &str) -> Result<Key, Error> {
    value_as_key(lookup(m, name, "key")?, name)
}

pub fn get_text<'a>(m: &'a Inputs, name: &str) -> Result<&'a str, Error> {
    value_as_text(lookup(m, name, "text")?, name)
}

pub fn get_enum<E: EnumType>(m: &Inputs, name: &str) -> Result<E, Error> {
    value_as_enum::<E>(lookup(m, name, E::TYPE_NAME)?, name)
}

pub fn get_list<'a>(m: &'a Inputs, name: &str) -> Result<&'a [Value], Error> {
    match lookup(m, name, "list")? {
        Value::List(l) => Ok(l),
        v => Err(bad(name, v, "list")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_is_by_variant_and_contents() {
        let owned: &'static str = Box::leak(String::from("close").into_boxed_str());
        // Names equal by their characters, not only by where they are kept.
        assert_eq!(Value::Enum(0, "close"), Value::Enum(0, owned));
        assert_ne!(Value::Enum(0, "close"), Value::Enum(1, "close"));
        assert_ne!(Value::Enum(0, "close"), Value::Enum(0, "long"));
        assert_ne!(Value::Int(0), Value::Bool(false));
        assert_ne!(Value::Int(3), Value::Enum(3, "three"));
        assert_eq!(Value::None, Value::None);
        assert_ne!(Value::None, Value::Int(0));
        let rec = |x: i64| Value::Record(vec![("a", Value::List(vec![Value::Int(x), Value::Text("t".into())]))]);
        assert_eq!(rec(1), rec(1));
        assert_ne!(rec(1), rec(2));
        // Consistent with the order.
        for (a, b) in [
            (Value::Enum(0, "close"), Value::Enum(0, owned)),
            (rec(1), rec(2)),
            (Value::None, Value::Bool(true)),
        ] {
            assert_eq!(a == b, a.cmp(&b) == std::cmp::Ordering::Equal);
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Range {
        Close,
        Long,
    }

    impl EnumType for Range {
        const TYPE_NAME: &'static str = "Range";
        const VARIANTS: &'static [&'static str] = &["close", "long"];
        fn from_index(i: usize) -> Option<Self> {
            [Range::Close, Range::Long].get(i).copied()
        }
        fn index(self) -> usize {
            self as usize
        }
    }

    #[test]
    fn push_text_shows_text_as_a_value_does() {
        for s in [
            "",
            "Alpha",
            "A 1st Platoon",
            "it's",
            "say \"hi\"",
            "back\\slash",
            "tab\there",
            "new\nline",
            "Zoë 2",
            "a,b",
            "[x]",
            "k: v",
            "é",
        ] {
            let mut buf = String::from("final.");
            push_text(&mut buf, s);
            assert_eq!(buf, format!("final.{}", Value::Text(s.to_string())), "{s:?}");
        }
    }

    #[test]
    fn display_and_json() {
        let v = Value::Record(vec![
            ("result", Value::Enum(0, "hit")),
            ("ap", Value::Dec(Dec::raw(15, 2))),
            ("third", Value::Dec(Dec::raw(1, 3))),
            (
                "weapon",
                Value::Key(Key {
                    table: 0,
                    row: 1,
                    name: "Ghazi 10/7",
                }),
            ),
            ("lost", Value::List(vec![Value::Int(1), Value::None, Value::Bool(false)])),
        ]);
        assert_eq!(
            v.to_string(),
            r#"{result: hit, ap: 7.5, third: 1/3, weapon: "Ghazi 10/7", lost: [1, none, false]}"#
        );
        assert_eq!(
            serde_json::to_string(&v.to_json()).unwrap(),
            r#"{"result":"hit","ap":7.5,"third":"1/3","weapon":"Ghazi 10/7","lost":[1,null,false]}"#
        );
        // Streaming serialization gives the same JSON as to_json.
        assert_eq!(serde_json::to_string(&v).unwrap(), serde_json::to_string(&v.to_json()).unwrap());
        assert_eq!(v.field("ap"), Some(&Value::Dec(Dec::raw(15, 2))));
        assert_eq!(v.field("nope"), None);
    }

    #[test]
    fn accessors() {
        let mut m = Inputs::new();
        m.insert("range".into(), Value::Enum(1, "long"));
        m.insert("n".into(), Value::Int(4));
        m.insert("bad".into(), Value::Enum(0, "medium"));
        assert_eq!(get_enum::<Range>(&m, "range"), Ok(Range::Long));
        assert_eq!(Range::Long.name(), "long");
        assert_eq!(get_int(&m, "n"), Ok(4));
        assert_eq!(get_dec(&m, "n"), Ok(Dec::from_int(4)));
        assert_eq!(
            get_int(&m, "missing"),
            Err(Error::MissingInput {
                input: "missing".into(),
                ty: "int".into()
            })
        );
        assert_eq!(
            get_bool(&m, "n"),
            Err(Error::BadValue {
                input: "n".into(),
                text: "4".into(),
                expected: "bool".into()
            })
        );
        assert!(matches!(get_enum::<Range>(&m, "bad"), Err(Error::BadValue { .. })));
        assert!(matches!(get_list(&m, "n"), Err(Error::BadValue { .. })));
    }
}
