//! Helpers shared by the tests that run the `rulebook` binary as a user does.
#![allow(dead_code, reason = "each test file uses its own subset")]

use rulebook::runtime::Prob;
use std::process::{Command, Output};

/// Runs the built binary from the project root.
pub fn rulebook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run rulebook: {e}"))
}

/// An exact probability as `--json` prints it ("n/d").
pub fn prob(text: &str) -> Prob {
    let (n, d) = text.split_once('/').unwrap_or_else(|| panic!("not a fraction: {text}"));
    let n = n.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let d = d.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    Prob::new(n, d).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Inputs for `resolve`: `--set` pairs and a YAML mapping (for records and lists), as the CLI takes them.
pub fn bind(path: &str, sets: &[(&str, &str)], yaml: &str) -> (&'static rulebook::runtime::ResolverInfo, rulebook::runtime::Inputs) {
    let (_, r) = rulebook::runtime::find_resolver(rulebook::SYSTEMS, path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let sets: Vec<(String, String)> = sets.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let yaml: serde_yaml::Value = serde_yaml::from_str(if yaml.is_empty() { "{}" } else { yaml }).unwrap_or_else(|e| panic!("{yaml}: {e}"));
    let inputs = rulebook::runtime::bind_inputs(r, &sets, Some(&yaml)).unwrap_or_else(|e| panic!("{path}: {e}"));
    (r, inputs)
}

/// Runs a resolver once on scripted faces (the script must be used up exactly).
pub fn resolve(path: &str, sets: &[(&str, &str)], yaml: &str, faces: &[i64]) -> Result<rulebook::runtime::Value, rulebook::runtime::Error> {
    let (r, inputs) = bind(path, sets, yaml);
    let mut dice = rulebook::runtime::Scripted::new(faces.to_vec());
    let out = r.run_quiet(&mut dice, &mut rulebook::runtime::NoTrace, &inputs)?;
    assert_eq!(dice.remaining(), 0, "{path}: {} scripted faces left unused", dice.remaining());
    Ok(out)
}

/// Runs a resolver once on seeded dice: for refusals, which come after the resolver has run to its end
/// (every broken limit is reported at once), dice and all.
pub fn attempt(path: &str, sets: &[(&str, &str)], yaml: &str) -> Result<rulebook::runtime::Value, rulebook::runtime::Error> {
    let (r, inputs) = bind(path, sets, yaml);
    r.run_quiet(&mut rulebook::runtime::Seeded::new(0), &mut rulebook::runtime::NoTrace, &inputs)
}

/// Exact odds of a resolver.
pub fn odds(
    path: &str,
    sets: &[(&str, &str)],
    yaml: &str,
) -> Result<rulebook::runtime::Distribution<rulebook::runtime::Value>, rulebook::runtime::Error> {
    let (r, inputs) = bind(path, sets, yaml);
    rulebook::runtime::odds_dyn(r, &inputs)
}

/// One output of an outcome, as text ("7.5", "hit", "true").
pub fn field(v: &rulebook::runtime::Value, name: &str) -> String {
    v.field(name).unwrap_or_else(|| panic!("no output `{name}` in {v}")).to_string()
}

/// The refusal messages of a rejected situation; panics on success or on another error.
pub fn refusals(r: Result<rulebook::runtime::Value, rulebook::runtime::Error>) -> Vec<String> {
    match r {
        Err(rulebook::runtime::Error::Rejected { violations }) => {
            violations.into_iter().map(|v| format!("{} [{}]", v.message, v.cite)).collect()
        }
        Err(e) => panic!("expected the rules to refuse, got the error: {e}"),
        Ok(v) => panic!("expected the rules to refuse, got the outcome {v}"),
    }
}
