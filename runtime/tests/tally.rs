//! The intervals a tally of seeded runs gives its estimates (`Tally::proportion`).

use rulebook_runtime::{Tally, Value};

/// k runs of n whose result was a hit.
fn tally(k: u64, n: u64) -> Tally {
    let mut part = Tally::default();
    for i in 0..n {
        let result = if i < k { Value::Enum(0, "hit") } else { Value::Enum(1, "miss") };
        part.add_flat(&Value::Record(vec![("result", result)]));
    }
    // Counts are read off a merged tally, as a simulation's threads give theirs.
    let mut t = Tally::default();
    t.merge(part);
    t
}

/// Issue 44: 100 runs of a certain outcome gave the interval [0.963, 0.9999999999999999], so
/// `sim --exact-check` called an exact 1/1 outside it. The ends are rounded outward, and 0 of n and
/// n of n have exact ends.
#[test]
fn a_certain_or_impossible_outcome_lies_inside_its_interval() {
    for n in [1u64, 3, 7, 100, 1000, 12_345] {
        for k in [0, 1, n / 3, n / 2, n - 1, n] {
            let e = tally(k, n).proportion("result", "hit");
            let p = k as f64 / n as f64;
            assert!(0.0 <= e.low && e.low <= p && p <= e.high && e.high <= 1.0, "{k} of {n}: {e:?}");
            if k == n {
                assert_eq!(e.high, 1.0, "{n} of {n}");
            }
            if k == 0 {
                assert_eq!(e.low, 0.0, "0 of {n}");
            }
        }
    }
}
