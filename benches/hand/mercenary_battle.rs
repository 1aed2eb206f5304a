//! A hand-written Rust version of one Mercenary battle, `rulebook::mercenary::battle`: the
//! practical speed limit (issue 15) the generated resolver is measured against. `benches/battle.rs`
//! times the two side by side (`battle/one_battle`, `battle/hand_written`) and
//! `tests/hand_battle.rs` proves they are the same battle: for the same seed both consume the same
//! dice, in the same order, with the same `DiceSpec` and label, and give the same outcome.
//!
//! GAME KNOWLEDGE: this file knows a game outside `rules-src/`, the one place allowed to besides
//! the hand-written fire of `benches/fire.rs`. It is a benchmark reference, not a second source of
//! the rules: every table and rule below is copied from `rules-src/mercenary/*.rules` (each cited
//! at its spot) and must follow them. When the rules change, `tests/hand_battle.rs` fails until
//! this file is changed to match; nothing in the crate or the CLI uses it.
//!
//! How it is written: as a Rust programmer would write this one battle for speed. Units are a
//! `Vec` of small `Copy` structs indexed by their position in the battle file (the rules' `order`),
//! names only at the edges (a unit is its index everywhere inside), tables as fixed arrays indexed
//! by enum discriminants, every change made in place, and the per-round lists (who attacked whom,
//! the plans) in fixed arrays or in vectors allocated once per battle. The default policies
//! (`choose_target`, `plan_actions`, `withdraw` in battle.rules) are folded in as written.
//!
//! Scope: everything `battle.rules` does with its default policies (all three named policies,
//! every unit type, the `withdrawal_phase` and `artillery_dash_at_5` options, any `max_rounds`),
//! though the benchmark's example, `examples/mercenary-infantry-clash.yaml`, exercises only
//! infantry and command units, policy balanced, withdrawal phase on, default options. Not covered:
//! an application's own `Policy` (only `battle`, not `battle_with`) and the trace. A battle file
//! the rules refuse is refused here too, with an error, though not necessarily the same error
//! value as the generated resolver's (the test compares valid battles only). A rules' integer
//! range that a battle could only leave in degenerate cases (Unit Morale above 1000 after hundreds
//! of kills) is not checked here.

#![forbid(unsafe_code)]

use rulebook::mercenary::{
    BattleInputs, BattleOutcome, BattlePolicy, BattleResult, Loss, Side, Unit, UnitSpec, UnitStatus, UnitType, Zone,
};
use rulebook::runtime::{Dice, DiceSpec, Error, Violation};

// ---------------------------------------------------------------- dice (attack.rules, command.rules)

/// `roll r = 1d6 "Unit Morale test"` (attack.rules, resolver morale_test).
const ONE_D6: DiceSpec = DiceSpec::new(1, 6);
/// `roll r = 2d6 ...`: the Unit Skill throw (attack.rules, unit_attack), the Leadership throws
/// (command.rules, command_phase and rally) and the Tactics throw (command.rules, call_cas).
const TWO_D6: DiceSpec = DiceSpec::new(2, 6);

// ---------------------------------------------------------------- unit types and tables

/// `enum unit_type` (units.rules), in declaration order: the row and column order of every table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Ty {
    Infantry,
    HeavyInfantry,
    CloseQuarters,
    Vehicle,
    Artillery,
    Ortillery,
    Cas,
    Command,
}

const TYPES: [Ty; 8] = [
    Ty::Infantry,
    Ty::HeavyInfantry,
    Ty::CloseQuarters,
    Ty::Vehicle,
    Ty::Artillery,
    Ty::Ortillery,
    Ty::Cas,
    Ty::Command,
];

impl Ty {
    fn from_rules(t: UnitType) -> Ty {
        match t {
            UnitType::Infantry => Ty::Infantry,
            UnitType::HeavyInfantry => Ty::HeavyInfantry,
            UnitType::CloseQuarters => Ty::CloseQuarters,
            UnitType::Vehicle => Ty::Vehicle,
            UnitType::Artillery => Ty::Artillery,
            UnitType::Ortillery => Ty::Ortillery,
            UnitType::Cas => Ty::Cas,
            UnitType::Command => Ty::Command,
        }
    }

    fn to_rules(self) -> UnitType {
        match self {
            Ty::Infantry => UnitType::Infantry,
            Ty::HeavyInfantry => UnitType::HeavyInfantry,
            Ty::CloseQuarters => UnitType::CloseQuarters,
            Ty::Vehicle => UnitType::Vehicle,
            Ty::Artillery => UnitType::Artillery,
            Ty::Ortillery => UnitType::Ortillery,
            Ty::Cas => UnitType::Cas,
            Ty::Command => UnitType::Command,
        }
    }

    fn i(self) -> usize {
        self as usize
    }

    /// Neither Ortillery nor CAS: the units that decide whether an army is defeated (battle.rules,
    /// `ground_a`, and the `ground` of policy withdraw).
    fn ground(self) -> bool {
        !matches!(self, Ty::Ortillery | Ty::Cas)
    }
}

/// A "-" cell: "the unit is unable to attack effectively at anything at that range" (attack.rules).
const DASH: i8 = i8::MIN;

/// A cell of the three attack tables, `none` for a "-".
fn cell(v: i8) -> Option<i8> {
    if v == DASH {
        None
    } else {
        Some(v)
    }
}

/// `table range_attack_modifiers` (attack.rules, Battle System: Range Attack Modifiers): unit type
/// x distance in zones 0..5.
#[rustfmt::skip]
const RANGE_ATTACK_MODIFIERS: [[i8; 6]; 8] = [
    //   0     1     2     3     4     5
    [    0,    1,   -1,   -2, DASH, DASH], // infantry
    [    1,    1,    2,    0,    0, DASH], // heavy_infantry
    [    1,    0, DASH, DASH, DASH, DASH], // close_quarters
    [   -1,    0,    2,    1,    0,   -1], // vehicle
    [ DASH,   -1,    1,    2,    2,    2], // artillery
    [    1,    1,    1,    1,    1,    1], // ortillery
    [    2,    2,    1,    1,    0,   -1], // cas
    [    1,    1,    1,    0,    0, DASH], // command
];

/// `table artillery_range_dash_at_5` (attack.rules), read under `option artillery_dash_at_5`.
const ARTILLERY_RANGE_DASH_AT_5: [i8; 6] = [-1, 1, 2, 2, 2, DASH];

/// `table attack_difficulty` (attack.rules, Battle System: Attack Difficulty (Unit vs. Unit)):
/// attacker x defender, target numbers N+. Columns as the rows: infantry, heavy_infantry,
/// close_quarters, vehicle, artillery, ortillery, cas, command.
#[rustfmt::skip]
const ATTACK_DIFFICULTY: [[i8; 8]; 8] = [
    [    8,    9,    8,   10,    8, DASH,    9,    9], // infantry
    [    7,    8,    8,    9,    8, DASH,   10,    9], // heavy_infantry
    [    8,    9,    9,   10,    8, DASH,   11,    8], // close_quarters
    [    8,    8,    7,    9,    8, DASH,   10,    9], // vehicle
    [    7,    8,    8,    9,   10, DASH,   11,   10], // artillery
    [    8,    9,    9,   10,   11, DASH, DASH,   11], // ortillery
    [    7,    8,    7,    9,    8, DASH,    9,    8], // cas
    [    9,   10,    8,   10,    8, DASH,   11,    9], // command
];

/// `table unit_damage` (attack.rules, Battle System: Unit Damage): attacker x target, columns as
/// the rows.
#[rustfmt::skip]
const UNIT_DAMAGE: [[i8; 8]; 8] = [
    [    0,   -2,    1,   -3,   -1, DASH,   -3,    0], // infantry
    [    4,    1,    3,   -1,    0, DASH,   -2,    2], // heavy_infantry
    [    2,   -3,    3,   -4,   -5, DASH,   -5,    1], // close_quarters
    [    5,    2,    5,   -1,    0, DASH,   -3,   -3], // vehicle
    [   15,    8,   15,   -1,   -3, DASH,   -2,    3], // artillery
    [   20,   10,   20,   -2,   -2, DASH, DASH,    2], // ortillery
    [   10,    4,   10,    1,    2, DASH,    0,    1], // cas
    [    3,    1,    4,   -3,   -2, DASH,   -2,    2], // command
];

/// `table unit_strengths` (units.rules, Battle System: Unit Strengths): unit type x Unit Size 1..6,
/// the maximum members.
#[rustfmt::skip]
const UNIT_STRENGTHS: [[i32; 6]; 8] = [
    [10, 20, 40, 100, 500, 1000],   // infantry
    [5, 10, 20, 50, 100, 200],      // heavy_infantry
    [20, 50, 100, 500, 1000, 1500], // close_quarters
    [1, 2, 4, 12, 36, 72],          // vehicle
    [1, 2, 3, 4, 5, 6],             // artillery
    [1, 1, 1, 1, 1, 1],             // ortillery
    [1, 2, 4, 8, 12, 16],           // cas
    [5, 8, 10, 15, 20, 35],         // command
];

/// `table unit_skill` (units.rules, Battle System: Unit Skill): the Average Skill of ratings 1..5.
const AVERAGE_SKILL: [i32; 5] = [0, 0, 1, 2, 3];

/// A row of `table unit_types` (units.rules, Battle System: Deployment Zone, Manoeuvre Actions,
/// Additional Modifiers).
#[derive(Clone, Copy)]
struct Caps {
    zone_moves: i32,
    blocks: u8,
    blockable: bool,
    flanking: bool,
    needs_fo: bool,
    support_start: bool,
    called_in: bool,
}

const fn caps(zone_moves: i32, blocks: u8, blockable: bool, flanking: bool, needs_fo: bool, support_start: bool, called_in: bool) -> Caps {
    Caps {
        zone_moves,
        blocks,
        blockable,
        flanking,
        needs_fo,
        support_start,
        called_in,
    }
}

/// `table unit_types`: zone_moves, blocks, blockable, flanking, needs_fo, support_start, called_in.
#[rustfmt::skip]
const UNIT_TYPES: [Caps; 8] = [
    caps(1, 2, true, true, false, false, false), // infantry
    caps(1, 2, true, true, false, false, false), // heavy_infantry
    caps(1, 1, true, true, false, false, false), // close_quarters
    caps(1, 1, true, true, false, false, false), // vehicle
    caps(1, 1, true, true, true, false, false),  // artillery
    caps(0, 0, true, true, true, true, false),   // ortillery
    caps(3, 0, false, false, false, true, true), // cas
    caps(1, 1, true, true, false, false, false), // command
];

/// `const command_throw = 8`, `const cas_throw = 8`, `const rally_throw = 9` (command.rules).
const COMMAND_THROW: i32 = 8;
const CAS_THROW: i32 = 8;
const RALLY_THROW: i32 = 9;
/// `const max_attacks_per_attacker = 2` (command.rules; the two attackers per target are the
/// `Attackers` slots below).
const MAX_ATTACKS_PER_ATTACKER: u8 = 2;

fn caps_of(t: Ty) -> &'static Caps {
    &UNIT_TYPES[t.i()]
}

// ---------------------------------------------------------------- zones (system.rules, battle.rules)

/// Zones are 0..5 along the line `a_support .. b_support` (`enum zone`, system.rules); the
/// `zone_distance` table is the difference of two of them, and `zone_of_side`, `a_zones`,
/// `b_zones` are the zone counted from an army's own Support zone ("rel" below: 0 own Support,
/// 1 own Reserves, 2 own Front Line, 3..5 the enemy's).
type ZoneIx = u8;

fn zone_ix(z: Zone) -> ZoneIx {
    match z {
        Zone::ASupport => 0,
        Zone::AReserves => 1,
        Zone::AFrontLine => 2,
        Zone::BFrontLine => 3,
        Zone::BReserves => 4,
        Zone::BSupport => 5,
    }
}

const ZONES: [Zone; 6] = [
    Zone::ASupport,
    Zone::AReserves,
    Zone::AFrontLine,
    Zone::BFrontLine,
    Zone::BReserves,
    Zone::BSupport,
];

/// `table zone_distance` (system.rules).
fn zone_distance(a: ZoneIx, b: ZoneIx) -> usize {
    usize::from(a.abs_diff(b))
}

/// `zone_of_side(side, zone)` as a number, and `zone_distance(own support, zone)`.
fn rel(side: u8, z: ZoneIx) -> i32 {
    if side == A {
        i32::from(z)
    } else {
        5 - i32::from(z)
    }
}

/// `a_zones(r)` / `b_zones(r)` (battle.rules): the zone `r` steps from the army's rear, r in 0..5.
fn zone_at(side: u8, r: i32) -> ZoneIx {
    let r = r.clamp(0, 5) as u8;
    if side == A {
        r
    } else {
        5 - r
    }
}

const A: u8 = 0;
const B: u8 = 1;

// ---------------------------------------------------------------- a unit in the battle

/// `enum unit_status` (units.rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Active,
    AwaitingCall,
    Broken,
    Destroyed,
    Retreated,
    Withdrawn,
}

impl Status {
    fn to_rules(self) -> UnitStatus {
        match self {
            Status::Active => UnitStatus::Active,
            Status::AwaitingCall => UnitStatus::AwaitingCall,
            Status::Broken => UnitStatus::Broken,
            Status::Destroyed => UnitStatus::Destroyed,
            Status::Retreated => UnitStatus::Retreated,
            Status::Withdrawn => UnitStatus::Withdrawn,
        }
    }
}

const NOBODY: u16 = u16::MAX;

/// A fighter's `attackers: list text` (battle.rules): the units that attacked it this round. The
/// rules' `choose_target` lets a unit attack a target only while it has done so fewer than twice
/// and no two other units have, so at most two distinct attackers, each at most twice: two slots
/// of (unit, times) hold every list the rules can build.
#[derive(Clone, Copy)]
struct Attackers([(u16, u8); 2]);

impl Attackers {
    const EMPTY: Attackers = Attackers([(NOBODY, 0); 2]);

    /// `count(n in f.attackers: n == attacker.u.name) < max_attacks_per_attacker and not any(x in
    /// f.attackers: x != attacker.u.name and any(y in f.attackers: y != attacker.u.name and y != x))`
    fn open_to(&self, me: u16) -> bool {
        let [(a, na), (b, nb)] = self.0;
        let mine = if a == me {
            na
        } else if b == me {
            nb
        } else {
            0
        };
        let two_others = a != NOBODY && b != NOBODY && a != me && b != me;
        mine < MAX_ATTACKS_PER_ATTACKER && !two_others
    }

    fn push(&mut self, me: u16) -> Result<(), Error> {
        for slot in &mut self.0 {
            if slot.0 == me || slot.0 == NOBODY {
                slot.0 = me;
                slot.1 += 1;
                return Ok(());
            }
        }
        Err(Error::internal("hand-written battle: a third attacker of one unit in a round"))
    }
}

/// A fighter's `targets: list text`: the units it attacked this round. A unit takes at most two
/// actions a round (plan_actions), and one in the withdrawal volley after the list is emptied.
#[derive(Clone, Copy)]
struct Targets {
    at: [u16; 2],
    len: u8,
}

impl Targets {
    const EMPTY: Targets = Targets { at: [NOBODY; 2], len: 0 };

    fn push(&mut self, t: u16) -> Result<(), Error> {
        let slot = self
            .at
            .get_mut(usize::from(self.len))
            .ok_or_else(|| Error::internal("hand-written battle: a third attack by one unit in a round"))?;
        *slot = t;
        self.len += 1;
        Ok(())
    }
}

/// `record unit` (units.rules) and `record fighter` (battle.rules) in one, without the name (the
/// index is the unit; the name is read from the battle file at the end).
#[derive(Clone, Copy)]
struct Fighter {
    side: u8,
    ty: Ty,
    zone: ZoneIx,
    status: Status,
    strength: i32,
    start_strength: i32,
    size: i32,
    rating: i32,
    skill: i32,
    morale: i32,
    start_morale: i32,
    leadership: i32,
    tactics: i32,
    tl: i32,
    cas_rounds: i32,
    // What this Battle Round did to it (reset each round).
    strength_before: i32,
    kills: i32,
    command_kills: i32,
    attacked: bool,
    flanking: bool,
    observed: bool,
    promoted: bool,
    blocks_used: u8,
    attackers: Attackers,
    targets: Targets,
    /// Morale Phase: broke in its first pass (`routed`).
    routed: bool,
    /// Withdrawal Phase: in `out_a` / `out_b`.
    leaving: bool,
}

impl Fighter {
    fn active(&self) -> bool {
        self.status == Status::Active
    }
}

/// `enum battle_policy` (battle.rules).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    Balanced,
    Aggressive,
    Cautious,
}

/// `enum action_kind` (battle.rules).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Attack,
    Advance,
    FallBack,
    RallyUnit,
}

/// `record planned` (battle.rules): a unit, its action and whether it is its first or second.
#[derive(Clone, Copy)]
struct Planned {
    unit: u16,
    kind: Kind,
    second: bool,
}

/// The battle's settings, from its inputs.
#[derive(Clone, Copy)]
struct Rules {
    policy: Policy,
    dash_at_5: bool,
}

// ---------------------------------------------------------------- single throws

/// `resolver morale_test` (attack.rules).
fn morale_test<D: Dice + ?Sized>(dice: &mut D, morale: i32, no_command: bool) -> Result<bool, Error> {
    let needed = morale - i32::from(no_command);
    if needed >= 6 {
        return Ok(true);
    }
    if needed <= 0 {
        return Ok(false);
    }
    let r = dice.roll_for(&ONE_D6, "Unit Morale test")?;
    Ok(r <= i64::from(needed))
}

/// The Range Attack Modifier of a unit type at a distance, `none` for "-" (attack.rules, unit_attack;
/// battle.rules, choose_target and plan_actions).
fn range_dm(t: Ty, distance: usize, rules: Rules) -> Option<i8> {
    cell(if t == Ty::Artillery && rules.dash_at_5 {
        ARTILLERY_RANGE_DASH_AT_5[distance]
    } else {
        RANGE_ATTACK_MODIFIERS[t.i()][distance]
    })
}

/// Whether `a` can attack `d` where they stand: no "-" in the range and difficulty tables (the
/// `candidates` of choose_target, the `in_reach` of plan_actions).
fn can_attack(a: &Fighter, d: &Fighter, rules: Rules) -> bool {
    range_dm(a.ty, zone_distance(a.zone, d.zone), rules).is_some() && ATTACK_DIFFICULTY[a.ty.i()][d.ty.i()] != DASH
}

/// `resolver unit_attack` through `resolver attack` (attack.rules): whether the attacker acted
/// (passed its morale test) and the casualties. The two units' types are already their
/// `effective_type` (applied when they were created; applying it again changes nothing), and both
/// are active units of opposite sides, as `attack`'s requires ask (the callers see to it).
fn unit_attack<D: Dice + ?Sized>(
    dice: &mut D,
    a: &Fighter,
    d: &Fighter,
    flanking: bool,
    no_command: bool,
    rules: Rules,
) -> Result<(bool, i32), Error> {
    let (ai, di) = (a.ty.i(), d.ty.i());
    let (Some(range_dm), Some(difficulty), Some(damage_mod)) = (
        range_dm(a.ty, zone_distance(a.zone, d.zone), rules),
        cell(ATTACK_DIFFICULTY[ai][di]),
        cell(UNIT_DAMAGE[ai][di]),
    ) else {
        return Ok((false, 0)); // cannot_attack
    };
    if !morale_test(dice, a.morale, no_command)? {
        return Ok((false, 0)); // morale_failed
    }
    let r = dice.roll_for(&TWO_D6, "Unit Skill throw")? as i32;
    let total = r + a.skill + i32::from(range_dm);
    let needed = i32::from(difficulty);
    if total < needed {
        return Ok((true, 0)); // failed
    }
    let raw = i32::from(damage_mod) + (total - needed) + a.size + (a.tl - d.tl);
    // Flanking fire only against a unit in the zone the attacker moved into (attack: same_zone).
    let flank = flanking && a.zone == d.zone && caps_of(a.ty).flanking && caps_of(d.ty).flanking;
    let doubled = raw * if flank { 2 } else { 1 };
    Ok((true, doubled.clamp(0, d.strength)))
}

// ---------------------------------------------------------------- policies (battle.rules)

/// `policy choose_target`: among the enemies it can attack that are still open to it, the easiest
/// to hit, then the weakest, then the first in the battle file (two stable sorts). In the
/// withdrawal volley the field is the firing army and the units that leave: only a leaving unit
/// is a candidate.
fn choose_target(fs: &[Fighter], me: usize, volley: bool, rules: Rules) -> Option<usize> {
    let att = &fs[me];
    let me16 = me as u16;
    let mut best: Option<(usize, i8, i32)> = None;
    for (i, f) in fs.iter().enumerate() {
        if f.side == att.side || !f.active() || (volley && !f.leaving) || !f.attackers.open_to(me16) {
            continue;
        }
        if range_dm(att.ty, zone_distance(att.zone, f.zone), rules).is_none() {
            continue;
        }
        let Some(difficulty) = cell(ATTACK_DIFFICULTY[att.ty.i()][f.ty.i()]) else {
            continue;
        };
        if best.is_none_or(|(_, d, s)| (difficulty, f.strength) < (d, s)) {
            best = Some((i, difficulty, f.strength));
        }
    }
    best.map(|(i, _, _)| i)
}

/// `policy plan_actions`: the army's Unit Actions, first actions unit by unit in battle-file order,
/// then the second ones while actions last, into `plan` (in the rules' order); `seconds` is scratch.
fn plan_actions(fs: &[Fighter], side: u8, pool: i64, one_each: bool, rules: Rules, plan: &mut Vec<Planned>, seconds: &mut Vec<Planned>) {
    plan.clear();
    seconds.clear();
    let mut left = pool;
    // The primary: the first living Command Unit of the army.
    let primary = fs.iter().position(|x| x.side == side && x.ty == Ty::Command && x.active());
    let needs_rally = fs.iter().any(|e| e.side == side && e.active() && e.morale + 2 <= e.start_morale);
    for (i, f) in fs.iter().enumerate() {
        let mine = f.side == side && f.active() && f.morale > 0;
        if !(mine && left > 0) {
            continue;
        }
        let unit = i as u16;
        let in_reach = fs.iter().any(|e| e.side != side && e.active() && can_attack(f, e, rules));
        let pull_back = rules.policy != Policy::Aggressive && f.strength * 2 < f.start_strength && f.ty != Ty::Command;
        let caps = caps_of(f.ty);
        let can_move = caps.zone_moves > 0;
        let first = |kind| Planned { unit, kind, second: false };
        let second = |kind| Planned { unit, kind, second: true };
        if caps.needs_fo {
            // Both actions at once: the forward observers' first, then the firing.
            if in_reach && left >= 2 && !one_each {
                plan.push(first(Kind::Attack));
                plan.push(second(Kind::Attack));
                left -= 1;
            }
        } else if f.ty == Ty::Command && primary == Some(i) && needs_rally && !one_each {
            plan.push(first(Kind::RallyUnit));
            if in_reach {
                seconds.push(second(Kind::Attack));
            }
        } else if pull_back && can_move {
            plan.push(first(Kind::FallBack));
        } else if in_reach {
            plan.push(first(Kind::Attack));
            seconds.push(second(Kind::Attack));
        } else if can_move && f.ty != Ty::Command {
            plan.push(first(Kind::Advance));
            seconds.push(second(Kind::Attack));
        }
        left -= 1;
    }
    if !one_each {
        for s in seconds.iter() {
            if left > 0 {
                plan.push(*s);
                left -= 1;
            }
        }
    }
}

/// The battle's `sort(p in pa.plan: p.order)`, a stable sort: the first actions, then the second
/// ones, each in plan order.
fn by_order(plan: &[Planned], out: &mut Vec<Planned>) {
    out.clear();
    out.extend(plan.iter().filter(|p| !p.second));
    out.extend(plan.iter().filter(|p| p.second));
}

/// `policy withdraw`: whether the army withdraws at once, and marks the units that leave the
/// field (`out_a` / `out_b` of the battle) with `leaving`. Returns (withdraws, any unit leaves).
fn withdraw(fs: &mut [Fighter], side: u8, policy: Policy) -> (bool, bool) {
    let (mut now, mut start, mut ground, mut spent) = (0i64, 0i64, 0usize, 0usize);
    for f in fs.iter().filter(|f| f.side == side) {
        start += i64::from(f.start_strength);
        if f.active() {
            now += i64::from(f.strength);
            if f.ty.ground() {
                ground += 1;
                spent += usize::from(f.strength * 4 < f.start_strength);
            }
        }
    }
    let all = match policy {
        Policy::Aggressive => false,
        Policy::Cautious => now * 2 < start,
        Policy::Balanced => now * 4 < start,
    };
    let piecemeal = policy == Policy::Cautious && spent < ground;
    let mut any = false;
    for f in fs.iter_mut().filter(|f| f.side == side && f.active()) {
        f.leaving = all || (piecemeal && f.ty.ground() && f.strength * 4 < f.start_strength);
        any |= f.leaving;
    }
    (all, any)
}

// ---------------------------------------------------------------- phases (battle.rules)

/// `resolver command_step`: one army's Command Phase. Returns (Unit Actions, has a Command Unit).
fn command_step<D: Dice + ?Sized>(dice: &mut D, fs: &mut [Fighter], side: u8) -> Result<(i64, bool), Error> {
    let first_command = fs.iter().position(|f| f.side == side && f.ty == Ty::Command);
    let Some(c) = fs.iter().position(|f| f.side == side && f.ty == Ty::Command && f.active()) else {
        // No Command Unit: every unit loses 1 morale now (no_command_unit, command.rules), and
        // each may try one action.
        let mut actions = 0;
        for f in fs.iter_mut().filter(|f| f.side == side && f.active()) {
            f.morale = (f.morale - 1).max(0);
            actions += 1;
        }
        return Ok((actions, false));
    };
    if !fs[c].promoted && first_command != Some(c) {
        // promote_secondary (command.rules): Tactics and Leadership -1, minimum 0.
        let l = &mut fs[c];
        l.tactics = (l.tactics - 1).max(0);
        l.leadership = (l.leadership - 1).max(0);
        l.promoted = true;
    }
    let leader = fs[c];
    // command_zone and command_phase (command.rules).
    let in_reserves = rel(side, leader.zone) == 1;
    let r = dice.roll_for(&TWO_D6, "Leadership throw")? as i32;
    let total = r + leader.leadership + i32::from(in_reserves);
    let actions = if total >= COMMAND_THROW {
        leader.tactics + total - COMMAND_THROW
    } else {
        leader.tactics
    };
    // Close Air Support waiting to be called: call_cas (command.rules), one Tactics throw each.
    for f in fs.iter_mut() {
        if f.side == side && f.ty == Ty::Cas && f.status == Status::AwaitingCall {
            let total = dice.roll_for(&TWO_D6, "Tactics throw")? as i32 + leader.tactics;
            if total >= CAS_THROW {
                f.status = Status::Active;
                f.zone = zone_at(side, 0);
                f.cas_rounds = (total - CAS_THROW).clamp(0, 100);
            }
        }
    }
    Ok((i64::from(actions), true))
}

/// `resolver perform`: one Unit Action of unit `me`. `volley`: the withdrawal volley, whose field
/// is the firing army and the leaving units.
fn perform<D: Dice + ?Sized>(
    dice: &mut D,
    fs: &mut [Fighter],
    me: usize,
    kind: Kind,
    no_command: bool,
    volley: bool,
    rules: Rules,
) -> Result<(), Error> {
    let actor = fs[me];
    if no_command && kind != Kind::Attack && !morale_test(dice, actor.morale, true)? {
        return Ok(());
    }
    match kind {
        Kind::Attack => {
            if caps_of(actor.ty).needs_fo && !actor.observed {
                // The forward observers plot the enemy's positions.
                fs[me].observed = true;
            } else if let Some(t) = choose_target(fs, me, volley, rules) {
                let target = fs[t];
                let (acted, casualties) = unit_attack(dice, &actor, &target, actor.flanking, no_command, rules)?;
                let left = (target.strength - casualties).clamp(0, 100_000);
                let killed = left == 0;
                let d = &mut fs[t];
                d.strength = left;
                if killed {
                    d.status = Status::Destroyed;
                }
                d.attacked |= acted;
                if acted {
                    d.attackers.push(me as u16)?;
                }
                let a = &mut fs[me];
                if acted {
                    a.targets.push(t as u16)?;
                }
                if killed {
                    if target.ty == Ty::Command {
                        a.command_kills += 1;
                    } else {
                        a.kills += 1;
                    }
                }
            }
        }
        Kind::Advance | Kind::FallBack => {
            let here = rel(actor.side, actor.zone);
            let leaving = kind == Kind::FallBack && here == 0;
            let to = zone_at(actor.side, if kind == Kind::Advance { here + 1 } else { here - 1 });
            // Blocking: the first enemy in the zone entered with morale above 0 and blocks left.
            let blocker = if !leaving && caps_of(actor.ty).blockable {
                fs.iter().position(|e| {
                    e.side != actor.side && e.active() && e.zone == to && e.morale > 0 && caps_of(e.ty).blocks > e.blocks_used
                })
            } else {
                None
            };
            if let Some(b) = blocker {
                fs[b].blocks_used += 1;
            } else if here != 5 || kind == Kind::FallBack {
                // manoeuvre (command.rules): its requires hold (one step, a unit that can move).
                let into_enemy_zone = !leaving && rel(actor.side, to) >= 3;
                let away = !leaving && rel(actor.side, to) < here;
                let f = &mut fs[me];
                if away && actor.morale > 0 {
                    f.morale = (actor.morale + 1).min(actor.start_morale.max(actor.morale));
                }
                if leaving {
                    f.status = Status::Retreated;
                } else {
                    f.zone = to;
                }
                f.flanking = into_enemy_zone;
            }
        }
        Kind::RallyUnit => {
            // The unit that has lost the most morale (the first of them): rally (command.rules).
            let mut hurt: Option<(usize, i32)> = None;
            for (i, e) in fs.iter().enumerate() {
                if e.side == actor.side && e.active() && e.morale < e.start_morale {
                    let lost = e.start_morale - e.morale;
                    if hurt.is_none_or(|(_, l)| lost > l) {
                        hurt = Some((i, lost));
                    }
                }
            }
            if let Some((h, _)) = hurt {
                let total = dice.roll_for(&TWO_D6, "Leadership throw")? as i32 + actor.leadership;
                let h = &mut fs[h];
                h.morale = if total >= RALLY_THROW {
                    (h.morale + total - RALLY_THROW).min(h.start_morale)
                } else {
                    (h.morale - 1).max(0)
                };
            }
        }
    }
    Ok(())
}

/// `resolver morale_step`: the Morale Phase, its two passes, and CAS leaving.
fn morale_step(fs: &mut [Fighter]) {
    // Who was destroyed this round, by side and zone (`mates_destroyed`) and Command (`command_lost`).
    let mut destroyed_in = [[false; 6]; 2];
    let mut command_lost = [false; 2];
    for e in fs.iter() {
        if e.status == Status::Destroyed && e.strength_before > 0 {
            destroyed_in[usize::from(e.side)][usize::from(e.zone)] = true;
            command_lost[usize::from(e.side)] |= e.ty == Ty::Command;
        }
    }
    // First pass: morale_phase (command.rules) for every active unit.
    let mut routed_in = [[false; 6]; 2];
    let mut command_broke = [false; 2];
    let mut any_routed = false;
    for f in fs.iter_mut() {
        f.routed = false;
        if !f.active() {
            continue;
        }
        let s = usize::from(f.side);
        let below_half = f.strength * 2 < f.start_strength && f.strength_before * 2 >= f.start_strength;
        let after = (f.morale
            - i32::from(f.attacked)
            - i32::from(destroyed_in[s][usize::from(f.zone)])
            - i32::from(below_half)
            - 2 * i32::from(command_lost[s])
            + 2 * f.kills.clamp(0, 10)
            + 3 * f.command_kills.clamp(0, 10))
        .max(0);
        f.morale = after;
        if after <= 0 {
            f.status = Status::Broken;
            // Broke now, at morale 0: it routs.
            f.routed = true;
            any_routed = true;
            routed_in[s][usize::from(f.zone)] = true;
            command_broke[s] |= f.ty == Ty::Command;
        }
    }
    // Second pass: routs.
    if any_routed {
        for i in 0..fs.len() {
            let f = fs[i];
            if !f.active() {
                continue;
            }
            let s = usize::from(f.side);
            let mate_routed = routed_in[s][usize::from(f.zone)];
            let t = &f.targets;
            let mut routs_caused = 0;
            for (k, &u) in t.at[..usize::from(t.len)].iter().enumerate() {
                // `count(r in routed: r.u.name in f.targets)`: each routed unit once.
                if fs[usize::from(u)].routed && !t.at[..k].contains(&u) {
                    routs_caused += 1;
                }
            }
            if mate_routed || routs_caused > 0 || command_broke[s] {
                let m2 = (f.morale - i32::from(mate_routed) - 2 * i32::from(command_broke[s]) + routs_caused).clamp(0, 1000);
                let f = &mut fs[i];
                f.morale = m2;
                if m2 <= 0 {
                    f.status = Status::Broken;
                }
            }
        }
    }
    // Close Air Support leaves when its time on station is over.
    for x in fs.iter_mut() {
        if x.ty == Ty::Cas && x.active() {
            if x.cas_rounds <= 0 {
                x.status = Status::AwaitingCall;
            }
            x.cas_rounds = (x.cas_rounds - 1).max(0);
        }
    }
}

// ---------------------------------------------------------------- setting up

/// `resolver create_unit` (units.rules), with `effective_type`, `size_from_strength` and
/// `unit_morale`. `Err` carries the rules' violations.
fn create_unit(s: &UnitSpec, army_leadership: i32) -> Result<Fighter, Error> {
    let side = match s.side {
        Side::A => A,
        Side::B => B,
    };
    let in_range = |what: &str, v: i64, lo: i64, hi: i64| {
        if (lo..=hi).contains(&v) {
            Ok(v as i32)
        } else {
            Err(Error::OutOfRange {
                input: format!("unit_spec.{what}"),
                value: v.to_string(),
                min: lo.to_string(),
                max: hi.to_string(),
            })
        }
    };
    let strength = s.strength.clamp(0, 100_000) as i32;
    let rating = in_range("rating", s.rating, 1, 5)?;
    let tl = in_range("tl", s.tl, 0, 30)?;
    let given_size = s.size.map(|v| in_range("size", v, 1, 6)).transpose()?;
    let leadership = s.leadership.map(|v| in_range("leadership", v, 0, 10)).transpose()?;
    let tactics = s.tactics.map(|v| in_range("tactics", v, 0, 10)).transpose()?;
    let zone = zone_ix(s.zone);
    // effective_type: "All units equipped to Tech Level 3 or less are considered to be Close
    // Quarters units", Command excepted.
    let original = Ty::from_rules(s.unit_type);
    let ty = if tl <= 3 && original != Ty::Command {
        Ty::CloseQuarters
    } else {
        original
    };
    let caps = caps_of(ty);
    let mut violations = Vec::new();
    let mut refuse = |cite: &str, message: String| {
        violations.push(Violation {
            cite: cite.to_string(),
            message,
            // The hand-written battle knows the rules, not where the rules text says them.
            at: String::new(),
        })
    };
    let name = s.name.as_str();
    if rel(side, zone) > 2 {
        refuse(
            "Battle System: Deployment Zone",
            format!("{name} must start in one of its own army's three deployment zones"),
        );
    }
    if caps.support_start && rel(side, zone) != 0 {
        refuse(
            "Battle System: Deployment Zone",
            format!("{name}: Close Air Support and Ortillery always start in their own Support zone"),
        );
    }
    if original == Ty::Ortillery && given_size.is_none() {
        refuse(
            "Battle System: Unit Strengths",
            format!("{name}: an Ortillery unit's size cannot be read from its strength (always 1); give its size"),
        );
    }
    if original != Ty::Ortillery && given_size.is_some() {
        refuse(
            "Battle System: Unit Strengths",
            format!("{name}: only Ortillery is given a size; every other unit's size follows its strength"),
        );
    }
    if !violations.is_empty() {
        return Err(Error::Rejected { violations });
    }
    // size_from_strength: the smallest size whose maximum holds the unit's members, else 6.
    let found = UNIT_STRENGTHS[ty.i()]
        .iter()
        .position(|&max| strength <= max)
        .map_or(6, |p| p as i32 + 1);
    let size = given_size.unwrap_or(found).clamp(1, 6);
    let skill = AVERAGE_SKILL[(rating - 1) as usize];
    // unit_morale.
    let morale = rating + size + army_leadership;
    let (lead, tac) = if ty == Ty::Command {
        (leadership.unwrap_or(skill), tactics.unwrap_or(skill))
    } else {
        (0, 0)
    };
    Ok(Fighter {
        side,
        ty,
        zone,
        status: if caps.called_in { Status::AwaitingCall } else { Status::Active },
        strength,
        start_strength: strength,
        size,
        rating,
        skill,
        morale,
        start_morale: morale,
        leadership: lead,
        tactics: tac,
        tl,
        cas_rounds: 0,
        strength_before: strength,
        kills: 0,
        command_kills: 0,
        attacked: false,
        flanking: false,
        observed: false,
        promoted: false,
        blocks_used: 0,
        attackers: Attackers::EMPTY,
        targets: Targets::EMPTY,
        routed: false,
        leaving: false,
    })
}

/// The battle file's own checks (battle.rules, the `require`s of resolver battle).
fn check_battle_file(units: &[UnitSpec]) -> Result<(), Error> {
    let mut violations = Vec::new();
    for s in units {
        if units.iter().filter(|v| v.name == s.name).count() != 1 {
            violations.push(Violation {
                cite: "Battle System: Creating A Military Force".to_string(),
                message: format!("two units are called {}: each unit needs its own name", s.name.as_str()),
                at: String::new(),
            });
        }
        if s.strength < 1 {
            violations.push(Violation {
                cite: "Battle System: Member Strength".to_string(),
                message: format!("{}: Member Strength must be at least 1, not {}", s.name.as_str(), s.strength),
                at: String::new(),
            });
        }
    }
    for (side, army) in [(Side::A, "A"), (Side::B, "B")] {
        if !units.iter().any(|s| s.side == side && s.unit_type == UnitType::Command) {
            violations.push(Violation {
                cite: "Battle System: Creating A Military Force".to_string(),
                message: format!("army {army} has no Command unit: each force starts with one"),
                at: String::new(),
            });
        }
    }
    if !(units.iter().any(|s| s.side == Side::A) && units.iter().any(|s| s.side == Side::B)) {
        violations.push(Violation {
            cite: "Battle System: Creating A Military Force".to_string(),
            message: "a battle needs units on both sides".to_string(),
            at: String::new(),
        });
    }
    if violations.is_empty() {
        Ok(())
    } else {
        Err(Error::Rejected { violations })
    }
}

/// `lead_a` / `lead_b`: the Leadership of the army's first Command unit, by default the Average
/// Skill of its rating (battle.rules; Battle System: Unit Morale), `army_leadership: int 0..10`
/// of create_unit.
fn army_leadership(units: &[UnitSpec], side: Side) -> Result<i32, Error> {
    let lead = units
        .iter()
        .find(|s| s.side == side && s.unit_type == UnitType::Command)
        .map_or(0, |c| match c.leadership {
            Some(l) => l,
            None => i64::from(AVERAGE_SKILL[(c.rating.clamp(1, 5) - 1) as usize]),
        });
    match i32::try_from(lead) {
        Ok(l) if (0..=10).contains(&l) => Ok(l),
        _ => Err(Error::OutOfRange {
            input: "army_leadership".to_string(),
            value: lead.to_string(),
            min: "0".to_string(),
            max: "10".to_string(),
        }),
    }
}

// ---------------------------------------------------------------- the battle

/// `resolver battle` (battle.rules) with the rules' default policies: the same outcome as
/// `rulebook::mercenary::battle` for the same dice.
pub fn battle<D: Dice + ?Sized>(dice: &mut D, inp: &BattleInputs) -> Result<BattleOutcome, Error> {
    if !(1..=200).contains(&inp.max_rounds) {
        return Err(Error::OutOfRange {
            input: "max_rounds".to_string(),
            value: inp.max_rounds.to_string(),
            min: "1".to_string(),
            max: "200".to_string(),
        });
    }
    if inp.units.len() >= usize::from(NOBODY) {
        return Err(Error::Domain {
            what: format!("the hand-written battle takes at most {} units", NOBODY - 1),
        });
    }
    let rules = Rules {
        policy: match inp.policy {
            BattlePolicy::Balanced => Policy::Balanced,
            BattlePolicy::Aggressive => Policy::Aggressive,
            BattlePolicy::Cautious => Policy::Cautious,
        },
        dash_at_5: inp.artillery_dash_at_5,
    };
    check_battle_file(&inp.units)?;
    let lead = [army_leadership(&inp.units, Side::A)?, army_leadership(&inp.units, Side::B)?];
    let mut fs: Vec<Fighter> = Vec::with_capacity(inp.units.len());
    for s in &inp.units {
        let l = lead[usize::from(s.side == Side::B)];
        fs.push(create_unit(s, l)?);
    }

    let n = fs.len();
    // The per-round lists, allocated once: each army's plan in the rules' order and by `order`.
    let mut plan = Vec::with_capacity(2 * n);
    let mut seconds = Vec::with_capacity(n);
    let (mut sched_a, mut sched_b) = (Vec::with_capacity(2 * n), Vec::with_capacity(2 * n));
    let mut result = BattleResult::Draw;
    let mut round = 0i64;
    let mut ended = false;
    while !ended && round < inp.max_rounds {
        round += 1;
        for f in fs.iter_mut() {
            f.attacked = false;
            f.attackers = Attackers::EMPTY;
            f.targets = Targets::EMPTY;
            f.kills = 0;
            f.command_kills = 0;
            f.strength_before = f.strength;
            f.flanking = false;
            f.observed = false;
            f.blocks_used = 0;
        }

        // Command Phase.
        let (actions_a, command_a) = command_step(dice, &mut fs, A)?;
        let (actions_b, command_b) = command_step(dice, &mut fs, B)?;
        let no_command = [!command_a, !command_b];

        // Action Phase: the side with more actions activates first (a tie goes to the higher
        // Tactics, then to army A), then the sides alternate.
        plan_actions(&fs, A, actions_a.clamp(0, 1000), !command_a, rules, &mut plan, &mut seconds);
        by_order(&plan, &mut sched_a);
        plan_actions(&fs, B, actions_b.clamp(0, 1000), !command_b, rules, &mut plan, &mut seconds);
        by_order(&plan, &mut sched_b);
        let tactics = |side: u8| {
            fs.iter()
                .find(|f| f.side == side && f.ty == Ty::Command && f.active())
                .map_or(0, |f| f.tactics)
        };
        let a_first = sched_a.len() > sched_b.len() || (sched_a.len() == sched_b.len() && tactics(A) >= tactics(B));
        // Keys 2k for the side that starts, 2k + 1 for the other: the k-th actions alternate.
        let (first, then) = if a_first { (&sched_a, &sched_b) } else { (&sched_b, &sched_a) };
        for k in 0..first.len().max(then.len()) {
            for p in [first.get(k), then.get(k)].into_iter().flatten() {
                let u = usize::from(p.unit);
                let (side, ready) = (fs[u].side, fs[u].active() && fs[u].morale > 0);
                if ready {
                    perform(dice, &mut fs, u, p.kind, no_command[usize::from(side)], false, rules)?;
                }
            }
        }

        // Morale Phase.
        morale_step(&mut fs);

        // An army whose ground forces are all gone is defeated; its Ortillery and CAS withdraw.
        let mut ground = [0usize; 2];
        for f in fs.iter().filter(|f| f.active() && f.ty.ground()) {
            ground[usize::from(f.side)] += 1;
        }
        if ground[0] == 0 || ground[1] == 0 {
            result = match ground {
                [0, 0] => BattleResult::Draw,
                [0, _] => BattleResult::SideBWins,
                _ => BattleResult::SideAWins,
            };
            for f in fs.iter_mut() {
                if f.active() && !f.ty.ground() && ground[usize::from(f.side)] == 0 {
                    f.status = Status::Withdrawn;
                }
            }
            ended = true;
        } else if inp.withdrawal_phase {
            let (all_a, out_a) = withdraw(&mut fs, A, rules.policy);
            let (all_b, out_b) = withdraw(&mut fs, B, rules.policy);
            if out_a != out_b {
                // One last volley at the units that leave, by every unit of the army that stays.
                let leaving = if out_a { A } else { B };
                for f in fs.iter_mut() {
                    f.attackers = Attackers::EMPTY;
                    f.targets = Targets::EMPTY;
                    f.observed = false;
                }
                for i in 0..n {
                    let (side, fires) = (fs[i].side, fs[i].side != leaving && fs[i].active() && fs[i].morale > 0);
                    if fires {
                        perform(dice, &mut fs, i, Kind::Attack, no_command[usize::from(side)], true, rules)?;
                    }
                }
            }
            for f in fs.iter_mut() {
                if f.leaving && f.active() {
                    f.status = Status::Withdrawn;
                }
                f.leaving = false;
            }
            if all_a || all_b {
                result = match (all_a, all_b) {
                    (true, true) => BattleResult::BothWithdraw,
                    (true, false) => BattleResult::SideAWithdraws,
                    _ => BattleResult::SideBWithdraws,
                };
                ended = true;
            }
        }
    }

    let mut losses = [[0i64; 8]; 2];
    let mut left = [0i64; 2];
    for f in &fs {
        losses[usize::from(f.side)][f.ty.i()] += i64::from(f.start_strength - f.strength);
        left[usize::from(f.side)] += i64::from(f.active());
    }
    let loss_list = |side: usize| -> Vec<Loss> {
        TYPES
            .iter()
            .map(|t| Loss {
                unit_type: t.to_rules(),
                lost: losses[side][t.i()].clamp(0, 10_000_000),
            })
            .collect()
    };
    Ok(BattleOutcome {
        result,
        rounds: round,
        losses_a: loss_list(0),
        losses_b: loss_list(1),
        units_left_a: left[0],
        units_left_b: left[1],
        r#final: fs
            .iter()
            .zip(&inp.units)
            .map(|(f, s)| Unit {
                name: s.name.clone(),
                side: s.side,
                unit_type: f.ty.to_rules(),
                strength: i64::from(f.strength),
                start_strength: i64::from(f.start_strength),
                size: i64::from(f.size),
                rating: i64::from(f.rating),
                skill: i64::from(f.skill),
                morale: i64::from(f.morale),
                start_morale: i64::from(f.start_morale),
                leadership: i64::from(f.leadership),
                tactics: i64::from(f.tactics),
                tl: i64::from(f.tl),
                zone: ZONES[usize::from(f.zone)],
                status: f.status.to_rules(),
                cas_rounds: i64::from(f.cas_rounds),
            })
            .collect(),
    })
}
