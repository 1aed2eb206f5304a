//! The JSON documents of `rulebook list`, `roll`, `odds` and `sim --json`, built from the registry
//! once for every front end: the command line prints them, and `rulebook-wasm` hands the very
//! same documents to JavaScript. `docs/trace.schema.json` (at the root of the repository)
//! describes the `roll` document; `check --json`'s is `Compiled::to_json` in the compiler.

use crate::bind::parse_input;
use crate::odds::Distribution;
use crate::registry::{ResolverInfo, SystemInfo, Ty};
use crate::sim::Tally;
use crate::trace::Event;
use crate::value::{Inputs, Value as V};
use serde_json::{json, Map, Value};

/// The version of the `roll` document (its `format_version` field), of its trace events in
/// particular. It goes up when a field changes meaning or goes away; new optional fields and new
/// event kinds documented in the schema do not change it.
pub const TRACE_FORMAT_VERSION: u64 = 1;

/// The `$id` of the JSON Schema of the `roll` document, `docs/trace.schema.json`.
pub const TRACE_SCHEMA_ID: &str = "urn:rulebook:trace-format:1";

/// Pretty-printed JSON, as the command line prints it (without the final newline).
pub fn pretty(v: &Value) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(v)
}

/// `rulebook list --json`: every system with the names of its resolvers, tables and options.
pub fn systems(systems: &[&'static SystemInfo]) -> Value {
    let all: Vec<Value> = systems
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "title": s.title,
                "resolvers": s.resolvers.iter().map(|r| r.name).collect::<Vec<_>>(),
                "tables": s.tables.iter().map(|t| t.name).collect::<Vec<_>>(),
                "options": s.options.iter().map(|o| o.name).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "systems": all })
}

/// `rulebook list SYSTEM --json`: the system's options, resolvers (each as [`resolver`]) and tables.
pub fn system(s: &SystemInfo) -> Value {
    json!({
        "name": s.name,
        "title": s.title,
        "cite_prefix": s.cite_prefix,
        "options": s.options.iter().map(|o| json!({"name": o.name, "title": o.title, "cite": o.cite})).collect::<Vec<_>>(),
        "resolvers": s.resolvers.iter().map(|r| resolver(s, r)).collect::<Vec<_>>(),
        "tables": s.tables.iter().map(|t| json!({
            "name": t.name,
            "title": t.title,
            "cite": t.cite,
            "kind": t.kind,
            "rows": t.rows,
            "columns": t.columns.iter().map(|(n, ty)| json!({"name": n, "type": ty})).collect::<Vec<_>>(),
            "keys": t.keys,
        })).collect::<Vec<_>>(),
    })
}

/// `rulebook list SYSTEM.RESOLVER --json`: a resolver, its typed inputs and its outputs. Each
/// input has its type as text (`type`, as `rulebook list` shows it) and as data (`type_info`: the
/// kind, an int's bounds, an enum's or a key's choices, a list's item type, a record's fields),
/// its default as text (`default`, parsed as `--set` parses it) and as a value (`default_value`).
pub fn resolver(s: &SystemInfo, r: &ResolverInfo) -> Value {
    json!({
        "name": r.name,
        "path": format!("{}.{}", s.name, r.name),
        "title": r.title,
        "cite": r.cite,
        "doc": r.doc,
        "inputs": r.inputs.iter().map(|i| json!({
            "name": i.name,
            "type": i.ty.to_string(),
            "type_info": ty(i.ty),
            "default": i.default,
            "default_value": i.default.and_then(|d| parse_input(i.name, i.ty, d).ok()).map(|v| v.to_json()),
            "doc": i.doc,
            "optional_rule": i.optional_rule,
            "cite": i.cite,
        })).collect::<Vec<_>>(),
        "outputs": r.outputs.iter().map(|f| json!({
            "name": f.name,
            "type": f.ty.to_string(),
            "doc": f.doc,
        })).collect::<Vec<_>>(),
    })
}

/// A type as data, for building a form: `{"kind": "int", "min": 0, "max": 12}`,
/// `{"kind": "enum", "name": "Action", "choices": [...]}`, `{"kind": "key", "tables": [...],
/// "choices": [...]}`, `{"kind": "list" | "optional", "item": {...}}`, `{"kind": "record",
/// "name": ..., "fields": [...]}`, or just the kind for `bool`, `decimal` and `text`. An int
/// bound that the rules leave open is left out.
pub fn ty(t: &Ty) -> Value {
    match t {
        Ty::Bool => json!({"kind": "bool"}),
        Ty::Int { min, max } => {
            let mut m = Map::new();
            m.insert("kind".into(), json!("int"));
            if *min != i64::MIN {
                m.insert("min".into(), json!(min));
            }
            if *max != i64::MAX {
                m.insert("max".into(), json!(max));
            }
            Value::Object(m)
        }
        Ty::Dec => json!({"kind": "decimal"}),
        Ty::Text => json!({"kind": "text"}),
        Ty::Enum(e) => json!({"kind": "enum", "name": e.name, "choices": e.variants}),
        Ty::Key(tables) => json!({
            "kind": "key",
            "tables": tables.iter().map(|t| json!({"name": t.name, "title": t.title, "keys": t.keys})).collect::<Vec<_>>(),
            "choices": tables.iter().flat_map(|t| t.keys.iter().copied()).collect::<Vec<_>>(),
        }),
        Ty::List(item) => json!({"kind": "list", "item": ty(item)}),
        Ty::Opt(item) => json!({"kind": "optional", "item": ty(item)}),
        Ty::Struct(rec) => json!({
            "kind": "record",
            "name": rec.name,
            "fields": rec.fields.iter().map(|f| json!({
                "name": f.name,
                "type": f.ty.to_string(),
                "type_info": ty(f.ty),
                "doc": f.doc,
            })).collect::<Vec<_>>(),
        }),
        Ty::Record(name) => json!({"kind": "record", "name": name}),
    }
}

/// Bound inputs in the resolver's declaration order (the map itself is in name order).
pub fn ordered_inputs<'a>(r: &ResolverInfo, inputs: &'a Inputs) -> Vec<(&'static str, &'a V)> {
    r.inputs.iter().filter_map(|i| inputs.get(i.name).map(|v| (i.name, v))).collect()
}

/// Bound inputs as a JSON object in declaration order.
pub fn inputs(r: &ResolverInfo, inputs: &Inputs) -> Value {
    Value::Object(
        ordered_inputs(r, inputs)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_json()))
            .collect(),
    )
}

/// `rulebook roll --json`: `{"format_version", "resolver", "inputs", "outcome", "trace"}`, the
/// document `docs/trace.schema.json` describes.
pub fn roll(s: &SystemInfo, r: &ResolverInfo, bound: &Inputs, outcome: &V, events: &[Event]) -> Result<Value, serde_json::Error> {
    Ok(json!({
        "format_version": TRACE_FORMAT_VERSION,
        "resolver": format!("{}.{}", s.name, r.name),
        "inputs": inputs(r, bound),
        "outcome": outcome.to_json(),
        "trace": serde_json::to_value(events)?,
    }))
}

/// `rulebook odds --json`: every outcome with its exact probability as a fraction (`"145/432"`).
pub fn odds(s: &SystemInfo, r: &ResolverInfo, bound: &Inputs, dist: &Distribution<V>) -> Value {
    let outcomes: Vec<Value> = dist
        .outcomes
        .iter()
        .map(|(o, p)| json!({"outcome": o.to_json(), "probability": p.numer_denom_string()}))
        .collect();
    json!({"resolver": format!("{}.{}", s.name, r.name), "inputs": inputs(r, bound), "outcomes": outcomes})
}

/// `rulebook sim --json`: the share of every value of the outcome field and of every other field,
/// each with its 95% interval, and the mean of every number.
pub fn sim(s: &SystemInfo, r: &ResolverInfo, bound: &Inputs, tally: &Tally, runs: u64, seed: u64) -> Value {
    let main = tally.main_field();
    let shares = |field: &str| -> Map<String, Value> {
        tally
            .shares(field)
            .into_iter()
            .map(|(label, p, e)| (label, json!({"probability": p, "ci95": [round9(e.low), round9(e.high)]})))
            .collect()
    };
    let outcomes = main.as_deref().map(shares).unwrap_or_default();
    let fields: Map<String, Value> = tally.categories.keys().map(|f| (f.clone(), Value::Object(shares(f)))).collect();
    let means: Map<String, Value> = tally
        .numbers
        .keys()
        .filter_map(|f| {
            tally
                .mean(f)
                .map(|e| (f.clone(), json!({"mean": round9(e.value), "ci95": [round9(e.low), round9(e.high)]})))
        })
        .collect();
    json!({
        "resolver": format!("{}.{}", s.name, r.name),
        "inputs": inputs(r, bound),
        "runs": runs,
        "seed": seed,
        "outcome_field": main,
        "outcomes": outcomes,
        "fields": fields,
        "means": means,
    })
}

fn round9(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}
