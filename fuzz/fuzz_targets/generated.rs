//! Fuzz target: the grammar-aware generator (`tests/rulegen/`) driven by libFuzzer's bytes. Every
//! system it writes must check with zero diagnostics and generate Rust; the interpreter then runs
//! every resolver on inputs and dice drawn from the same bytes, and its exact odds (under a small
//! branch limit) sum to exactly 1.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use rulebook_compiler::{codegen, driver};
use rulebook_fuzz::{rulegen, Bytes};
use rulebook_runtime as rt;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let files = rulegen::system(&mut bytes, "gen");
    let pairs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let c = driver::compile_sources(driver::sources_from_pairs("gen", &pairs));
    if !c.diagnostics.is_empty() {
        let text: String = files.iter().map(|(p, t)| format!("//== {p}\n{t}")).collect();
        panic!("generated rules do not check cleanly:\n{text}\n{}", c.render());
    }
    let Some(program) = c.program.as_ref() else { panic!("no program without diagnostics") };
    if let Err(e) = codegen::generate(program, "") {
        panic!("generated rules failed code generation: {e}");
    }
    // The interpreter keeps every load for the rest of the process (`'static` registries), so
    // only a sixteenth of the inputs load one, to keep memory flat over a long run.
    if bytes.u64() % 16 != 0 {
        return;
    }
    let rules = rulebook_interp::Rules::from_sources(c.sources).unwrap_or_else(|e| panic!("{e}"));
    for s in rules.systems() {
        for r in s.resolvers {
            let inputs = rulegen::inputs::inputs(&mut bytes, r);
            let _ = r.run_traced(&mut rt::Seeded::new(bytes.u64()), &mut rt::Recorder::new(), &inputs);
            if let Ok(d) = rt::with_leaf_limit(2_000, || r.odds(&inputs)) {
                assert_eq!(d.total(), rt::Prob::one(), "{}: odds sum to 1", r.name);
            }
        }
    }
});
