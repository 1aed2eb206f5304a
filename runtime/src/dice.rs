//! Dice: what a throw is (`DiceSpec`, `Read`), its exact distribution, and the two concrete dice
//! sources used outside odds enumeration — `Seeded` (reproducible pseudo-random) and `Scripted`
//! (faces given by the user, for replaying a table-top situation).

use crate::error::Error;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How the faces of one throw become a single number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Read {
    /// Sum of faces.
    Sum,
    /// Sum of the k highest faces (drop = count - k).
    KeepHighest(u8),
    /// Sum of the k lowest faces.
    KeepLowest(u8),
    /// Count must be 2: first face minus second face (T5 flux).
    Flux,
    /// Count must be 2: smaller minus larger (always <= 0).
    BadFlux,
    /// Count must be 2 zero-based d10: tens*10+units, "00" reads 100 -> 1..=100.
    Percentile,
    /// Each face + per_die, never below floor, then summed.
    SumFloor { per_die: i8, floor: i8 },
    /// Exploding dice, summed: a die showing its highest face is thrown again and the new face
    /// added, again while it shows the highest face, at most `depth` extra throws per die (the
    /// last throw of a die that reached its depth is not exploded). Every face thrown counts.
    Explode(u8),
    /// An opposed roll: the first `first` dice are one side's, the rest the other's, and both
    /// sides add their modifier; the read is the first side's total minus the second's
    /// (`1d6+3 vs 1d6+4`). A reroll range `0..0` throws both sides again on a tie.
    Opposed { first: u16, first_mod: i32, second_mod: i32 },
}

/// One throw of dice and how it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiceSpec {
    /// Number of dice thrown (for KeepHighest etc. this includes the extra dice).
    pub count: u16,
    /// 6, 10, 100 ...
    pub sides: u16,
    /// Faces 0..sides-1 instead of 1..=sides (`1d10 zero_based` shows 0 to 9). Every die is
    /// 1-based unless the rules say `zero_based`, except the two d10s of a d100 (`Percentile`),
    /// which read 0 to 9 as tens and units. Scripted faces, seeded faces and traced faces all use
    /// this range.
    pub zero_based: bool,
    pub read: Read,
    /// Inclusive range of READ values that are rerolled (Striker 10-12).
    pub reroll: Option<(i64, i64)>,
}

/// How a d100 is written in traces and messages: its two faces are d10s read 0-9, tens then units
/// (0, 0 reads 100), unlike a plain d10, which shows 1-10.
pub const PERCENTILE_NOTATION: &str = "d100 (tens, units 0-9)";

/// Most dice a non-summing read will enumerate face by face (`distribution`).
pub const MAX_ENUMERATED_DICE: u16 = 8;
/// Most face combinations a non-summing read will enumerate (8d6 = 1_679_616 fits).
pub const MAX_ENUMERATED_COMBINATIONS: u64 = 2_000_000;
/// Bound on `count * sides` for convolution (summing reads); also keeps `sides^count` checks cheap.
pub const MAX_CONVOLUTION_WORK: u32 = 65_536;
/// A rerolling throw gives up after this many throws (`Error::RerollLimit`).
pub const MAX_REROLLS: u32 = 10_000;
/// The most dice one throw may have. The checker refuses a fixed or bounded count above it; a
/// count computed at run time is refused here, by every dice source alike.
pub const MAX_DICE: u16 = 1000;

impl DiceSpec {
    /// `count` dice of `sides` sides, summed, 1-based, no reroll.
    pub const fn new(count: u16, sides: u16) -> Self {
        DiceSpec {
            count,
            sides,
            zero_based: false,
            read: Read::Sum,
            reroll: None,
        }
    }

    /// Faces one throw takes, at least: `count`. An exploding die (`Read::Explode`) takes one
    /// more face for each explosion, so its throw can take more.
    pub fn faces_needed(&self) -> usize {
        usize::from(self.count)
    }

    /// The depth of an exploding read (extra throws per die at most); 0 for every other read.
    pub fn explode_depth(&self) -> u8 {
        match self.read {
            Read::Explode(d) => d,
            _ => 0,
        }
    }

    /// Lowest face on one die.
    pub fn lowest_face(&self) -> u16 {
        u16::from(!self.zero_based)
    }

    /// Highest face on one die.
    pub fn highest_face(&self) -> u16 {
        if self.zero_based {
            self.sides.saturating_sub(1)
        } else {
            self.sides
        }
    }

    /// `face` as a face one die of this spec shows (`lowest_face()..=highest_face()`), or `None`.
    /// The one check of faces given from outside: scripted (`--dice`) and asked (dice thrown at
    /// the table, rulebook-wasm) alike.
    pub fn face_on_die(&self, face: i64) -> Option<u16> {
        u16::try_from(face)
            .ok()
            .filter(|f| (self.lowest_face()..=self.highest_face()).contains(f))
    }

    /// Rejects specs no throw can satisfy, so later arithmetic never divides by zero or indexes
    /// past a two-dice read. Generated specs pass those checks; they guard hand-built ones. A
    /// count of 0 is valid for the summing reads: no faces, read as 0 (the reads of a fixed number
    /// of dice, flux, percentile and keep, still need theirs). A reroll range that covers every
    /// value (possible when it is computed at run time) is `Error::RerollLimit`.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |why: &str| {
            Err(Error::Domain {
                what: format!("dice {}: {why}", self.notation()),
            })
        };
        if self.sides == 0 {
            return bad("dice need at least one side");
        }
        if self.count > MAX_DICE {
            return bad(&format!("a throw has at most {MAX_DICE} dice"));
        }
        match self.read {
            Read::Flux | Read::BadFlux if self.count != 2 => bad("flux needs exactly 2 dice"),
            Read::Percentile if self.count != 2 || self.sides != 10 || !self.zero_based => bad("percentile needs 2 zero-based d10"),
            Read::KeepHighest(k) | Read::KeepLowest(k) if k == 0 || u16::from(k) > self.count => {
                bad("keep count must be between 1 and the number of dice")
            }
            Read::Opposed { first, .. } if first > self.count => bad("an opposed roll's first side has more dice than the throw"),
            _ => {
                // A range that rerolls every value could only throw forever: refused at once, by
                // every dice source alike (a reroll range may be computed at run time).
                match self.reroll {
                    Some((lo, hi)) if lo <= self.min() && hi >= self.max() => Err(Error::RerollLimit),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Applies `read` to one throw's faces. Missing faces (a short slice) count as the lowest
    /// face rather than panicking.
    pub fn read_faces(&self, faces: &[u16]) -> i64 {
        let face = |i: usize| i64::from(faces.get(i).copied().unwrap_or(self.lowest_face()));
        match self.read {
            Read::Sum | Read::Explode(_) => faces.iter().map(|&f| i64::from(f)).sum(),
            Read::KeepHighest(k) | Read::KeepLowest(k) => {
                let k = usize::from(k);
                // A small stack buffer keeps seeded rolls allocation-free for ordinary pools.
                let mut buf = [0u16; 32];
                let mut heap;
                let sorted: &mut [u16] = if faces.len() <= buf.len() {
                    let b = &mut buf[..faces.len()];
                    b.copy_from_slice(faces);
                    b
                } else {
                    heap = faces.to_vec();
                    &mut heap
                };
                sorted.sort_unstable();
                let kept: &[u16] = if matches!(self.read, Read::KeepLowest(_)) {
                    &sorted[..k.min(sorted.len())]
                } else {
                    &sorted[sorted.len().saturating_sub(k)..]
                };
                kept.iter().map(|&f| i64::from(f)).sum()
            }
            Read::Flux => face(0) - face(1),
            Read::BadFlux => {
                let (a, b) = (face(0), face(1));
                a.min(b) - a.max(b)
            }
            Read::Percentile => {
                let v = face(0) * 10 + face(1);
                if v == 0 {
                    100
                } else {
                    v
                }
            }
            Read::SumFloor { per_die, floor } => faces
                .iter()
                .map(|&f| (i64::from(f) + i64::from(per_die)).max(i64::from(floor)))
                .sum(),
            Read::Opposed { .. } => {
                let [a, b] = self.opposed_totals(faces);
                a - b
            }
        }
    }

    /// The two sides' totals (dice and modifier) of one throw of an opposed roll; `[0, 0]` for
    /// any other read.
    fn opposed_totals(&self, faces: &[u16]) -> [i64; 2] {
        let Read::Opposed {
            first,
            first_mod,
            second_mod,
        } = self.read
        else {
            return [0, 0];
        };
        let cut = usize::from(first).min(faces.len());
        let sum = |fs: &[u16]| fs.iter().map(|&f| i64::from(f)).sum::<i64>();
        [
            sum(&faces[..cut]) + i64::from(first_mod),
            sum(&faces[cut..]) + i64::from(second_mod),
        ]
    }

    /// Each face after the per-die modifier and floor of a `SumFloor` read, in order (the faces
    /// the read sums); empty for every other read, whose faces count as thrown.
    pub fn adjusted_faces(&self, faces: &[u16]) -> Vec<i64> {
        match self.read {
            Read::SumFloor { per_die, floor } => faces
                .iter()
                .map(|&f| (i64::from(f) + i64::from(per_die)).max(i64::from(floor)))
                .collect(),
            // Each throw's two totals, first side then second (a tie thrown again shows both).
            Read::Opposed { .. } => faces
                .chunks(usize::from(self.count).max(1))
                .flat_map(|throw| self.opposed_totals(throw))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Human notation: "4d6", "2d6 flux", "3d6 keep lowest 2", "1d10 (0-9)" (zero-based),
    /// "d100 (tens, units 0-9)" (its two faces are the d10s, each 0-9), "2d6 reroll 10-12",
    /// "1d6+3 vs 1d6+4 reroll ties".
    pub fn notation(&self) -> String {
        if let Read::Opposed {
            first,
            first_mod,
            second_mod,
        } = self.read
        {
            let side = |n: u16, m: i32| {
                let zero = if self.zero_based {
                    format!(" (0-{})", self.sides.saturating_sub(1))
                } else {
                    String::new()
                };
                match m {
                    0 => format!("{n}d{}{zero}", self.sides),
                    m => format!("{n}d{}{zero}{m:+}", self.sides),
                }
            };
            let mut s = format!(
                "{} vs {}",
                side(first, first_mod),
                side(self.count.saturating_sub(first), second_mod)
            );
            match self.reroll {
                Some((0, 0)) => s.push_str(" reroll ties"),
                Some((lo, hi)) if lo == hi => s.push_str(&format!(" reroll {lo}")),
                Some((lo, hi)) => s.push_str(&format!(" reroll {lo}-{hi}")),
                None => {}
            }
            return s;
        }
        let base = if self.zero_based && self.read != Read::Percentile {
            format!("{}d{} (0-{})", self.count, self.sides, self.sides.saturating_sub(1))
        } else {
            format!("{}d{}", self.count, self.sides)
        };
        let mut s = match self.read {
            Read::Sum => base,
            Read::KeepHighest(k) => format!("{base} keep highest {k}"),
            Read::KeepLowest(k) => format!("{base} keep lowest {k}"),
            Read::Flux => format!("{base} flux"),
            Read::BadFlux => format!("{base} bad flux"),
            Read::Percentile => PERCENTILE_NOTATION.to_string(),
            Read::SumFloor { per_die, floor } => format!("{base} {per_die:+} each (min {floor})"),
            Read::Explode(d) => format!("{base} explode {d}"),
            Read::Opposed { .. } => base,
        };
        if let Some((lo, hi)) = self.reroll {
            if lo == hi {
                s.push_str(&format!(" reroll {lo}"));
            } else {
                s.push_str(&format!(" reroll {lo}-{hi}"));
            }
        }
        s
    }

    /// Lowest read value (before reroll exclusion).
    pub fn min(&self) -> i64 {
        self.read_range().0
    }

    /// Highest read value (before reroll exclusion).
    pub fn max(&self) -> i64 {
        self.read_range().1
    }

    fn read_range(&self) -> (i64, i64) {
        let lo = i64::from(self.lowest_face());
        let hi = i64::from(self.highest_face());
        let n = i64::from(self.count);
        match self.read {
            Read::Sum => (n * lo, n * hi),
            Read::KeepHighest(k) | Read::KeepLowest(k) => {
                let k = i64::from(k).min(n);
                (k * lo, k * hi)
            }
            Read::Flux => (lo - hi, hi - lo),
            Read::BadFlux => (lo - hi, 0),
            Read::Percentile => (1, 100),
            Read::SumFloor { per_die, floor } => {
                let one = |f: i64| (f + i64::from(per_die)).max(i64::from(floor));
                (n * one(lo), n * one(hi))
            }
            // Each die shows at least its lowest face, and at most its highest on every throw.
            Read::Explode(d) => (n * lo, n * hi * (i64::from(d) + 1)),
            Read::Opposed {
                first,
                first_mod,
                second_mod,
            } => {
                let a = i64::from(first.min(self.count));
                let b = n - a;
                (
                    a * lo + i64::from(first_mod) - b * hi - i64::from(second_mod),
                    a * hi + i64::from(first_mod) - b * lo - i64::from(second_mod),
                )
            }
        }
    }

    /// Whether a throw reading `v` is thrown again (`v` is in the reroll range).
    pub fn in_reroll(&self, v: i64) -> bool {
        matches!(self.reroll, Some((lo, hi)) if lo <= v && v <= hi)
    }

    /// Exact distribution of the read value: sorted by value, `(value, count)`, counts summing to
    /// `total()`. Rerolled values are removed (a reroll is a fresh throw, so the kept values keep
    /// their relative weights). Summing reads are convolved die by die; other reads enumerate every
    /// face combination.
    ///
    /// Exploding dice are convolved too, from the exact distribution of one die (below): their
    /// counts are out of `sides^(count * (depth + 1))`, every die thrown to its full depth.
    ///
    /// Bounds (`Error::DiceTooLarge` beyond them): the number of face combinations must fit in a
    /// u64 (for exploding dice, `sides^(count * (depth + 1))`); summing reads need
    /// `count * sides <= MAX_CONVOLUTION_WORK` (exploding ones `count * sides * (depth + 1)`);
    /// other reads need at most `MAX_ENUMERATED_DICE` dice and `MAX_ENUMERATED_COMBINATIONS`
    /// combinations.
    /// `Error::RerollLimit` if the reroll range covers every value.
    pub fn distribution(&self) -> Result<Vec<(i64, u64)>, Error> {
        self.validate()?;
        let too_large = || Error::DiceTooLarge { notation: self.notation() };
        let throws = u32::from(self.count) * (u32::from(self.explode_depth()) + 1);
        let combos = u64::from(self.sides).checked_pow(throws).ok_or_else(too_large)?;
        let mut dist = match self.read {
            Read::Sum | Read::SumFloor { .. } | Read::Explode(_) => {
                if throws * u32::from(self.sides) > MAX_CONVOLUTION_WORK {
                    return Err(too_large());
                }
                self.convolve()
            }
            Read::Opposed {
                first,
                first_mod,
                second_mod,
            } => {
                if throws * u32::from(self.sides) > MAX_CONVOLUTION_WORK {
                    return Err(too_large());
                }
                // Each side summed by convolution, then every pair of totals.
                let side = |count: u16| {
                    DiceSpec {
                        count,
                        read: Read::Sum,
                        reroll: None,
                        ..*self
                    }
                    .convolve()
                };
                let (a, b) = (side(first), side(self.count - first));
                if (a.len() as u64).saturating_mul(b.len() as u64) > MAX_ENUMERATED_COMBINATIONS {
                    return Err(too_large());
                }
                let shift = i64::from(first_mod) - i64::from(second_mod);
                let mut counts: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
                for &(x, cx) in &a {
                    for &(y, cy) in &b {
                        // cx * cy <= sides^count, which fits (checked above).
                        *counts.entry(x - y + shift).or_insert(0) += cx * cy;
                    }
                }
                counts.into_iter().collect()
            }
            _ => {
                if self.count > MAX_ENUMERATED_DICE || combos > MAX_ENUMERATED_COMBINATIONS {
                    return Err(too_large());
                }
                self.enumerate_faces()
            }
        };
        dist.retain(|&(v, c)| c > 0 && !self.in_reroll(v));
        if dist.is_empty() {
            return Err(Error::RerollLimit);
        }
        Ok(dist)
    }

    /// Sum of the counts in `distribution()`: the number of equally likely face combinations that
    /// are kept (not rerolled).
    pub fn total(&self) -> Result<u64, Error> {
        Ok(self.distribution()?.iter().map(|&(_, c)| c).sum())
    }

    /// Distribution of a sum of identical independent dice, one die at a time. Counts cannot
    /// overflow: they are bounded by sides^count, checked by the caller.
    fn convolve(&self) -> Vec<(i64, u64)> {
        let one = match self.read {
            Read::Explode(depth) => self.one_exploding_die(depth),
            _ => self.one_die(),
        };
        let one_min = one.first().map_or(0, |&(v, _)| v);
        let one_span = one.last().map_or(0, |&(v, _)| v) - one_min;
        // Dense arrays indexed by value - current minimum.
        let mut acc: Vec<u64> = vec![1];
        let mut acc_min: i64 = 0;
        for _ in 0..self.count {
            let mut next = vec![0u64; acc.len() + one_span as usize];
            for (i, &a) in acc.iter().enumerate() {
                if a == 0 {
                    continue;
                }
                for &(v, c) in &one {
                    next[i + (v - one_min) as usize] += a * c;
                }
            }
            acc = next;
            acc_min += one_min;
        }
        acc.iter()
            .enumerate()
            .map(|(i, &c)| (acc_min + i as i64, c))
            .filter(|&(_, c)| c > 0)
            .collect()
    }

    /// Exact distribution of one exploding die with `depth` extra throws at most, sorted by value,
    /// counts out of `sides^(depth + 1)`: after `k` explosions (k < depth) the die stops on any
    /// face `r` but the highest, reading `k * highest + r` with weight `sides^(depth - k)`; at the
    /// depth every face ends it, reading `depth * highest + f` with weight 1. Computed directly,
    /// never face by face. Values of different `k` never meet (each block ends below the next),
    /// and the counts sum to `sides^(depth + 1)`, which the caller checked fits a u64.
    fn one_exploding_die(&self, depth: u8) -> Vec<(i64, u64)> {
        let (lo, hi) = (self.lowest_face(), self.highest_face());
        let sides = u64::from(self.sides);
        let top = i64::from(hi);
        let mut one: Vec<(i64, u64)> = Vec::new();
        for k in 0..u32::from(depth) {
            // Fits: at most sides^depth, below the caller's bound.
            let weight = sides.saturating_pow(u32::from(depth) - k);
            one.extend((lo..hi).map(|f| (i64::from(k) * top + i64::from(f), weight)));
        }
        one.extend((lo..=hi).map(|f| (i64::from(depth) * top + i64::from(f), 1)));
        one
    }

    /// One plain die: value -> count (SumFloor can map several faces to the floor).
    fn one_die(&self) -> Vec<(i64, u64)> {
        let mut one: Vec<(i64, u64)> = Vec::new();
        for f in self.lowest_face()..=self.highest_face() {
            let v = match self.read {
                Read::SumFloor { per_die, floor } => (i64::from(f) + i64::from(per_die)).max(i64::from(floor)),
                _ => i64::from(f),
            };
            match one.last_mut() {
                Some((lv, c)) if *lv == v => *c += 1,
                _ => one.push((v, 1)),
            }
        }
        one
    }

    /// Distribution by visiting every face combination (odometer order), for non-summing reads.
    fn enumerate_faces(&self) -> Vec<(i64, u64)> {
        let lo = self.lowest_face();
        let hi = self.highest_face();
        let mut faces = vec![lo; self.faces_needed()];
        let mut counts: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
        loop {
            *counts.entry(self.read_faces(&faces)).or_insert(0) += 1;
            // Advance the odometer; finished when every position has wrapped.
            let mut i = 0;
            loop {
                match faces.get_mut(i) {
                    None => return counts.into_iter().collect(),
                    Some(f) if *f < hi => {
                        *f += 1;
                        break;
                    }
                    Some(f) => {
                        *f = lo;
                        i += 1;
                    }
                }
            }
        }
    }
}

/// A source of dice. Object-safe so the CLI can use `&mut dyn Dice`; generated code is generic
/// over `D: Dice + ?Sized`.
pub trait Dice {
    /// Throws `spec` (including any rerolls) and returns its read value.
    fn roll(&mut self, spec: &DiceSpec) -> Result<i64, Error>;
    /// Throws `spec` for the roll the rules call `label` (`to-hit`, the label its trace event
    /// will carry). Resolvers call this; a source of dice that asks a person for the faces
    /// (physical dice) can say which roll it wants. By default the label is ignored.
    fn roll_for(&mut self, spec: &DiceSpec, label: &str) -> Result<i64, Error> {
        let _ = label;
        self.roll(spec)
    }
    /// `roll_for`, for a roll the resolver reads only as the key of a table whose rows cover the
    /// values `rows` (inclusive ranges, in the table's order; a value takes the first row that
    /// holds it): two values of one row lead to the same outcome. Exact odds branch over the rows
    /// instead of the values (`odds::Enumerator`), each time giving the row's least value; every
    /// other source of dice throws as `roll_for` does (the default). Generated code and the
    /// interpreter call it only with tracing off, where no event shows which value it was.
    fn roll_classed(&mut self, spec: &DiceSpec, label: &str, rows: &[(i64, i64)]) -> Result<i64, Error> {
        let _ = rows;
        self.roll_for(spec, label)
    }
    /// Faces of the last throw (all faces thrown, including rerolled throws, in order); empty
    /// under enumeration.
    fn last_faces(&self) -> &[u16];
    /// The enumerating dice of exact odds (`odds::Enumerator`) say so here, as `Any`, so that a
    /// generated call can branch over the callee's outcomes instead of its dice
    /// (`odds::memo_call`); every other source of dice is `None`. (`Any`, not the type itself:
    /// this module stays below `odds`.)
    fn enumerator_any(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

/// Reproducible pseudo-random dice.
///
/// The stream is ChaCha8 seeded with the u64 seed little-endian in bytes 0..8 (rest zero). One
/// face is drawn by rejection sampling on `next_u32` (below): ChaCha's output is fixed by its
/// specification and this mapping is ours, so the same seed gives the same faces on every
/// platform and every future version, unlike `rand`'s `gen_range`, whose algorithm may change.
pub struct Seeded {
    rng: ChaCha8Rng,
    faces: Vec<u16>,
}

impl Seeded {
    pub fn new(seed: u64) -> Self {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        Seeded {
            rng: ChaCha8Rng::from_seed(bytes),
            faces: Vec::new(),
        }
    }

    /// One uniformly distributed value in `0..n` (n >= 1): reject draws from the incomplete top
    /// block of the u32 range so every residue is equally likely, then reduce modulo n.
    fn below(&mut self, n: u16) -> u16 {
        let n = u64::from(n.max(1));
        let limit = (1u64 << 32) - (1u64 << 32) % n;
        loop {
            let x = u64::from(self.rng.next_u32());
            if x < limit {
                // x % n < n <= u16::MAX.
                return (x % n) as u16;
            }
        }
    }
}

impl Dice for Seeded {
    fn roll(&mut self, spec: &DiceSpec) -> Result<i64, Error> {
        spec.validate()?;
        self.faces.clear();
        let depth = spec.explode_depth();
        for _ in 0..MAX_REROLLS {
            let start = self.faces.len();
            for _ in 0..spec.count {
                let mut f = self.below(spec.sides) + spec.lowest_face();
                self.faces.push(f);
                // An exploding die is thrown again while it shows its highest face.
                let mut extra = 0;
                while extra < depth && f == spec.highest_face() {
                    f = self.below(spec.sides) + spec.lowest_face();
                    self.faces.push(f);
                    extra += 1;
                }
            }
            let v = spec.read_faces(&self.faces[start..]);
            if !spec.in_reroll(v) {
                return Ok(v);
            }
        }
        Err(Error::RerollLimit)
    }

    fn last_faces(&self) -> &[u16] {
        &self.faces
    }
}

/// Dice whose faces are given in advance (e.g. `--dice 6,6,5,4`), consumed in order, exactly
/// `faces_needed()` per throw (rerolled throws consume more, and so does every explosion of an
/// exploding die: `--dice 10,3` is one exploding d10 reading 13).
pub struct Scripted {
    script: Vec<i64>,
    pos: usize,
    faces: Vec<u16>,
}

impl Scripted {
    pub fn new(faces: Vec<i64>) -> Self {
        Scripted {
            script: faces,
            pos: 0,
            faces: Vec::new(),
        }
    }

    /// Faces consumed so far.
    pub fn used(&self) -> usize {
        self.pos
    }

    /// Faces not yet consumed.
    pub fn remaining(&self) -> usize {
        self.script.len() - self.pos
    }
}

impl Dice for Scripted {
    fn roll(&mut self, spec: &DiceSpec) -> Result<i64, Error> {
        spec.validate()?;
        self.faces.clear();
        let hi = spec.highest_face();
        // Consumption is committed only when the whole roll succeeds, so an error leaves the
        // script where it was and `used()` stays meaningful.
        let mut pos = self.pos;
        for _ in 0..MAX_REROLLS {
            let needed = spec.faces_needed();
            let rest = self.script.get(pos..).unwrap_or(&[]);
            if rest.len() < needed {
                return Err(Error::ScriptExhausted {
                    needed,
                    position: pos,
                    remaining: rest.len(),
                });
            }
            let start = self.faces.len();
            let face_at = |at: usize| -> Result<u16, Error> {
                // Never short: the counts above are checked before each face is taken.
                let face = self.script.get(at).copied().ok_or(Error::ScriptExhausted {
                    needed: 1,
                    position: at,
                    remaining: 0,
                })?;
                spec.face_on_die(face).ok_or(Error::FaceOutOfRange {
                    face,
                    sides: spec.sides,
                    position: at,
                    zero_based: spec.zero_based,
                    percentile: spec.read == Read::Percentile,
                })
            };
            let depth = spec.explode_depth();
            if depth == 0 {
                for at in pos..pos + needed {
                    let f = face_at(at)?;
                    self.faces.push(f);
                }
                pos += needed;
            } else {
                // Face by face: each explosion takes the next face, so the dice still to come
                // (and this one's next throw) need at least one face each.
                for die in 0..needed {
                    let mut f = face_at(pos)?;
                    self.faces.push(f);
                    pos += 1;
                    let mut extra = 0;
                    while extra < depth && f == hi {
                        let left = self.script.len().saturating_sub(pos);
                        let still = needed - die;
                        if left < still {
                            return Err(Error::ScriptExhausted {
                                needed: still,
                                position: pos,
                                remaining: left,
                            });
                        }
                        f = face_at(pos)?;
                        self.faces.push(f);
                        pos += 1;
                        extra += 1;
                    }
                }
            }
            let v = spec.read_faces(&self.faces[start..]);
            if !spec.in_reroll(v) {
                self.pos = pos;
                return Ok(v);
            }
        }
        Err(Error::RerollLimit)
    }

    fn last_faces(&self) -> &[u16] {
        &self.faces
    }
}
