//! Fuzz target: arbitrary `--set` pairs and `--input` YAML against every built-in resolver. The
//! first line names the resolver, then `NAME=VALUE` lines, then `---` and the YAML. Binding never
//! panics; the compiled and interpreted registries bind alike (when built with them); a bound input is of its declared
//! type, and binding its JSON form again gives the same inputs.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use rulebook_runtime as rt;
use rulebook_fuzz::{compiled, interpreted};

fn fits(v: &rt::Value, ty: &rt::Ty) -> bool {
    use rt::Value;
    match (v, ty) {
        (Value::Int(n), rt::Ty::Int { min, max }) => min <= n && n <= max,
        (Value::List(xs), rt::Ty::List(inner)) => xs.iter().all(|x| fits(x, inner)),
        (Value::None, rt::Ty::Opt(_)) => true,
        (v, rt::Ty::Opt(inner)) => fits(v, inner),
        (Value::Bool(_), rt::Ty::Bool) | (Value::Dec(_), rt::Ty::Dec) | (Value::Text(_), rt::Ty::Text) => true,
        (Value::Enum(i, name), rt::Ty::Enum(e)) => e.variants.get(usize::from(*i)) == Some(name),
        (Value::Key(k), rt::Ty::Key(tables)) => tables.iter().any(|t| t.id == k.table && t.keys.get(usize::from(k.row)) == Some(&k.name)),
        (Value::Record(fields), rt::Ty::Struct(rec)) => {
            fields.len() == rec.fields.len() && fields.iter().zip(rec.fields).all(|((n, v), f)| *n == f.name && fits(v, f.ty))
        }
        (Value::Record(_), rt::Ty::Record(_)) => true,
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let case = rulebook_fuzz::bind_case(text);
    let Ok((_, r)) = rt::find_resolver(interpreted(), case.path) else { return };
    let yaml = match case.yaml.map(serde_yaml::from_str::<serde_yaml::Value>) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(_)) => return,
    };
    let bound = rt::bind_inputs(r, &case.sets, yaml.as_ref());
    if let Some(systems) = compiled() {
        let (_, rc) = rt::find_resolver(systems, case.path).unwrap_or_else(|e| panic!("{e}"));
        let again = rt::bind_inputs(rc, &case.sets, yaml.as_ref());
        assert_eq!(format!("{bound:?}"), format!("{again:?}"), "compiled and interpreted registries bind alike");
    }
    if case.sets.is_empty() {
        if let Some(y) = case.yaml {
            assert_eq!(format!("{bound:?}"), format!("{:?}", rt::bind_yaml(r, y)), "bind_yaml is bind_inputs");
        }
    }
    let Ok(inputs) = bound else { return };
    assert_eq!(inputs.len(), r.inputs.len(), "every input bound");
    for i in r.inputs {
        let v = inputs.get(i.name).unwrap_or_else(|| panic!("{} not bound", i.name));
        assert!(fits(v, i.ty), "{} = {v:?} is not a {}", i.name, i.ty);
    }
    let json = serde_json::Value::Object(inputs.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()).to_string();
    let yaml: serde_yaml::Value = serde_yaml::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    let round = rt::bind_inputs(r, &[], Some(&yaml)).unwrap_or_else(|e| panic!("the bound inputs' own form is refused: {e}\n{json}"));
    assert_eq!(round, inputs, "binding the bound inputs again gives them back\n{json}");
});
