//! The library as an application meets it: typed inputs with defaults (`new`, `with_…`, `parse`,
//! `from_yaml`, `from_values` of a partial map), typed keys, outcomes as JSON, and the interpreter
//! filling defaults the same way.

use rulebook::runtime::{self as rt, Error, NoTrace, Seeded};
use rulebook::starleader::{self, fire, keys, FireInputs};

#[test]
fn from_values_fills_defaults_and_names_only_the_missing_required_input() {
    let err = FireInputs::from_values(&rt::Inputs::new()).unwrap_err();
    assert!(matches!(&err, Error::MissingInput { input, .. } if input == "weapon"), "{err}");
    let mut m = rt::Inputs::new();
    m.insert("weapon".into(), rt::Value::Key(keys::PISTOLS_GHAZI_10_7));
    let partial = FireInputs::from_values(&m).unwrap();
    assert_eq!(partial, FireInputs::new(keys::PISTOLS_GHAZI_10_7));
    // The same inputs as the CLI binds them (every default parsed from its text).
    let (_, info) = rt::find_resolver(rulebook::SYSTEMS, "starleader.fire").unwrap();
    let bound = rt::bind_inputs(info, &[("weapon".into(), "Ghazi 10/7".into())], None).unwrap();
    assert_eq!(FireInputs::from_values(&bound).unwrap(), partial);
    assert_eq!(partial.to_values(), bound);
}

#[test]
fn inputs_from_text_yaml_and_setters_agree() {
    let set = FireInputs::new(keys::PISTOLS_GHAZI_10_7)
        .with_range_hexes(5)
        .with_special_results(true);
    let parsed = FireInputs::parse(&[("weapon", "GHAZI 10/7"), ("range-hexes", "5"), ("special_results", "on")]).unwrap();
    assert_eq!(parsed, set);
    let yaml = FireInputs::from_yaml("weapon: Ghazi 10/7\nrange_hexes: 5\nspecial_results: true\n").unwrap();
    assert_eq!(yaml, set);
    assert!(matches!(FireInputs::from_yaml("weapon: [unclosed"), Err(Error::BadValue { .. })));
    let err = FireInputs::parse(&[("wepon", "Ghazi 10/7")]).unwrap_err();
    assert!(err.to_string().contains("weapon"), "{err}");
}

#[test]
fn keys_are_typed_and_looked_up_with_did_you_mean() {
    assert_eq!(keys::parse("pistols", "ghazi 10/7").unwrap(), keys::PISTOLS_GHAZI_10_7);
    assert_eq!(keys::PISTOLS_GHAZI_10_7.name, "Ghazi 10/7");
    let err = keys::parse("pistols", "Ghazzi 10/7").unwrap_err();
    assert!(
        matches!(&err, Error::Unknown { nearest, .. } if nearest.iter().any(|n| n == "Ghazi 10/7")),
        "{err}"
    );
    let err = keys::parse("pistol", "Ghazi 10/7").unwrap_err();
    assert!(
        matches!(&err, Error::Unknown { nearest, .. } if nearest.iter().any(|n| n == "pistols")),
        "{err}"
    );
    // Every row of every keyed table has its constant, with the row it names.
    for t in starleader::SYSTEM.tables.iter().filter(|t| t.kind == "keyed") {
        for (row, key) in t.keys.iter().enumerate() {
            let k = t.key(key).unwrap();
            assert_eq!((k.table, usize::from(k.row)), (t.id, row), "{} {key}", t.name);
        }
    }
}

#[test]
fn outcomes_serialize_as_the_cli_prints_them() {
    let inputs = FireInputs::new(keys::PISTOLS_GHAZI_10_7);
    for seed in 0..20 {
        let out = fire(&mut Seeded::new(seed), &mut NoTrace, &inputs).unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            serde_json::to_string(&out.to_value().to_json()).unwrap()
        );
    }
    assert_eq!(serde_json::to_string(&starleader::FireResult::Hit).unwrap(), "\"hit\"");
}

#[test]
fn the_interpreter_fills_defaults_as_generated_code_does() {
    let rules = rulebook::builtin_rules().unwrap();
    let (_, interp) = rt::find_resolver(rules.systems(), "starleader.fire").unwrap();
    let (_, compiled) = rt::find_resolver(rulebook::SYSTEMS, "starleader.fire").unwrap();
    let mut m = rt::Inputs::new();
    m.insert("weapon".into(), rt::Value::Key(keys::PISTOLS_GHAZI_10_7));
    for seed in 0..20 {
        let a = interp.run_quiet(&mut Seeded::new(seed), &mut NoTrace, &m);
        let b = compiled.run_quiet(&mut Seeded::new(seed), &mut NoTrace, &m);
        assert_eq!(a, b);
        assert!(b.is_ok());
    }
    assert_eq!(
        interp.run_quiet(&mut Seeded::new(1), &mut NoTrace, &rt::Inputs::new()),
        compiled.run_quiet(&mut Seeded::new(1), &mut NoTrace, &rt::Inputs::new())
    );
}
