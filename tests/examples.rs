//! The rulebooks' worked examples as acceptance tests: every file under `tests/examples/` names a
//! resolver, its inputs, the scripted dice and the outcome the book states. Each must reproduce
//! exactly, use up its dice, and its human trace is snapshotted under `snapshots/examples/`.

use rulebook::runtime::{self, Recorder, Scripted, Seeded};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Example {
    /// Where the book states it, e.g. "Starleader 5.12".
    source: String,
    resolver: String,
    #[serde(default)]
    inputs: serde_yaml::Value,
    /// Scripted faces, in order; without them the run uses seed 0.
    dice: Option<Vec<i64>>,
    /// Outcome fields as the book states them (compared as text: "7.5", "hit", "true").
    expect: BTreeMap<String, String>,
}

#[test]
fn worked_examples_reproduce_exactly() {
    insta::glob!("examples/**/*.yaml", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let ex: Example = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (_, resolver) = runtime::find_resolver(rulebook::SYSTEMS, &ex.resolver).unwrap();
        let inputs = runtime::bind_inputs(resolver, &[], Some(&ex.inputs)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut trace = Recorder::new();
        let outcome = match &ex.dice {
            Some(faces) => {
                let mut dice = Scripted::new(faces.clone());
                let out = resolver
                    .run_traced(&mut dice, &mut trace, &inputs)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(
                    dice.remaining(),
                    0,
                    "{}: {} scripted faces left unused",
                    path.display(),
                    dice.remaining()
                );
                out
            }
            None => resolver.run_traced(&mut Seeded::new(0), &mut trace, &inputs).unwrap(),
        };
        for (field, want) in &ex.expect {
            let got = outcome
                .field(field)
                .unwrap_or_else(|| panic!("{}: no output `{field}`", path.display()));
            assert_eq!(&got.to_string(), want, "{} ({}): `{field}`", path.display(), ex.source);
        }
        insta::with_settings!({ snapshot_path => "../snapshots/examples", prepend_module_to_snapshot => false, description => ex.source.clone() }, {
            insta::assert_snapshot!(format!("{}\n{}", trace.render(), outcome));
        });
    });
}
