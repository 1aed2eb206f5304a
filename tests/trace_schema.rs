//! The trace format: `docs/trace.schema.json` (JSON Schema 2020-12) is versioned as the `roll`
//! documents are, names every event kind of the runtime, and validates real `rulebook roll --json`
//! output of every system, and random seeded rolls of every resolver.

mod common;
mod rulegen;

use common::rulebook;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rulebook::runtime as rt;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn read(rel: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn schema() -> Value {
    serde_json::from_str(&read("docs/trace.schema.json")).unwrap_or_else(|e| panic!("docs/trace.schema.json is not JSON: {e}"))
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).unwrap_or_else(|e| panic!("docs/trace.schema.json is not a valid schema: {e}"))
}

/// Every way `doc` breaks the schema, one line each (empty when it is valid).
fn problems(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc).map(|e| format!("at {}: {e}", e.instance_path)).collect()
}

/// The event kinds of the runtime's `Event` enum, read from its source: each variant's name in
/// snake_case, as `#[serde(rename_all = "snake_case")]` tags it.
fn runtime_event_kinds() -> Vec<String> {
    let src = read("runtime/src/trace.rs");
    let body = src
        .split("pub enum Event {")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("runtime/src/trace.rs has `pub enum Event { ... }`");
    body.lines()
        .filter_map(|l| {
            let name = l.strip_prefix("    ")?.split([' ', '{', ',', '(']).next()?;
            name.chars().next().filter(char::is_ascii_uppercase)?;
            let mut kind = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    kind.push('_');
                }
                kind.push(c.to_ascii_lowercase());
            }
            Some(kind)
        })
        .collect()
}

/// One event of each kind, with every field filled in. The `match` makes a new kind a compile
/// error here until it has a sample (and so a check against the schema).
fn samples() -> Vec<rt::Event> {
    let all = vec![
        rt::Event::Enter {
            resolver: "fire".into(),
            title: "Weapon Fire".into(),
            cite: "Book 6.0".into(),
        },
        rt::Event::Exit { resolver: "fire".into() },
        rt::Event::Roll {
            label: "wounds".into(),
            dice: "3d6 -2 each (min 0)".into(),
            faces: vec![1, 5, 6],
            adjusted: vec![0, 3, 4],
            value: 7,
            cite: "Book 6.3".into(),
        },
        rt::Event::Let {
            name: "target".into(),
            value: rt::Value::Dec(rt::Dec::new(1, 3).expect("1/3")),
            cite: "Book 6.3".into(),
        },
        rt::Event::Assign {
            name: "round".into(),
            value: rt::Value::Int(2),
            cite: "Book 7".into(),
        },
        rt::Event::Modifier {
            name: "close range".into(),
            value: rt::Value::Dec(rt::Dec::new(-1, 2).expect("-1/2")),
            cite: "Book 5.4".into(),
        },
        rt::Event::Row {
            table: "heavy_hit".into(),
            key: "3".into(),
            row: "down".into(),
            cite: "Book 6.61".into(),
        },
        rt::Event::Compare {
            left: "to_hit".into(),
            left_value: rt::Value::Int(23),
            op: "<=".into(),
            right: "target".into(),
            right_value: rt::Value::Int(12),
            result: false,
            cite: "Book 6.3".into(),
        },
        rt::Event::Set {
            field: "result".into(),
            value: rt::Value::List(vec![rt::Value::Text("Alpha".into()), rt::Value::None, rt::Value::Bool(true)]),
            cite: String::new(),
        },
        rt::Event::Note {
            text: "the target is down".into(),
            cite: "Book 6.64".into(),
        },
    ];
    for e in &all {
        match e {
            rt::Event::Enter { .. }
            | rt::Event::Exit { .. }
            | rt::Event::Roll { .. }
            | rt::Event::Let { .. }
            | rt::Event::Assign { .. }
            | rt::Event::Modifier { .. }
            | rt::Event::Row { .. }
            | rt::Event::Compare { .. }
            | rt::Event::Set { .. }
            | rt::Event::Note { .. } => {}
        }
    }
    all
}

fn doc_of(trace: Value) -> Value {
    json!({
        "format_version": rt::json::TRACE_FORMAT_VERSION,
        "resolver": "book.fire",
        "inputs": {"weapon": "Ghazi 10/7"},
        "outcome": {"result": "hit"},
        "trace": trace,
    })
}

#[test]
fn the_schema_is_versioned_as_the_documents_are() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(s["$id"], rt::json::TRACE_SCHEMA_ID);
    assert_eq!(s["properties"]["format_version"]["const"], rt::json::TRACE_FORMAT_VERSION);
    assert!(
        rt::json::TRACE_SCHEMA_ID.ends_with(&format!(":{}", rt::json::TRACE_FORMAT_VERSION)),
        "the schema's $id names its version"
    );
    let v = validator();
    assert!(problems(&v, &doc_of(json!([]))).is_empty());
    // The schema can fail: another version, a missing field, an unknown field.
    let mut other = doc_of(json!([]));
    other["format_version"] = json!(2);
    assert!(!problems(&v, &other).is_empty());
    let mut missing = doc_of(json!([]));
    missing.as_object_mut().unwrap().remove("outcome");
    assert!(!problems(&v, &missing).is_empty());
    let mut extra = doc_of(json!([]));
    extra["seed"] = json!(7);
    assert!(!problems(&v, &extra).is_empty());
}

#[test]
fn every_event_kind_of_the_runtime_is_in_the_schema() {
    let s = schema();
    let kinds = runtime_event_kinds();
    assert!(
        kinds.len() >= 10 && kinds.contains(&"compare".to_string()),
        "read {kinds:?} from trace.rs"
    );
    let listed: Vec<&str> = s["$defs"]["event"]["properties"]["kind"]["enum"]
        .as_array()
        .expect("$defs.event.properties.kind.enum")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let refs: Vec<&str> = s["$defs"]["event"]["oneOf"]
        .as_array()
        .expect("$defs.event.oneOf")
        .iter()
        .filter_map(|r| r["$ref"].as_str())
        .collect();
    for kind in &kinds {
        assert!(
            listed.contains(&kind.as_str()),
            "event kind `{kind}` of runtime/src/trace.rs is missing from docs/trace.schema.json's kinds"
        );
        assert!(
            refs.contains(&format!("#/$defs/{kind}").as_str()),
            "docs/trace.schema.json has no `$defs/{kind}` among the events"
        );
        assert_eq!(s["$defs"][kind.as_str()]["properties"]["kind"]["const"], kind.as_str());
        assert!(
            !s["$defs"][kind.as_str()]["description"].as_str().unwrap_or("").is_empty(),
            "`{kind}` is not described"
        );
    }
    assert_eq!(
        listed.len(),
        kinds.len(),
        "the schema lists kinds the runtime does not have: {listed:?} vs {kinds:?}"
    );
    // Every sample, and so every kind, is valid as the runtime serializes it; the samples cover
    // every kind read from the source.
    let v = validator();
    let mut seen = BTreeSet::new();
    for e in samples() {
        let event = serde_json::to_value(&e).unwrap();
        seen.insert(event["kind"].as_str().unwrap().to_string());
        let errors = problems(&v, &doc_of(json!([event])));
        assert!(errors.is_empty(), "{event}:\n{}", errors.join("\n"));
    }
    assert_eq!(seen, kinds.iter().cloned().collect::<BTreeSet<_>>());
    // An unknown kind and a misspelt field are refused.
    assert!(!problems(&v, &doc_of(json!([{"kind": "shout", "text": "x"}]))).is_empty());
    assert!(!problems(&v, &doc_of(json!([{"kind": "roll", "value": 3, "face": [3]}]))).is_empty());
    assert!(!problems(&v, &doc_of(json!([{"kind": "roll", "value": 3, "faces": []}]))).is_empty());
}

/// One seeded `roll --json` per system, the arguments after `roll`.
const CASES: &[(&str, &[&str])] = &[
    (
        "starleader",
        &["starleader.fire", "--input", "examples/starleader-fire.yaml", "--seed", "7"],
    ),
    ("t5", &["t5.combat", "--input", "examples/t5-combat-squad.yaml", "--seed", "3"]),
    (
        "mercenary",
        &[
            "mercenary.battle",
            "--input",
            "examples/mercenary-combined-arms.yaml",
            "--seed",
            "7",
        ],
    ),
    (
        "combat3000",
        &["combat3000.turn", "--input", "examples/combat3000-skirmish.yaml", "--seed", "7"],
    ),
    (
        "striker",
        &[
            "striker.minefield_crossing",
            "--set",
            "field=emplaced",
            "--set",
            "trigger=proximity",
            "--set",
            "antivehicle=true",
            "--set",
            "crosser=ground_vehicle",
            "--set",
            "distance_mm=7",
            "--seed",
            "5",
        ],
    ),
];

#[test]
fn roll_json_of_every_system_is_valid() {
    for s in rulebook::SYSTEMS {
        assert!(
            CASES.iter().any(|(name, _)| *name == s.name),
            "system `{}` has no `roll --json` case in tests/trace_schema.rs: add one",
            s.name
        );
    }
    let v = validator();
    let mut kinds = BTreeSet::new();
    for (system, args) in CASES {
        let mut all = vec!["roll"];
        all.extend_from_slice(args);
        all.push("--json");
        let out = rulebook(&all);
        assert!(out.status.success(), "{system}: {}", String::from_utf8_lossy(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{system}: not JSON: {e}"));
        assert_eq!(doc["format_version"], 1);
        let errors = problems(&v, &doc);
        assert!(
            errors.is_empty(),
            "{system}: `rulebook {}` breaks the schema:\n{}",
            all.join(" "),
            errors.join("\n")
        );
        let trace = doc["trace"].as_array().unwrap();
        assert!(trace.iter().any(|e| e["kind"] == "roll"), "{system}: no dice thrown");
        kinds.extend(trace.iter().filter_map(|e| e["kind"].as_str().map(str::to_string)));
    }
    for kind in ["enter", "exit", "roll", "let", "modifier", "row", "compare", "set"] {
        assert!(kinds.contains(kind), "no `{kind}` event in the cases: {kinds:?}");
    }
}

struct Seeded(ChaCha8Rng);

impl rulegen::Entropy for Seeded {
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.0.next_u64() % n
        }
    }
}

#[test]
fn random_rolls_of_every_resolver_are_valid() {
    let v = validator();
    let mut e = Seeded(ChaCha8Rng::seed_from_u64(20));
    let (mut rolled, mut resolvers) = (0, 0);
    for s in rulebook::SYSTEMS {
        for r in s.resolvers {
            let mut ran = false;
            for seed in 0..12 {
                let inputs = rulegen::inputs::inputs(&mut e, r);
                let mut rec = rt::Recorder::new();
                let Ok(outcome) = r.run_traced(&mut rt::Seeded::new(seed), &mut rec, &inputs) else {
                    continue;
                };
                let doc = rt::json::roll(s, r, &inputs, &outcome, &rec.events).unwrap();
                let errors = problems(&v, &doc);
                assert!(errors.is_empty(), "{}.{} seed {seed}:\n{}", s.name, r.name, errors.join("\n"));
                rolled += 1;
                ran = true;
            }
            resolvers += usize::from(ran);
        }
    }
    let all: usize = rulebook::SYSTEMS.iter().map(|s| s.resolvers.len()).sum();
    assert!(resolvers * 2 > all, "only {resolvers} of {all} resolvers ran on random inputs");
    assert!(rolled > 500, "only {rolled} rolls");
}
