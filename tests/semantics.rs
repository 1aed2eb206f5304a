//! What a body means is defined once, in `docs/dsl.md`, and both backends follow it (issue 39):
//! a failed `require` stops the resolution where its group of checks ends, and a `??` fallback is
//! evaluated only when it is needed. `tests/corpus_compiles.rs` runs `snapshots/corpus/ok/semantics.rules`
//! in both backends; these tests run the books' own rules through the command line.

mod common;

use common::rulebook;

/// `striker.gravity_movement` divides by the gravity after its `require gravity > 0`: the rule's
/// own refusal, not "division by zero", compiled and interpreted.
#[test]
fn a_failed_require_stops_before_the_division_it_guards() {
    let set = ["--set", "rate_cm=10", "--set", "gravity=0"];
    for rules in [None, Some("rules-src")] {
        let mut args = vec!["roll", "striker.gravity_movement"];
        args.extend(set);
        if let Some(dir) = rules {
            args.extend(["--rules", dir]);
        }
        let out = rulebook(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{rules:?}: {stderr}");
        assert!(
            stderr.contains("the rules reject this situation: gravity must be above 0 G [Striker 53.B]"),
            "{rules:?}: {stderr}"
        );
        assert!(!stderr.contains("division"), "{rules:?}: {stderr}");
    }
}
