//! Exact odds tests: the distinct-value enumerator against an independent face-by-face brute
//! force, `Prob` arithmetic and formatting, the u128 overflow fallback, error propagation, and a
//! seeded Monte Carlo cross-check.

use num_bigint::BigInt;
use num_rational::BigRational;
use rulebook_runtime::{enumerate, enumerate_with_limit, with_plain_calls, Dice, DiceSpec, Error, Prob, Read, Seeded};
use std::collections::BTreeMap;

/// Brute force: every die face is its own branch with weight 1/sides, so a 4d6 roll is 1296
/// leaves. Shares nothing with `Enumerator` except `DiceSpec::read_faces`. No rerolls (those would
/// make the face tree infinite).
struct FaceTree {
    /// (face index, sides) per die thrown so far on this leaf.
    path: Vec<(u16, u16)>,
    depth: usize,
    faces: Vec<u16>,
}

impl Dice for FaceTree {
    fn roll(&mut self, spec: &DiceSpec) -> Result<i64, Error> {
        assert!(spec.reroll.is_none());
        self.faces.clear();
        let depth = match spec.read {
            Read::Explode(d) => d,
            _ => 0,
        };
        for _ in 0..spec.count {
            // An exploding die branches again, face by face, while it shows its highest face.
            let mut extra = 0;
            loop {
                if self.depth == self.path.len() {
                    self.path.push((0, spec.sides));
                }
                let (i, _) = self.path[self.depth];
                self.depth += 1;
                let face = i + spec.lowest_face();
                self.faces.push(face);
                if extra == depth || face != spec.highest_face() {
                    break;
                }
                extra += 1;
            }
        }
        Ok(spec.read_faces(&self.faces))
    }
    fn last_faces(&self) -> &[u16] {
        &self.faces
    }
}

fn brute<O: Ord>(mut f: impl FnMut(&mut dyn Dice) -> Result<O, Error>) -> BTreeMap<O, BigRational> {
    let mut t = FaceTree {
        path: Vec::new(),
        depth: 0,
        faces: Vec::new(),
    };
    let mut out: BTreeMap<O, BigRational> = BTreeMap::new();
    loop {
        t.depth = 0;
        let o = f(&mut t).unwrap();
        t.path.truncate(t.depth);
        let den: BigInt = t.path.iter().map(|&(_, s)| BigInt::from(s)).product();
        let w = BigRational::new(BigInt::from(1), den);
        *out.entry(o).or_insert_with(|| BigRational::from_integer(BigInt::from(0))) += w;
        loop {
            match t.path.last_mut() {
                None => return out,
                Some((i, s)) if *i + 1 < *s => {
                    *i += 1;
                    break;
                }
                Some(_) => {
                    t.path.pop();
                }
            }
        }
    }
}

fn check_against_brute<O: Ord + Clone + std::fmt::Debug>(name: &str, f: impl Fn(&mut dyn Dice) -> Result<O, Error>) {
    let exact = enumerate(|e| f(e)).unwrap();
    let slow = brute(|d| f(d));
    let exact_map: BTreeMap<O, BigRational> = exact.outcomes.iter().map(|(o, p)| (o.clone(), p.to_big())).collect();
    assert_eq!(exact_map, slow, "{name}");
    assert_eq!(exact.total(), Prob::one(), "{name}");
    // Outcomes come sorted and distinct.
    assert!(exact.outcomes.windows(2).all(|w| w[0].0 < w[1].0), "{name}");
}

const D6: DiceSpec = DiceSpec::new(1, 6);
const TWO_D6: DiceSpec = DiceSpec::new(2, 6);

#[test]
fn enumerator_agrees_with_brute_force() {
    check_against_brute("2d6 then 1d6 on 8+", |d| {
        let a = d.roll(&TWO_D6)?;
        Ok(if a >= 8 { a + d.roll(&D6)? } else { a })
    });
    check_against_brute("4d6 keep 3 vs flux", |d| {
        let a = d.roll(&DiceSpec {
            read: Read::KeepHighest(3),
            ..DiceSpec::new(4, 6)
        })?;
        let b = d.roll(&DiceSpec {
            read: Read::Flux,
            ..TWO_D6
        })?;
        Ok((a > 10, b.signum()))
    });
    check_against_brute("1d6 decides how many d6", |d| {
        let n = d.roll(&D6)?;
        d.roll(&DiceSpec::new(n as u16, 6))
    });
    check_against_brute("percentile then zero-based damage", |d| {
        let p = d.roll(&DiceSpec {
            zero_based: true,
            read: Read::Percentile,
            ..DiceSpec::new(2, 10)
        })?;
        if p <= 35 {
            Ok(Some(d.roll(&DiceSpec {
                zero_based: true,
                ..DiceSpec::new(1, 10)
            })?))
        } else {
            Ok(None)
        }
    });
    check_against_brute("repeat until 6, at most 4 times", |d| {
        for i in 1..=4 {
            if d.roll(&D6)? == 6 {
                return Ok(i);
            }
        }
        Ok(0)
    });
    check_against_brute("sum floor then bad flux", |d| {
        let a = d.roll(&DiceSpec {
            read: Read::SumFloor { per_die: -2, floor: 0 },
            ..TWO_D6
        })?;
        let b = d.roll(&DiceSpec {
            read: Read::BadFlux,
            ..TWO_D6
        })?;
        Ok(a + b)
    });
}

/// Exploding dice: the enumerator's analytic distribution of one die, convolved, against the
/// face-by-face tree (every explosion its own branch).
#[test]
fn many_leaves_merge_as_they_go_and_still_agree_with_brute_force() {
    // 5 × 6^4 + 1 = 6,481 leaves, past the enumerator's first merge of its leaves (4,096), whose outcomes
    // come in an order that is not sorted (the sum mod 7, then the last die); and leaves that end
    // alike one after the other (every leaf of a first die 6 ends as `None`).
    check_against_brute("five dice, leaves merged on the way", |d| {
        let first = d.roll(&D6)?;
        if first == 6 {
            return Ok(None);
        }
        let mut sum = first;
        let mut last = 0;
        for _ in 0..4 {
            last = d.roll(&D6)?;
            sum += last;
        }
        Ok(Some((sum % 7, 6 - last)))
    });
}

/// A roll read only through a table's rows (`Dice::roll_classed`): exact odds branch over the
/// rows its values fall in, each at the row's least value, and still agree with brute force face
/// by face. A value in no row (2 here) stays its own branch, so a lookup fails on it as before.
#[test]
fn rolls_read_through_a_table_branch_over_its_rows() {
    const ROWS: [(i64, i64); 3] = [(3, 6), (7, 7), (8, 12)];
    let row = |v: i64| ROWS.iter().position(|&(lo, hi)| lo <= v && v <= hi);
    check_against_brute("2d6 through rows, then 1d6 through two rows on the middle one", |d| {
        let k = row(d.roll_classed(&TWO_D6, "t", &ROWS)?);
        let high = k == Some(1) && d.roll_classed(&D6, "u", &[(1, 3), (4, 6)])? > 3;
        Ok((k, high))
    });

    let mut seen = Vec::new();
    let d = enumerate(|e| {
        let v = e.roll_classed(&TWO_D6, "t", &ROWS)?;
        seen.push(v);
        Ok(row(v))
    })
    .unwrap();
    assert_eq!(seen, vec![2, 3, 7, 8], "one leaf per row met, at its least value");
    let p = |n, d| Prob::new(n, d).unwrap();
    assert_eq!(
        d.outcomes,
        vec![(None, p(1, 36)), (Some(0), p(14, 36)), (Some(1), p(6, 36)), (Some(2), p(15, 36))]
    );

    // Plain enumeration (the reference the shortcuts must equal) goes value by value.
    let mut plain = 0;
    let dp = with_plain_calls(|| {
        enumerate(|e| {
            plain += 1;
            Ok(row(e.roll_classed(&TWO_D6, "t", &ROWS)?))
        })
    })
    .unwrap();
    assert_eq!(plain, 11);
    assert_eq!(dp, d);
}

#[test]
fn exploding_dice_agree_with_brute_force() {
    let explode = |count, sides, depth| DiceSpec {
        read: Read::Explode(depth),
        ..DiceSpec::new(count, sides)
    };
    check_against_brute("1d6 explode 1", |d| d.roll(&explode(1, 6, 1)));
    check_against_brute("1d10 explode 3", |d| d.roll(&explode(1, 10, 3)));
    check_against_brute("2d6 explode 2", |d| d.roll(&explode(2, 6, 2)));
    check_against_brute("3d4 explode 1 at least 9", |d| Ok(d.roll(&explode(3, 4, 1))? >= 9));
    check_against_brute("zero-based 2d3 explode 2", |d| {
        d.roll(&DiceSpec {
            zero_based: true,
            ..explode(2, 3, 2)
        })
    });
    check_against_brute("1d6 explode 2 then that many d6", |d| {
        let n = d.roll(&explode(1, 6, 2))?;
        d.roll(&DiceSpec::new(u16::try_from(n % 4).unwrap_or(0), 6))
    });
}

/// Exact odds of exploding dice sum to exactly 1 for every depth, and the depth caps the reading:
/// a die that reached its depth stops, so the largest value is count * sides * (depth + 1).
#[test]
fn exploding_odds_sum_to_one_at_every_depth() {
    for sides in [2u16, 3, 6, 10] {
        for depth in [1u8, 2, 3, 5, 8] {
            for count in [1u16, 2] {
                let s = DiceSpec {
                    read: Read::Explode(depth),
                    ..DiceSpec::new(count, sides)
                };
                let Ok(dist) = enumerate(|d| d.roll(&s)) else {
                    // Only past the documented u64 bound: sides^(count * (depth + 1)).
                    let throws = u32::from(count) * (u32::from(depth) + 1);
                    assert!(u64::from(sides).checked_pow(throws).is_none(), "{}", s.notation());
                    continue;
                };
                assert_eq!(dist.total(), Prob::one(), "{}", s.notation());
                let top = i64::from(count) * i64::from(sides) * (i64::from(depth) + 1);
                assert_eq!(dist.outcomes.last().map(|(v, _)| *v), Some(top), "{}", s.notation());
                assert_eq!(s.max(), top);
                // Reaching the top takes every throw of every die at its highest face.
                let p_top = Prob::new(1, u128::from(sides).pow(u32::from(count) * (u32::from(depth) + 1))).unwrap();
                assert_eq!(dist.probability(|&v| v == top), p_top, "{}", s.notation());
                // A die never stops on its highest face before its depth: a single die never reads sides.
                if count == 1 {
                    assert_eq!(dist.probability(|&v| v == i64::from(sides)), Prob::zero(), "{}", s.notation());
                }
            }
        }
    }
}

#[test]
fn known_answers() {
    let p = |n, d| Prob::new(n, d).unwrap();
    let dist = enumerate(|d| Ok(d.roll(&DiceSpec::new(4, 6))? <= 12)).unwrap();
    assert_eq!(dist.outcomes, vec![(false, p(287, 432)), (true, p(145, 432))]);
    // Reroll: the kept values keep their relative weights (2d6 reroll 10-12: 7 is 6/30).
    let dist = enumerate(|d| {
        d.roll(&DiceSpec {
            reroll: Some((10, 12)),
            ..TWO_D6
        })
    })
    .unwrap();
    assert_eq!(dist.probability(|&v| v == 7), p(1, 5));
    assert_eq!(dist.outcomes.len(), 8);
    // No rolls at all: one certain outcome.
    let dist = enumerate(|_| Ok("certain")).unwrap();
    assert_eq!(dist.outcomes, vec![("certain", Prob::one())]);
}

#[test]
fn marginal_sums_fields() {
    let dist = enumerate(|d| Ok((d.roll(&D6)? % 2, d.roll(&D6)? >= 5))).unwrap();
    let m = dist.marginal(|&(_, b)| b);
    assert_eq!(
        m.outcomes,
        vec![(false, Prob::new(2, 3).unwrap()), (true, Prob::new(1, 3).unwrap())]
    );
}

#[test]
fn weight_overflow_falls_back_to_big_and_stays_exact() {
    // 60 rolls with a single distinct value (total 6 each) push the leaf weight denominator to
    // 6^60 > u128::MAX; the answer must still be exactly the 2d6 distribution.
    let certain = DiceSpec {
        read: Read::SumFloor { per_die: 0, floor: 6 },
        ..D6
    };
    let dist = enumerate(|d| {
        for _ in 0..60 {
            d.roll(&certain)?;
        }
        d.roll(&TWO_D6)
    })
    .unwrap();
    assert_eq!(dist.outcomes.len(), 11);
    assert_eq!(dist.probability(|&v| v == 7), Prob::new(1, 6).unwrap());
    assert!(dist.outcomes.iter().all(|(_, p)| matches!(p, Prob::Small(_))));
    assert_eq!(dist.total(), Prob::one());
}

/// Each roll keeps the weight of the path up to it, reused while no branch before it moves: here
/// the path overflows u128 on some branches of a roll and not on others, and the rolls after it
/// change with the branches taken. Every outcome must still have exactly its product weight.
#[test]
fn reused_path_weights_stay_exact_across_overflow_and_changing_paths() {
    let certain = DiceSpec {
        read: Read::SumFloor { per_die: 0, floor: 6 },
        ..D6
    };
    let dist = enumerate(|d| {
        for _ in 0..30 {
            d.roll(&certain)?;
        }
        let a = d.roll(&D6)?;
        if a % 2 == 0 {
            for _ in 0..30 {
                d.roll(&certain)?;
            }
        }
        let b = d.roll(&TWO_D6)?;
        let c = if b == 12 || a == 1 { d.roll(&D6)? } else { 0 };
        Ok((a, b, c))
    })
    .unwrap();
    let two_d6 = |b: i64| Prob::new(6 - (b - 7).unsigned_abs() as u128, 36).unwrap();
    // a = 1 always throws c; otherwise only b = 12 does.
    assert_eq!(dist.outcomes.len(), 11 * 6 + 5 * (10 + 6));
    for ((a, b, c), p) in &dist.outcomes {
        let third = if *b == 12 || *a == 1 {
            Prob::new(1, 6).unwrap()
        } else {
            Prob::one()
        };
        assert_eq!(*p, Prob::new(1, 6).unwrap().mul(&two_d6(*b)).mul(&third), "({a}, {b}, {c})");
    }
    assert_eq!(dist.total(), Prob::one());
}

#[test]
fn errors_propagate_and_limits_hold() {
    let err = enumerate(|d| {
        if d.roll(&D6)? == 6 {
            return Err(Error::Overflow);
        }
        Ok(())
    });
    assert_eq!(err, Err(Error::Overflow));
    let err = enumerate_with_limit(100, |d| Ok(d.roll(&DiceSpec::new(3, 6))? + d.roll(&DiceSpec::new(3, 6))?));
    assert_eq!(err, Err(Error::TooManyBranches { limit: 100 }));
    let err = enumerate(|d| d.roll(&DiceSpec::new(2, 0)));
    assert!(matches!(err, Err(Error::Domain { .. })));
    // Zero dice are no error: one branch, the value 0, inside a larger tree.
    let d = enumerate(|d| Ok(d.roll(&D6)? + d.roll(&DiceSpec::new(0, 6))?)).unwrap();
    assert_eq!(d.outcomes.len(), 6);
    // A resolver whose rolls change between replays is detected, not silently mis-weighted.
    let mut calls = 0;
    let err = enumerate(|d| {
        calls += 1;
        d.roll(if calls % 2 == 0 { &D6 } else { &TWO_D6 })
    });
    assert!(matches!(err, Err(Error::Internal { .. })));
}

#[test]
fn prob_arithmetic_and_format() {
    let p = |n, d| Prob::new(n, d).unwrap();
    assert_eq!(p(1, 6).add(&p(1, 3)), p(1, 2));
    assert_eq!(p(2, 3).mul(&p(3, 4)), p(1, 2));
    assert_eq!(p(145, 432).to_string(), "145/432");
    assert_eq!(p(2, 4).numer_denom_string(), "1/2");
    // A whole number prints plainly (issue 42, point 12); the n/d form stays for JSON.
    assert_eq!(Prob::zero().to_string(), "0");
    assert_eq!(Prob::one().to_string(), "1");
    assert_eq!(Prob::zero().numer_denom_string(), "0/1");
    assert_eq!(Prob::one().numer_denom_string(), "1/1");
    for (prob, dec, text) in [
        (p(145, 432), 2, "33.56"),
        (p(1, 3), 2, "33.33"),
        (p(2, 3), 2, "66.67"),
        (p(1, 200), 0, "1"),
        (p(1, 201), 0, "0"),
        (p(1, 8), 1, "12.5"),
        (p(1, 16), 1, "6.3"),
        (Prob::zero(), 2, "0.00"),
        (Prob::one(), 2, "100.00"),
        (p(1, 1_000_000), 2, "0.00"),
    ] {
        assert_eq!(prob.percent(dec), text, "{prob}");
    }
    for (prob, k, len) in [
        (p(1, 2), 40, 20),
        (p(1, 80), 40, 1),
        (p(1, 81), 40, 0),
        (p(145, 432), 40, 13),
        (Prob::one(), 40, 40),
    ] {
        assert_eq!(prob.scale_round(k), len, "{prob}");
    }
    assert_eq!(serde_json::to_string(&p(145, 432)).unwrap(), "\"145/432\"");
    assert!(p(1, 3) < p(1, 2));
    assert_eq!(Prob::new(1, 0), Err(Error::DivisionByZero));
}

#[test]
fn prob_overflow_switches_to_big_and_compares_by_value() {
    let tiny = Prob::new(1, u128::MAX).unwrap();
    let tinier = tiny.mul(&Prob::new(1, 3).unwrap());
    assert!(matches!(tinier, Prob::Big(_)));
    assert!(tinier < tiny);
    assert_eq!(tinier.mul(&Prob::new(3, 1).unwrap()), tiny);
    // Mixed representations compare by value.
    let half_big = Prob::Big(Box::new(BigRational::new(BigInt::from(1), BigInt::from(2))));
    assert_eq!(half_big, Prob::new(1, 2).unwrap());
    assert_eq!(half_big.cmp(&Prob::new(1, 2).unwrap()), std::cmp::Ordering::Equal);
    let sum = tiny.add(&Prob::new(u128::MAX - 1, u128::MAX).unwrap());
    assert_eq!(sum, Prob::one());
}

/// Seeded Monte Carlo of a branching resolver against its exact enumeration, integer counting:
/// every outcome's frequency over 100k runs is within 0.01 of its exact probability.
#[test]
fn monte_carlo_agrees_with_enumeration() {
    const N: u64 = 100_000;
    let resolver = |d: &mut dyn Dice| -> Result<i64, Error> {
        let a = d.roll(&TWO_D6)?;
        Ok(if a >= 8 { a + d.roll(&D6)? } else { a })
    };
    let exact = enumerate(|e| resolver(e)).unwrap();
    let mut seeded = Seeded::new(99);
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    for _ in 0..N {
        *counts.entry(resolver(&mut seeded).unwrap()).or_insert(0) += 1;
    }
    assert_eq!(
        counts.keys().collect::<Vec<_>>(),
        exact.outcomes.iter().map(|(o, _)| o).collect::<Vec<_>>()
    );
    for (o, p) in &exact.outcomes {
        let Prob::Small(r) = p else { panic!("small") };
        let (n, d) = (*r.numer(), *r.denom());
        let c = u128::from(counts[o]);
        // |c/N - n/d| <= 1/100  <=>  100 |c d - n N| <= d N
        let diff = (c * d).abs_diff(n * u128::from(N));
        assert!(100 * diff <= d * u128::from(N), "outcome {o}: {c} of {N} vs {p}");
    }
}

/// Opposed rolls (`Read::Opposed`): the first side's dice and modifier against the second's, read
/// as the difference. Exact odds equal the face-by-face brute force; with `reroll ties` they are
/// the brute force's odds given that the sides differ.
#[test]
fn opposed_dice_agree_with_brute_force() {
    let opp = |a: u16, b: u16, first_mod: i32, second_mod: i32| DiceSpec {
        read: Read::Opposed {
            first: a,
            first_mod,
            second_mod,
        },
        ..DiceSpec::new(a + b, 6)
    };
    check_against_brute("1d6+3 vs 1d6+4", |d| d.roll(&opp(1, 1, 3, 4)));
    check_against_brute("2d6 vs 1d6-1", |d| d.roll(&opp(2, 1, 0, -1)));
    check_against_brute("0d6+2 vs 1d6", |d| d.roll(&opp(0, 1, 2, 0)));
    check_against_brute("1d6 vs 2d6, then the winner's margin in d6", |d| {
        let m = d.roll(&opp(1, 2, 0, 0))?;
        d.roll(&DiceSpec::new(u16::try_from(m.max(0)).unwrap_or(0), 6))
    });
    assert_eq!(opp(2, 1, 0, -1).notation(), "2d6 vs 1d6-1");
    assert_eq!((opp(1, 1, 3, 4).min(), opp(1, 1, 3, 4).max()), (-6, 4));

    let raw_spec = opp(1, 1, 2, 3);
    let spec = DiceSpec {
        reroll: Some((0, 0)),
        ..raw_spec
    };
    assert_eq!(spec.notation(), "1d6+2 vs 1d6+3 reroll ties");
    let exact = enumerate(|d| d.roll(&spec)).unwrap();
    let raw = brute(|d| d.roll(&raw_spec));
    let kept: BigRational = raw.iter().filter(|(v, _)| **v != 0).map(|(_, p)| p.clone()).sum();
    assert_eq!(exact.total(), Prob::one());
    assert!(exact.outcomes.iter().all(|(v, _)| *v != 0));
    assert_eq!(exact.outcomes.len(), raw.len() - 1);
    for (v, p) in &exact.outcomes {
        assert_eq!(p.to_big(), raw[v].clone() / kept.clone(), "{v}");
    }
}

/// Scripted faces of an opposed roll: the first side's dice, then the second's, for each throw; a
/// tie takes a fresh throw of both, and the trace's counted values are each throw's two totals.
#[test]
fn opposed_rolls_take_scripted_faces_side_by_side() {
    let spec = DiceSpec {
        read: Read::Opposed {
            first: 1,
            first_mod: 1,
            second_mod: 0,
        },
        reroll: Some((0, 0)),
        ..DiceSpec::new(2, 6)
    };
    let mut d = rulebook_runtime::Scripted::new(vec![3, 4, 5, 2]);
    assert_eq!(d.roll(&spec).unwrap(), 4);
    assert_eq!(d.last_faces(), &[3, 4, 5, 2]);
    assert_eq!(spec.adjusted_faces(d.last_faces()), vec![4, 4, 6, 2]);
    // Both sides level whatever the dice: refused, never thrown forever.
    let level = DiceSpec {
        read: Read::Opposed {
            first: 0,
            first_mod: 2,
            second_mod: 2,
        },
        reroll: Some((0, 0)),
        ..DiceSpec::new(0, 6)
    };
    assert!(matches!(enumerate(|d| d.roll(&level)), Err(Error::RerollLimit)));
}

/// `Prob`'s sum and product against `BigRational`, on fractions small and near the 64-bit and
/// 128-bit edges (the 64-bit shortcut, `Ratio<u128>`'s own arithmetic and the big fallback): the
/// same value, reduced, and zero as 0/1.
#[test]
fn sums_and_products_are_exact_and_reduced_at_every_width() {
    use num_integer::Integer;
    let parts: Vec<u128> = vec![
        0,
        1,
        2,
        3,
        5,
        6,
        35,
        36,
        216,
        1296,
        46656,
        7_776,
        u128::from(u32::MAX),
        (1u128 << 63) - 25,
        u128::from(u64::MAX),
        u128::from(u64::MAX) + 1,
        1u128 << 100,
        (1u128 << 127) - 1,
        16_926_659_444_736,
        98_716_277_881_700_352,
    ];
    let mut fractions = Vec::new();
    for &n in &parts {
        for &d in &parts {
            if d != 0 && n <= d {
                fractions.push(Prob::new(n, d).unwrap_or_else(|e| panic!("{e}")));
            }
        }
    }
    let check = |p: &Prob, want: BigRational, what: &str| {
        assert_eq!(p.to_big(), want, "{what}");
        if let Prob::Small(r) = p {
            assert_eq!(r.numer().gcd(r.denom()), 1, "{what}: {r} is not reduced");
        }
    };
    for a in &fractions {
        for b in &fractions {
            let what = format!("{a} and {b}");
            check(&a.add(b), a.to_big() + b.to_big(), &format!("sum of {what}"));
            check(&a.mul(b), a.to_big() * b.to_big(), &format!("product of {what}"));
        }
    }
}
