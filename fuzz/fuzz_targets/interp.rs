//! Fuzz target: the interpreter on random valid inputs of the built-in rules, against the
//! generated code of the same text. The first line names the resolver (`system.resolver`); the
//! bytes after it choose the inputs, a dice seed and scripted faces. Both backends must give the
//! same outcome or error and the same trace, with seeded and with scripted dice, and, under a
//! small branch limit, the same exact odds, which sum to exactly 1. Built without the compiled
//! rules (feature `compiled` off, as CI does) it checks the interpreter alone.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use rulebook_fuzz::{rulegen, Bytes};
use rulebook_runtime as rt;
use rulebook_fuzz::{compiled, interpreted};

fn run(r: &rt::ResolverInfo, dice: &mut dyn rt::Dice, inputs: &rt::Inputs) -> (Result<rt::Value, rt::Error>, Vec<rt::Event>) {
    let mut trace = rt::Recorder::new();
    let out = r.run_traced(dice, &mut trace, inputs);
    (out, trace.events)
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let Ok(path) = std::str::from_utf8(&data[..split]) else { return };
    let Ok((_, i)) = rt::find_resolver(interpreted(), path.trim()) else { return };
    // Without the compiled rules (CI's short pass) the interpreter is compared with itself: no
    // panic, and odds that sum to 1.
    let c = match compiled() {
        Some(systems) => rt::find_resolver(systems, path.trim()).unwrap_or_else(|e| panic!("{e}")).1,
        None => i,
    };
    let mut bytes = Bytes::new(data.get(split + 1..).unwrap_or(&[]));
    let inputs = rulegen::inputs::inputs(&mut bytes, i);
    let seed = bytes.u64();
    let (a, b) = (run(c, &mut rt::Seeded::new(seed), &inputs), run(i, &mut rt::Seeded::new(seed), &inputs));
    assert_eq!(a, b, "{path}: the backends differ on seed {seed}, inputs {inputs:?}");
    let faces: Vec<i64> = (0..64).map(|_| rulegen::Entropy::below(&mut bytes, 8) as i64 - 1).collect();
    let (a, b) = (
        run(c, &mut rt::Scripted::new(faces.clone()), &inputs),
        run(i, &mut rt::Scripted::new(faces.clone()), &inputs),
    );
    assert_eq!(a, b, "{path}: the backends differ on faces {faces:?}, inputs {inputs:?}");
    if rulegen::Entropy::below(&mut bytes, 4) == 0 {
        let b = rt::with_leaf_limit(1_000, || i.odds(&inputs));
        if let Ok(d) = &b {
            assert_eq!(d.total(), rt::Prob::one(), "{path}: odds sum to 1");
        }
        if !std::ptr::eq(c, i) {
            let a = rt::with_leaf_limit(1_000, || c.odds(&inputs));
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{path}: the backends' exact odds differ");
        }
    }
});
