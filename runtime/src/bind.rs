//! Input binding: turns user text (`--set name=value`) and YAML input files into typed `Value`s,
//! with forgiving name matching and "did you mean" suggestions built on integer edit distances.

use crate::error::Error;
use crate::num::Dec;
use crate::registry::{ResolverInfo, SystemInfo, TableInfo, Ty};
use crate::value::{Inputs, Key, Value};
use std::collections::BTreeMap;

/// Name folding and suggestions live in `names`, which the registry shares.
pub use crate::names::{nearest, normalize};

/// Parses user text as a value of `ty`, naming the input "value" in errors.
pub fn parse_value(ty: &Ty, text: &str) -> Result<Value, Error> {
    parse_input("value", ty, text)
}

/// Parses user text as a value of `ty` for the input called `input` (used in error messages).
///
/// Int: range-checked; Dec: `Dec::parse`; Bool: true/false/yes/no/on/off; Enum: exact variant
/// name, else a unique case/separator-insensitive match; Key: a table key or alias compared
/// case-insensitively with spaces/hyphens/dots/underscores normalised; List: split on ','
/// (trimmed), empty text is the empty list.
pub fn parse_input(input: &str, ty: &Ty, text: &str) -> Result<Value, Error> {
    let bad = |expected: String| Error::BadValue {
        input: input.into(),
        text: text.into(),
        expected,
    };
    let t = text.trim();
    match ty {
        Ty::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Ok(Value::Bool(true)),
            "false" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(bad("bool (true|false|yes|no|on|off)".into())),
        },
        Ty::Int { min, max } => {
            let digits = t.strip_prefix('+').unwrap_or(t);
            // i128 so that a too-big number is reported as out of range, not as "not a number".
            let v: i128 = digits.parse().map_err(|_| bad(ty.to_string()))?;
            if v < i128::from(*min) || v > i128::from(*max) {
                return Err(Error::OutOfRange {
                    input: input.into(),
                    value: v.to_string(),
                    min: min.to_string(),
                    max: max.to_string(),
                });
            }
            i64::try_from(v).map(Value::Int).map_err(|_| bad(ty.to_string()))
        }
        Ty::Dec => Dec::parse(t)
            .map(Value::Dec)
            .ok_or_else(|| bad("decimal (e.g. 7.5, -0.5, 1/3)".into())),
        Ty::Text => Ok(Value::Text(text.to_string())),
        Ty::Enum(e) => {
            let variant = |i: usize, v: &'static str| Value::Enum(u16::try_from(i).unwrap_or(u16::MAX), v);
            if let Some((i, v)) = e.variants.iter().enumerate().find(|(_, v)| **v == t) {
                return Ok(variant(i, v));
            }
            let folded = normalize(t);
            let mut hits = e.variants.iter().enumerate().filter(|(_, v)| normalize(v) == folded);
            if let (Some((i, v)), None) = (hits.next(), hits.next()) {
                return Ok(variant(i, v));
            }
            Err(Error::Unknown {
                what: if input == "value" {
                    format!("{} variant", e.name)
                } else {
                    format!("{} variant for input {input}", e.name)
                },
                name: t.into(),
                nearest: nearest(t, e.variants, 5),
            })
        }
        // An unknown key is named by its input (`unknown weapon `Banana``): the tables behind
        // the input's type are the rules' inner workings.
        Ty::Key(tables) => parse_key(tables, t).map_err(|e| match e {
            Error::Unknown { name, nearest, .. } if input != "value" => Error::Unknown {
                what: input.to_string(),
                name,
                nearest,
            },
            other => other,
        }),
        Ty::List(inner) => {
            if t.is_empty() {
                return Ok(Value::List(Vec::new()));
            }
            t.split(',')
                .map(|item| parse_input(input, inner, item.trim()))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::List)
        }
        Ty::Opt(inner) => match t.to_ascii_lowercase().as_str() {
            "" | "-" | "none" => Ok(Value::None),
            _ => parse_input(input, inner, t),
        },
        Ty::Struct(r) => Err(bad(format!("{} record: give it as a mapping in --input YAML", r.name))),
        Ty::Record(name) => Err(bad(format!("{name} (a record; it cannot be given as text)"))),
    }
}

fn key_of(t: &TableInfo, row: u16) -> Result<Value, Error> {
    let name = t
        .keys
        .get(usize::from(row))
        .ok_or_else(|| Error::internal(format!("table {} alias points at missing row {row}", t.name)))?;
    Ok(Value::Key(Key { table: t.id, row, name }))
}

fn row_index(t: &TableInfo, i: usize) -> Result<u16, Error> {
    u16::try_from(i).map_err(|_| Error::internal(format!("table {} has more than 65535 rows", t.name)))
}

/// Exact key, exact alias, then normalized key or alias, in table order.
fn parse_key(tables: &[&TableInfo], t: &str) -> Result<Value, Error> {
    for table in tables {
        if let Some(i) = table.keys.iter().position(|k| *k == t) {
            return key_of(table, row_index(table, i)?);
        }
        if let Some((_, row)) = table.aliases.iter().find(|(a, _)| *a == t) {
            return key_of(table, *row);
        }
    }
    let folded = normalize(t);
    for table in tables {
        if let Some(i) = table.keys.iter().position(|k| normalize(k) == folded) {
            return key_of(table, row_index(table, i)?);
        }
        if let Some((_, row)) = table.aliases.iter().find(|(a, _)| normalize(a) == folded) {
            return key_of(table, *row);
        }
    }
    let names: Vec<&str> = tables.iter().map(|t| t.name).collect();
    let candidates: Vec<&str> = tables
        .iter()
        .flat_map(|tb| tb.keys.iter().copied().chain(tb.aliases.iter().map(|(a, _)| *a)))
        .collect();
    // An alias close to the text is suggested as the row it names: aliases keep the book's own
    // misspellings so they are accepted, but a suggestion shows the right spelling.
    let mut near: Vec<String> = Vec::new();
    for n in nearest(t, &candidates, 5) {
        let key = tables
            .iter()
            .find_map(|tb| {
                let (_, row) = tb.aliases.iter().find(|(a, _)| *a == n)?;
                tb.keys.get(usize::from(*row)).map(|k| k.to_string())
            })
            .unwrap_or(n);
        if !near.contains(&key) {
            near.push(key);
        }
    }
    // Nothing close: list the valid keys themselves (the first 30), so the user sees the choices.
    if near.is_empty() {
        let keys: Vec<&str> = tables.iter().flat_map(|tb| tb.keys.iter().copied()).collect();
        near = keys.iter().take(30).map(|k| k.to_string()).collect();
        if keys.len() > 30 {
            near.push(format!("... {} more (see `rulebook list`)", keys.len() - 30));
        }
    }
    Err(Error::Unknown {
        what: format!("key of {}", names.join("|")),
        name: t.into(),
        nearest: near,
    })
}

/// The deepest nesting of brackets that input YAML may have: far above any input type's (a list
/// of records of lists is 3), below the YAML parser's own recursion limit (128).
pub const MAX_YAML_DEPTH: usize = 100;

/// Why input YAML was refused: the parser's message, and where it stopped when it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlProblem {
    pub message: String,
    /// 1-based line and column.
    pub at: Option<(usize, usize)>,
}

impl std::fmt::Display for YamlProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some((line, column)) => write!(f, "{} at line {line} column {column}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Parses input YAML. A byte-order mark at the start is skipped (editors on Windows write one),
/// and brackets nested deeper than `MAX_YAML_DEPTH` are refused by one pass over the text before
/// the parser runs: the parser reads the whole text before it stops at its own depth limit, and
/// its time grows with the square of the nesting (200 KB of `[` took a minute).
pub fn parse_yaml(text: &str) -> Result<serde_yaml::Value, YamlProblem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some((line, column)) = too_deep(text, MAX_YAML_DEPTH) {
        return Err(YamlProblem {
            message: format!("brackets nested more than {MAX_YAML_DEPTH} deep"),
            at: Some((line, column)),
        });
    }
    serde_yaml::from_str(text).map_err(|e| {
        let at = e.location().map(|l| (l.line(), l.column()));
        let mut message = e.to_string();
        if let Some((line, column)) = at {
            // serde_yaml puts the place in its message; `YamlProblem` keeps it apart.
            message = message.replacen(&format!(" at line {line} column {column}"), "", 1);
        }
        YamlProblem {
            message: plain_yaml_message(&message),
            at,
        }
    })
}

/// serde_yaml's message in the words of the rest of the program: items counted from 1
/// (`gadgets[1]` is `gadgets item 2`), and a number too large for any input said so, not as the
/// Rust type it overflowed (`integer ... as u128, expected any YAML value`).
fn plain_yaml_message(message: &str) -> String {
    let (path, rest) = match message.split_once(": ") {
        Some((p, r)) if !p.contains(' ') || p.contains('[') => (p, r),
        _ => ("", message),
    };
    let mut shown = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '[' {
            shown.push(c);
            continue;
        }
        let digits: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_digit)).collect();
        match (digits.parse::<u64>(), chars.next_if_eq(&']')) {
            (Ok(i), Some(_)) => shown.push_str(&format!(" item {}", i + 1)),
            _ => {
                shown.push('[');
                shown.push_str(&digits);
            }
        }
    }
    let rest = match rest.strip_prefix("invalid type: integer `").and_then(|r| r.split_once('`')) {
        Some((n, tail)) if tail.starts_with(" as u128") || tail.starts_with(" as i128") => {
            format!("the number {n} is too large: whole numbers go from {} to {}", i64::MIN, i64::MAX)
        }
        _ => rest.to_string(),
    };
    if shown.is_empty() {
        rest
    } else {
        format!("{shown}: {rest}")
    }
}

/// Where YAML text first opens a flow bracket (`[` or `{`) past `max` open ones, as a 1-based
/// line and column; quoted text and comments are skipped. Brackets inside a plain scalar of a
/// block (`a[b`) are counted too: only a text with over `max` of them unclosed is refused.
fn too_deep(text: &str, max: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let mut quote: Option<char> = None;
    let mut comment = false;
    let mut prev = '\n';
    for c in text.chars() {
        column += 1;
        if c == '\n' {
            // A comment ends with its line; quoted text may go on to the next.
            (line, column, comment) = (line + 1, 0, false);
        } else if comment {
            // Nothing in a comment counts.
        } else if let Some(q) = quote {
            if c == q && !(q == '"' && prev == '\\') {
                quote = None;
            }
        } else {
            match c {
                '#' if prev.is_whitespace() => comment = true,
                '\'' | '"' => quote = Some(c),
                '[' | '{' => {
                    depth += 1;
                    if depth > max {
                        return Some((line, column));
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    None
}

/// Binds inputs written as YAML text, a mapping of input names to values (what
/// `rulebook roll --input FILE.yaml` reads), as `bind_inputs` binds them; text that is not YAML is
/// `Error::BadValue` carrying the parser's message.
pub fn bind_yaml(r: &ResolverInfo, yaml: &str) -> Result<Inputs, Error> {
    let v: serde_yaml::Value = parse_yaml(yaml).map_err(|e| Error::BadValue {
        input: "input YAML".into(),
        text: e.to_string(),
        expected: "a mapping of input names to values".into(),
    })?;
    bind_inputs(r, &[], Some(&v))
}

/// Binds inputs written as JSON text, an object of input names to values (what a JavaScript
/// caller passes), exactly as `bind_yaml` binds the same mapping: numbers keep the digits
/// written (`7.5` is the decimal 7.5, never a float), lists are arrays, records objects, and
/// `null` is none. Text that is not JSON is `Error::BadValue` carrying the parser's message.
pub fn bind_json(r: &ResolverInfo, json: &str) -> Result<Inputs, Error> {
    bind_json_sets(r, json, &[])
}

/// [`bind_json`] with `NAME=VALUE` texts over the JSON's values, bound as `--set` binds them (a
/// sweep's varied inputs over the fixed ones, in the bindings).
pub fn bind_json_sets(r: &ResolverInfo, json: &str, sets: &[(String, String)]) -> Result<Inputs, Error> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| Error::BadValue {
        input: "input JSON".into(),
        text: e.to_string(),
        expected: "an object of input names to values".into(),
    })?;
    bind_inputs(r, sets, Some(&json_to_yaml(&v)))
}

/// A JSON value as the YAML value of the same text: whole numbers stay numbers; any other number
/// becomes its exact digits as text, which binds as YAML's numbers do (through their text).
fn json_to_yaml(v: &serde_json::Value) -> serde_yaml::Value {
    use serde_json::Value as J;
    use serde_yaml::Value as Y;
    match v {
        J::Null => Y::Null,
        J::Bool(b) => Y::Bool(*b),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Y::Number(i.into()),
            (None, Some(u)) => Y::Number(u.into()),
            _ => Y::String(n.to_string()),
        },
        J::String(s) => Y::String(s.clone()),
        J::Array(items) => Y::Sequence(items.iter().map(json_to_yaml).collect()),
        J::Object(map) => Y::Mapping(map.iter().map(|(k, v)| (Y::String(k.clone()), json_to_yaml(v))).collect()),
    }
}

impl TableInfo {
    /// The row of this keyed table whose key or alias is `text`, compared as `--set` does (exact,
    /// then case-insensitively with spaces, hyphens, dots and underscores normalised). Otherwise
    /// `Error::Unknown` with the nearest keys ("did you mean").
    pub fn key(&self, text: &str) -> Result<Key, Error> {
        match parse_key(&[self], text.trim())? {
            Value::Key(k) => Ok(k),
            other => Err(Error::internal(format!("table {} gave {other} for a key", self.name))),
        }
    }
}

impl SystemInfo {
    /// The row of the keyed table named `table` whose key or alias is `text` (see
    /// [`TableInfo::key`]); an unknown table, or one that is not keyed, is `Error::Unknown` with
    /// the nearest keyed tables.
    pub fn key(&self, table: &str, text: &str) -> Result<Key, Error> {
        let keyed: Vec<&'static TableInfo> = self.tables.iter().filter(|t| t.kind == "keyed").collect();
        match keyed.iter().find(|t| t.name == table) {
            Some(t) => t.key(text),
            None => {
                let names: Vec<&str> = keyed.iter().map(|t| t.name).collect();
                Err(Error::Unknown {
                    what: format!("keyed table of {}", self.name),
                    name: table.into(),
                    nearest: nearest(table, &names, 5),
                })
            }
        }
    }
}

/// Converts a YAML value for `ty` (same rules as `parse_value`; YAML sequences for lists).
pub fn yaml_to_value(ty: &Ty, v: &serde_yaml::Value) -> Result<Value, Error> {
    yaml_input("value", ty, v)
}

fn yaml_kind(v: &serde_yaml::Value) -> &'static str {
    match v {
        serde_yaml::Value::Null => "null",
        serde_yaml::Value::Bool(_) => "a bool",
        serde_yaml::Value::Number(_) => "a number",
        serde_yaml::Value::String(_) => "a string",
        serde_yaml::Value::Sequence(_) => "a list",
        serde_yaml::Value::Mapping(_) => "a mapping",
        serde_yaml::Value::Tagged(_) => "a tagged value",
    }
}

/// YAML scalars go through their text form: numbers keep the digits the user wrote for ordinary
/// decimals (serde_yaml prints the shortest round-trip form), so no float ever reaches the rules.
pub fn yaml_input(input: &str, ty: &Ty, v: &serde_yaml::Value) -> Result<Value, Error> {
    use serde_yaml::Value as Y;
    let bad = || Error::BadValue {
        input: input.into(),
        text: yaml_kind(v).into(),
        expected: ty.to_string(),
    };
    match (ty, v) {
        (Ty::List(_), Y::Null) => Ok(Value::List(Vec::new())),
        (Ty::Opt(_), Y::Null) => Ok(Value::None),
        (Ty::Struct(r), Y::Mapping(map)) => {
            for k in map.keys() {
                let key = k.as_str().unwrap_or("");
                if !r.fields.iter().any(|f| f.name == key) {
                    let names: Vec<&str> = r.fields.iter().map(|f| f.name).collect();
                    return Err(Error::Unknown {
                        what: format!("field of {} for input {input}", r.name),
                        name: key.to_string(),
                        nearest: nearest(key, &names, 5),
                    });
                }
            }
            let mut fields = Vec::with_capacity(r.fields.len());
            for f in r.fields {
                let field_input = format!("{input}.{}", f.name);
                let v = match map.get(f.name) {
                    Some(v) => yaml_input(&field_input, f.ty, v)?,
                    None if matches!(f.ty, Ty::Opt(_)) => Value::None,
                    None if matches!(f.ty, Ty::List(_)) => Value::List(Vec::new()),
                    None => {
                        return Err(Error::MissingInput {
                            input: field_input,
                            ty: f.ty.to_string(),
                        })
                    }
                };
                fields.push((f.name, v));
            }
            Ok(Value::Record(fields))
        }
        (Ty::Opt(inner), _) => yaml_input(input, inner, v),
        (Ty::List(inner), Y::Sequence(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                // Records in a list are named by position and, when they have one, by name, so an
                // error in a battle file points at the unit: `units[2] "Alpha Company".strength`.
                let label = match (inner, item.get("name").and_then(|n| n.as_str())) {
                    (Ty::Struct(_), Some(name)) => format!("{input}[{}] \"{name}\"", i + 1),
                    (Ty::Struct(_), None) => format!("{input}[{}]", i + 1),
                    _ => input.to_string(),
                };
                yaml_input(&label, inner, item)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List),
        (_, Y::String(s)) => parse_input(input, ty, s),
        (_, Y::Number(n)) => parse_input(input, ty, &n.to_string()),
        (_, Y::Bool(b)) => parse_input(input, ty, if *b { "true" } else { "false" }),
        _ => Err(bad()),
    }
}

/// Finds the input called `name` (exactly, else a unique normalized match).
fn resolve_input<'r>(r: &'r ResolverInfo, name: &str) -> Result<&'r crate::registry::InputInfo, Error> {
    if let Some(i) = r.inputs.iter().find(|i| i.name == name) {
        return Ok(i);
    }
    let folded = normalize(name);
    let mut hits = r.inputs.iter().filter(|i| normalize(i.name) == folded);
    if let (Some(i), None) = (hits.next(), hits.next()) {
        return Ok(i);
    }
    let names: Vec<&str> = r.inputs.iter().map(|i| i.name).collect();
    Err(Error::Unknown {
        what: "input".into(),
        name: name.into(),
        nearest: nearest(name, &names, names.len().max(1)),
    })
}

/// Adds the input name to an unknown-value error so YAML files with many fields stay clear (an
/// unknown key already names its input, or its field of one: `units[2].weapon`).
fn name_input(e: Error, input: &str) -> Error {
    match e {
        Error::Unknown { ref what, .. } if what.starts_with(input) => e,
        Error::Unknown { what, name, nearest } if what != "input" && !what.contains(" for input ") => Error::Unknown {
            what: format!("{what} for input {input}"),
            name,
            nearest,
        },
        other => other,
    }
}

enum Given<'a> {
    Text(&'a str),
    Yaml(&'a serde_yaml::Value),
}

/// Binds `--set` pairs and an optional YAML mapping to the resolver's inputs. `--set` wins over
/// YAML (and a later `--set` over an earlier one); unknown names are reported before any value is
/// parsed; inputs left unset take their default or are `Error::MissingInput`, checked in
/// declaration order.
pub fn bind_inputs(r: &ResolverInfo, sets: &[(String, String)], yaml: Option<&serde_yaml::Value>) -> Result<Inputs, Error> {
    let mut given: BTreeMap<&'static str, Given<'_>> = BTreeMap::new();
    match yaml {
        None | Some(serde_yaml::Value::Null) => {}
        Some(serde_yaml::Value::Mapping(m)) => {
            for (k, v) in m {
                let name = match k {
                    serde_yaml::Value::String(s) => s.as_str(),
                    other => {
                        return Err(Error::BadValue {
                            input: "input file".into(),
                            text: yaml_kind(other).into(),
                            expected: "input names as mapping keys".into(),
                        })
                    }
                };
                given.insert(resolve_input(r, name)?.name, Given::Yaml(v));
            }
        }
        Some(other) => {
            return Err(Error::BadValue {
                input: "input file".into(),
                text: yaml_kind(other).into(),
                expected: "a mapping of input names to values".into(),
            })
        }
    }
    for (name, text) in sets {
        given.insert(resolve_input(r, name)?.name, Given::Text(text));
    }
    let mut out = Inputs::new();
    for input in r.inputs {
        let v = match given.get(input.name) {
            Some(Given::Text(t)) => parse_input(input.name, input.ty, t),
            Some(Given::Yaml(y)) => yaml_input(input.name, input.ty, y),
            None => match input.default {
                Some(d) => parse_input(input.name, input.ty, d),
                None => Err(Error::MissingInput {
                    input: input.name.into(),
                    ty: input.ty.to_string(),
                }),
            },
        }
        .map_err(|e| name_input(e, input.name))?;
        out.insert(input.name.to_string(), v);
    }
    Ok(out)
}

#[cfg(test)]
mod yaml_tests {
    use super::*;

    /// Issue 44: a huge integer leaked serde's "as u128", with items numbered from 0; a leading
    /// byte-order mark was "more than one document"; 200 KB of `[` took a minute.
    #[test]
    fn input_yaml_problems_in_plain_words() {
        let e = parse_yaml("gadgets: [Syter, 99999999999999999999999]\n").unwrap_err();
        assert_eq!(
            e.message,
            "gadgets item 2: the number 99999999999999999999999 is too large: whole numbers go from -9223372036854775808 to 9223372036854775807"
        );
        assert_eq!(e.at, Some((1, 18)));
        assert!(parse_yaml("\u{feff}a: 1\n").is_ok());
        let deep = format!("a: {}", "[".repeat(200_000));
        let e = parse_yaml(&deep).unwrap_err();
        assert_eq!((e.message.as_str(), e.at), ("brackets nested more than 100 deep", Some((1, 104))));
        // Brackets in quotes and comments do not count; a plain scalar's do.
        let quoted = format!("a: '{}'\nb: \"{}\\\"\" # {}\n", "[".repeat(300), "{".repeat(300), "[".repeat(300));
        assert!(parse_yaml(&quoted).is_ok(), "{:?}", parse_yaml(&quoted));
    }
}
