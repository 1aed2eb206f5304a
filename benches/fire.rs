//! Weapon fire: the generated `rulebook::starleader::fire` against a hand-written Rust reference of
//! the same rule (rules-src/starleader/fire.rules), both on `Seeded` dice.
//!
//! The reference makes the same `DiceSpec` rolls in the same order, so for one seed both consume
//! the same stream and must give the same outcome. Setup checks that over many seeds (and a few
//! input variants) and panics on any difference: a benchmark against a wrong reference is worthless.
//!
//! Groups: `fire/generated` (NoTrace), `fire/handwritten`, `fire/generated_traced` (Recorder).
//! Each iteration is one shot on a dice stream that keeps running across iterations (no per-call
//! `Seeded::new`, whose ChaCha setup and first face-buffer allocation would swamp the resolver).

mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rulebook::starleader::{
    self, ArmorEffect, Chooser, FireAction, FireInputs, FireOutcome, FireResult, HeavyHitEffect, MountUse, WeaponState,
};
use rulebook_runtime::{self as rt, Dice, DiceSpec, Key, NoTrace, Read, Recorder, Seeded};

// ---------------------------------------------------------------------------------------------
// Hand-written reference
// ---------------------------------------------------------------------------------------------

/// `const los_blocking_size` (turn.rules, 6.21).
const LOS_BLOCKING_SIZE: i64 = 6;

const D4D6: DiceSpec = DiceSpec::new(4, 6);
const D2D6: DiceSpec = DiceSpec::new(2, 6);
const D1D6: DiceSpec = DiceSpec::new(1, 6);
const ROLL_OFF: DiceSpec = DiceSpec {
    count: 2,
    sides: 6,
    zero_based: false,
    read: Read::Flux,
    reroll: Some((0, 0)),
};

/// Table ids of the weapon and gadget tables, found by name in the registry once.
#[derive(Clone, Copy)]
struct Ids {
    pistols: u16,
    rifles: u16,
    scenario_pistols: u16,
    scenario_rifles: u16,
    gadgets: u16,
}

impl Ids {
    fn from_registry() -> Ids {
        let id = |name: &str| {
            starleader::TABLES
                .iter()
                .find(|t| t.name == name)
                .unwrap_or_else(|| panic!("no table {name} in the registry"))
                .id
        };
        Ids {
            pistols: id("pistols"),
            rifles: id("rifles"),
            scenario_pistols: id("scenario_pistols"),
            scenario_rifles: id("scenario_rifles"),
            gadgets: id("gadgets"),
        }
    }
}

#[derive(Clone, Copy)]
struct Weapon {
    density: i64,
    punch: i64,
    range_m: i64,
    mount: bool,
    stunner: bool,
    pistol: bool,
    rifle: bool,
}

/// Fields are shown through Debug when the setup check fails.
#[derive(Debug)]
#[allow(dead_code)]
enum RefError {
    Input(&'static str),
    Rejected,
    BadKey,
    Dice(rt::Error),
}

impl From<rt::Error> for RefError {
    fn from(e: rt::Error) -> Self {
        RefError::Dice(e)
    }
}

#[inline]
fn weapon(ids: &Ids, k: Key) -> Result<Weapon, RefError> {
    let i = k.row as usize;
    macro_rules! row {
        ($t:expr, $pistol:expr) => {
            $t.get(i).map(|r| Weapon {
                density: r.density,
                punch: r.punch,
                range_m: r.range_m,
                mount: r.mount,
                stunner: r.stunner,
                pistol: $pistol,
                rifle: !$pistol,
            })
        };
    }
    let w = if k.table == ids.pistols {
        row!(starleader::PISTOLS, true)
    } else if k.table == ids.rifles {
        row!(starleader::RIFLES, false)
    } else if k.table == ids.scenario_pistols {
        row!(starleader::SCENARIO_PISTOLS, true)
    } else if k.table == ids.scenario_rifles {
        row!(starleader::SCENARIO_RIFLES, false)
    } else {
        None
    };
    w.ok_or(RefError::BadKey)
}

#[inline]
fn gadget(ids: &Ids, k: Key) -> Result<&'static starleader::GadgetsRow, RefError> {
    if k.table != ids.gadgets {
        return Err(RefError::BadKey);
    }
    starleader::GADGETS.get(k.row as usize).ok_or(RefError::BadKey)
}

struct Dmg {
    hits: i64,
    armor_effect: ArmorEffect,
    armor_rating_after: i64,
    gadget_chooser: Chooser,
}

/// 6.4 Damage Die Roll (+ 7.1 braced, 8.2 damage to body armor).
#[inline]
#[allow(clippy::too_many_arguments)]
fn damage_ref<D: Dice + ?Sized>(
    dice: &mut D,
    punch: i64,
    armor: i64,
    braced: bool,
    stunner: bool,
    gadgets: i64,
    mounted_weapons: bool,
    stunners: bool,
) -> Result<Dmg, RefError> {
    if !(-10..=30).contains(&punch) {
        return Err(RefError::Input("punch"));
    }
    if !(0..=20).contains(&armor) {
        return Err(RefError::Input("armor_rating"));
    }
    let d = dice.roll(&D2D6)?;
    let mut total = d + punch - armor;
    if mounted_weapons && braced {
        total -= punch.max(0) / 2;
    }
    let mut out = Dmg {
        hits: total.max(0),
        armor_effect: ArmorEffect::None,
        armor_rating_after: armor,
        gadget_chooser: Chooser::None,
    };
    if armor > 0 && !(stunners && stunner) {
        match d {
            2 => {
                out.armor_effect = ArmorEffect::GadgetsOffArmorHalved;
                out.armor_rating_after = armor / 2;
            }
            7 => {
                out.armor_effect = ArmorEffect::GadgetDestroyedArmorMinus1;
                out.armor_rating_after = (armor - 1).max(0);
                if gadgets > 0 {
                    let off = dice.roll(&ROLL_OFF)?;
                    out.gadget_chooser = if off > 0 { Chooser::HitPlayer } else { Chooser::FiringPlayer };
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// 6.0 Weapon Fire, written by hand.
fn fire_ref<D: Dice + ?Sized>(dice: &mut D, ids: &Ids, inp: &FireInputs) -> Result<FireOutcome, RefError> {
    if !(-12..=12).contains(&inp.target_size) {
        return Err(RefError::Input("target_size"));
    }
    if !(0..=12).contains(&inp.obstacle_size) {
        return Err(RefError::Input("obstacle_size"));
    }
    if !(0..=20).contains(&inp.armor_rating) {
        return Err(RefError::Input("armor_rating"));
    }
    if !(0..=10_000).contains(&inp.range_hexes) {
        return Err(RefError::Input("range_hexes"));
    }
    if !(0..=10_000).contains(&inp.range_m) {
        return Err(RefError::Input("range_m"));
    }
    if !(0..=20).contains(&inp.firer_armor_rating) {
        return Err(RefError::Input("firer_armor_rating"));
    }
    if !(0..=200).contains(&inp.hits_this_turn) {
        return Err(RefError::Input("hits_this_turn"));
    }
    let w = weapon(ids, inp.weapon)?;
    let is_stun = inp.stunners && inp.stunner;
    if (is_stun && !w.stunner) || (inp.mounted_weapons && w.mount && inp.mount == MountUse::None) {
        return Err(RefError::Rejected);
    }
    // 6.21: an obstacle of Target Size los_blocking_size or more blocks Line-of-Sight.
    if inp.obstacle_size >= LOS_BLOCKING_SIZE {
        return Err(RefError::Rejected);
    }
    // The RANGE column is the maximum range outdoors (range_m); indoors every target is in range (6.1).
    if inp.range_m > 0 && inp.range_m > w.range_m {
        return Err(RefError::Rejected);
    }

    // 6.3 To Hit.
    let mut target = w.density + inp.target_size - inp.obstacle_size;
    match inp.action {
        FireAction::CounterFire => target -= 3,
        FireAction::SnapFire => target -= 6,
        FireAction::WeaponFire => {}
    }
    if inp.dodging && inp.firer_dodging {
        target -= 2;
    }
    if inp.dodging && inp.target_dodging {
        target -= 2;
    }
    if inp.range_hexes <= 2 {
        if w.pistol {
            target += 3;
        }
        if w.rifle {
            target -= 3;
        }
    }
    if inp.mounted_weapons && w.mount && inp.mount == MountUse::Braced {
        target -= 3;
    }
    // Best targeter (0 with none); a scrambler counts only against a targeting gadget.
    let mut best: Option<i64> = None;
    let mut targeting = false;
    for &g in &inp.firer_gadgets {
        let t = gadget(ids, g)?.to_hit;
        best = Some(best.map_or(t, |b| b.max(t)));
        targeting |= t > 0;
    }
    target += best.unwrap_or(0);
    if targeting {
        let mut scr: Option<i64> = None;
        for &g in &inp.target_gadgets {
            let s = gadget(ids, g)?.scramble;
            scr = Some(scr.map_or(s, |b| b.max(s)));
        }
        target -= scr.unwrap_or(0);
    }
    if inp.range_note {
        target -= inp.range_m / 100;
    }
    let r = dice.roll(&D4D6)?;
    let result = if inp.special_results {
        match r {
            ..=10 => FireResult::Hit,
            11..=18 if r <= target => FireResult::Hit,
            11..=18 => FireResult::Miss,
            19..=20 => FireResult::Miss,
            21..=22 => FireResult::Jammed,
            23..=24 => FireResult::Blown,
            _ => return Err(RefError::Input("to hit roll")),
        }
    } else if r <= target {
        FireResult::Hit
    } else {
        FireResult::Miss
    };

    let mut out = FireOutcome {
        result,
        damage: 0,
        stun: false,
        heavy_hit: HeavyHitEffect::None,
        knocked_down: false,
        drops_weapons: false,
        armor_effect: ArmorEffect::None,
        armor_rating_after: inp.armor_rating,
        gadget_chooser: Chooser::None,
        self_damage: 0,
        firer_armor_effect: ArmorEffect::None,
        firer_armor_rating_after: inp.firer_armor_rating,
        weapon_state: WeaponState::Ready,
    };
    let braced = w.mount && inp.mount == MountUse::Braced;
    match result {
        FireResult::Jammed => out.weapon_state = WeaponState::Jammed,
        FireResult::Blown => {
            out.weapon_state = WeaponState::Destroyed;
            let own = damage_ref(
                dice,
                w.punch,
                inp.firer_armor_rating,
                braced,
                is_stun,
                0,
                inp.mounted_weapons,
                inp.stunners,
            )?;
            out.self_damage = own.hits;
            out.firer_armor_effect = own.armor_effect;
            out.firer_armor_rating_after = own.armor_rating_after;
        }
        FireResult::Miss => {}
        FireResult::Hit => {
            let gadgets = (inp.target_gadgets.len() as i64).min(20);
            let d = damage_ref(
                dice,
                w.punch,
                inp.armor_rating,
                braced,
                is_stun,
                gadgets,
                inp.mounted_weapons,
                inp.stunners,
            )?;
            out.damage = d.hits;
            out.stun = is_stun && d.hits > 0;
            out.armor_effect = d.armor_effect;
            out.armor_rating_after = d.armor_rating_after;
            out.gadget_chooser = d.gadget_chooser;
            if inp.heavy_hits && d.hits >= 5 {
                out.heavy_hit = match dice.roll(&D1D6)? {
                    1..=2 => HeavyHitEffect::Down,
                    3..=4 => HeavyHitEffect::DownLose2Ap,
                    5 => HeavyHitEffect::DownLose4Ap,
                    6 => HeavyHitEffect::DownUnconscious,
                    _ => return Err(RefError::Input("heavy hit roll")),
                };
                out.knocked_down = true;
                out.drops_weapons = true;
            }
            if inp.five_hits && inp.target_up && inp.hits_this_turn + d.hits >= 5 {
                out.knocked_down = true;
                out.drops_weapons = true;
            }
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Inputs and the setup check
// ---------------------------------------------------------------------------------------------

/// `Key` of a row of a keyed table, from the registry (`TABLES`).
fn key(table: &str, row: &str) -> Key {
    let t = starleader::TABLES
        .iter()
        .find(|t| t.name == table)
        .unwrap_or_else(|| panic!("no table {table}"));
    let i = t
        .keys
        .iter()
        .position(|k| *k == row)
        .unwrap_or_else(|| panic!("no row {row} in {table}"));
    Key {
        table: t.id,
        row: i as u16,
        name: t.keys[i],
    }
}

/// The shared benchmark inputs, with the weapon checked against the registry's key.
fn bench_inputs() -> (rt::Inputs, FireInputs) {
    let (_, bound, typed) = common::fire_inputs();
    assert_eq!(typed.weapon, key("pistols", "Ghazi 10/7"), "bound weapon key");
    (bound, typed)
}

/// Panics unless generated and reference agree on every outcome field (or both fail) for `n`
/// seeds. Returns how many results were hits, for a sanity print.
fn check_agreement(ids: &Ids, inp: &FireInputs, n: u64, what: &str) -> usize {
    let mut hits = 0;
    for seed in 0..n {
        let g = starleader::fire(&mut Seeded::new(seed), &mut NoTrace, inp);
        let h = fire_ref(&mut Seeded::new(seed), ids, inp);
        match (&g, &h) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{what}: generated and hand-written fire differ for seed {seed}");
                hits += usize::from(a.result == FireResult::Hit);
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{what}: seed {seed}: generated {g:?} vs hand-written {h:?}"),
        }
    }
    // Also on one continuing stream, as the benchmark uses it: same number of faces consumed.
    let (mut dg, mut dh) = (Seeded::new(7), Seeded::new(7));
    for i in 0..n {
        let a = starleader::fire(&mut dg, &mut NoTrace, inp).ok();
        let b = fire_ref(&mut dh, ids, inp).ok();
        assert_eq!(a, b, "{what}: continuing stream diverged at shot {i}");
    }
    hits
}

fn setup() -> (Ids, FireInputs) {
    let ids = Ids::from_registry();
    let (_, inp) = bench_inputs();
    let hits = check_agreement(&ids, &inp, 10_000, "bench inputs");
    eprintln!("fire: reference agrees with generated over 10000 seeds ({hits} hits)");

    // A few variants that exercise the branches the bench inputs never reach.
    let mut v = inp.clone();
    v.range_hexes = 1;
    v.action = FireAction::CounterFire;
    v.five_hits = true;
    v.hits_this_turn = 3;
    v.firer_gadgets = vec![key("gadgets", "Syter"), key("gadgets", "Supersyter")];
    v.target_gadgets = vec![key("gadgets", "Scrambler"), key("gadgets", "Vacpak")];
    v.firer_armor_rating = 2;
    check_agreement(&ids, &v, 2_000, "variant pistol close/gadgets");
    let mut v = inp.clone();
    v.obstacle_size = 6; // blocks Line-of-Sight: both must reject
    check_agreement(&ids, &v, 200, "variant LOS blocked");
    let mut v = inp.clone();
    v.weapon = starleader::TABLES
        .iter()
        .find(|t| t.name == "rifles")
        .map(|t| Key {
            table: t.id,
            row: 0,
            name: t.keys[0],
        })
        .expect("rifles");
    v.range_hexes = 2;
    v.special_results = false;
    v.dodging = true;
    v.firer_dodging = true;
    v.range_note = true;
    v.range_m = 100; // this rifle's maximum range

    v.armor_rating = 1;
    v.target_gadgets = vec![key("gadgets", "Vacpak")];
    check_agreement(&ids, &v, 2_000, "variant rifle/no specials");
    v.range_m = 101; // beyond it: both must reject
    check_agreement(&ids, &v, 200, "variant out of range");
    (ids, inp)
}

fn bench_fire(c: &mut Criterion) {
    let (ids, inp) = setup();
    let mut group = c.benchmark_group("fire");

    group.bench_function("generated", |b| {
        let mut dice = Seeded::new(1);
        b.iter(|| starleader::fire(&mut dice, &mut NoTrace, black_box(&inp)))
    });
    group.bench_function("handwritten", |b| {
        let mut dice = Seeded::new(1);
        b.iter(|| fire_ref(&mut dice, black_box(&ids), black_box(&inp)).map_err(|_| ()))
    });
    group.bench_function("generated_traced", |b| {
        let mut dice = Seeded::new(1);
        let mut rec = Recorder::new();
        b.iter(|| {
            rec.events.clear();
            starleader::fire(&mut dice, &mut rec, black_box(&inp)).map(|o| (o, rec.events.len()))
        })
    });
    group.finish();
}

criterion_group!(benches, bench_fire);
criterion_main!(benches);
