//! Fuzz target: rules text that checks clean, then runs. Arbitrary rules text (one or more files,
//! `//== SYSTEM/FILE.rules` lines between them, as `check` takes it); when it checks with no
//! error, the last three resolvers of each system whose inputs all have defaults run in the
//! interpreter, traced with seeded dice and as exact odds under a small branch limit (three, not
//! all: each may take its whole step limit, seconds in the interpreter). Never a panic, a stack overflow or a hang:
//! the seeds (fuzz/make-corpus.sh) are the shapes that once crashed or ran forever (record types
//! holding themselves, deep records, long call chains, nested loops, lists that double), so the
//! fuzzer mutates from them. Each resolution ends within the step limit (`rt::MAX_STEPS`), a list
//! stops at `rt::MAX_LIST_LEN` items and a trace at `rt::MAX_TRACE_EVENTS` events.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use rulebook_runtime as rt;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(rules) = rulebook_interp::Rules::from_sources(rulebook_fuzz::sources(&text)) else { return };
    for s in rules.systems() {
        for r in s.resolvers.iter().rev().take(3) {
            let Ok(inputs) = rt::bind_inputs(r, &[], None) else { continue };
            let mut trace = rt::Recorder::new();
            let _ = r.run_traced(&mut rt::Seeded::new(7), &mut trace, &inputs);
            assert!(trace.events.len() <= rt::trace::MAX_TRACE_EVENTS + 1, "the trace keeps its limit");
            if let Ok(d) = rt::with_leaf_limit(200, || r.odds(&inputs)) {
                assert_eq!(d.total(), rt::Prob::one(), "{}.{}: odds sum to 1", s.name, r.name);
            }
        }
    }
});
