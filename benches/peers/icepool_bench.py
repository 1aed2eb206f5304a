"""The icepool side of the peer benchmark (issue 15 part 2); `run.sh` beside this file runs it.

Two cases, each computed exactly with icepool, checked against rulebook's own answer (the
documents `rulebook odds ... --json` prints) and timed with timeit (best of several repeats):

(a) fire: the full outcome distribution of Starleader weapon fire (rules-src/starleader/fire.rules,
    `resolver fire`, which calls `to_hit` and `damage`) for the inputs of benches/common:
    Ghazi 10/7, target size 2, armor 5, range 5 hexes, special results and heavy hits on,
    everything else at the rules' defaults.
(b) risk: RISK attacks (3 attacker dice at most against 2 defender dice at most, highest pairs
    compared, ties to the defender) repeated until the defender has no army or the attacker one,
    from 10 armies against 10: the exact distribution of the armies left (rulebook's fixture
    benches/fixtures/risk/risk.rules, `risk.attack` run with `--until done`).

Usage (run.sh runs these):
    python icepool_bench.py measure --fire-json FIRE.json --risk-json RISK.json --out ICEPOOL.json [--repeat 7]
    python icepool_bench.py table --rulebook R1.json R2.json ... --icepool I1.json I2.json ...
FIRE.json and RISK.json are rulebook's `odds --json` documents of the two cases; `measure` checks
icepool's answers against them, exactly, then times icepool. R*.json are rulebook's timings
(`peers time`), one per round; `table` prints the side-by-side table, each side's best round.
"""

import argparse
import json
import sys
import timeit
from dataclasses import dataclass
from fractions import Fraction

import icepool
from icepool import d6

# ---------------------------------------------------------------------------------------------
# (a) Starleader weapon fire, transcribed from rules-src/starleader/fire.rules.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    """A row of the Pistol or Rifle Weapons table (rules-src/starleader/weapons.rules)."""

    kind: str  # "pistol" or "rifle": which table the row comes from
    density: int
    punch: int
    stunner: bool
    mount: bool
    range_m: int


# Only the row the benchmark fires; its columns as weapons.rules prints them.
WEAPONS = {"Ghazi 10/7": Weapon(kind="pistol", density=10, punch=7, stunner=True, mount=False, range_m=300)}

LOS_BLOCKING_SIZE = 6  # turn.rules, [6.21]

# The optional rules (system.rules); all off unless the inputs turn them on.
OPTIONS = ("special_results", "heavy_hits", "five_hits", "mounted_weapons", "stunners", "dodging", "range_note")

# `resolver fire`'s inputs and their defaults, as fire.rules declares them.
FIRE_DEFAULTS = dict(
    target_size=2,
    obstacle_size=0,
    armor_rating=0,
    target_gadgets=(),
    action="weapon_fire",
    firer_dodging=False,
    target_dodging=False,
    firer_gadgets=(),
    range_hexes=3,
    range_m=0,
    mount="none",
    stunner=False,
    firer_armor_rating=0,
    hits_this_turn=0,
    target_up=True,
)

# `resolver fire`'s outputs, in the order fire.rules declares them: an outcome is a tuple of these.
FIRE_FIELDS = (
    "result",
    "damage",
    "stun",
    "heavy_hit",
    "knocked_down",
    "drops_weapons",
    "armor_effect",
    "armor_rating_after",
    "gadget_chooser",
    "self_damage",
    "firer_armor_effect",
    "firer_armor_rating_after",
    "weapon_state",
)


def special_hit_results(r):
    """Special Hit Results Table [6.64], by the 4d6 To Hit roll."""
    if r <= 10:
        return "automatic_hit"
    if r <= 18:
        return "normal"
    if r <= 20:
        return "automatic_miss"
    if r <= 22:
        return "jammed_weapon"
    return "blown_weapon"


def heavy_hit_table(h):
    """Heavy Hit Table [6.61], by 1d6."""
    return {1: "down", 2: "down", 3: "down_lose_2_ap", 4: "down_lose_2_ap", 5: "down_lose_4_ap"}.get(h, "down_unconscious")


def armor_damage(d):
    """Damage Roll Effect on Body Armor [8.2], by the raw 2d6 Damage roll."""
    if d == 2:
        return "gadgets_off_armor_halved"
    if d == 7:
        return "gadget_destroyed_armor_minus_1"
    return "none"


def to_hit_number(w, i, opt):
    """`resolver to_hit`'s requires and its To Hit number with every modifier [6.3]."""
    if not i["obstacle_size"] < LOS_BLOCKING_SIZE:
        raise ValueError("the obstacle blocks Line-of-Sight [6.21]")
    if opt["mounted_weapons"] and w.mount and i["mount"] == "none":
        raise ValueError("a weapon with mount must be deployed or braced [7.1]")
    if not (i["range_m"] == 0 or i["range_m"] <= w.range_m):
        raise ValueError("beyond the weapon's maximum range [7.0]")
    # The gadget modifiers (targeting gadget, scrambler, [9.0]) read the gadget table, which this
    # transcription leaves out: the benchmark's gadget lists are empty.
    if i["firer_gadgets"] or i["target_gadgets"]:
        raise NotImplementedError("gadgets are not transcribed")
    target = w.density + i["target_size"] - i["obstacle_size"]
    target -= 3 if i["action"] == "counter_fire" else 0
    target -= 6 if i["action"] == "snap_fire" else 0
    target -= 2 if opt["dodging"] and i["firer_dodging"] else 0
    target -= 2 if opt["dodging"] and i["target_dodging"] else 0
    target += 3 if i["range_hexes"] <= 2 and w.kind == "pistol" else 0
    target -= 3 if i["range_hexes"] <= 2 and w.kind == "rifle" else 0
    target -= 3 if opt["mounted_weapons"] and w.mount and i["mount"] == "braced" else 0
    target -= i["range_m"] // 100 if opt["range_note"] else 0
    return target


def damage(punch, armor_rating, braced, stunner, gadgets, opt):
    """`resolver damage` [6.4]: a die over (hits, armor_effect, armor_rating_after, gadget_chooser)."""
    braced_penalty = max(punch, 0) // 2 if opt["mounted_weapons"] and braced else 0
    damages_armor = armor_rating > 0 and not (opt["stunners"] and stunner)
    # "The Hit player and firing player each roll one die, high roller selects": ties roll again.
    roll_off = (d6 - d6).reroll([0], depth='inf').map(lambda off: "hit_player" if off > 0 else "firing_player")

    def from_roll(d):
        hits = max(d + punch - armor_rating - braced_penalty, 0)
        if not damages_armor:
            return hits, "none", armor_rating, "none"
        effect = armor_damage(d)
        if effect == "gadgets_off_armor_halved":
            return hits, effect, armor_rating // 2, "none"
        if effect == "gadget_destroyed_armor_minus_1":
            # A tuple holding a die becomes a die of tuples (icepool's tupleize).
            return hits, effect, max(armor_rating - 1, 0), roll_off if gadgets > 0 else "none"
        return hits, effect, armor_rating, "none"

    return (2 @ d6).map(from_roll)


def fire_die(weapon, options=(), **inputs):
    """`resolver fire` [6.0]: the exact joint distribution of its outcome, as a die of tuples."""
    w = WEAPONS[weapon]
    i = {**FIRE_DEFAULTS, **inputs}
    opt = {o: o in options for o in OPTIONS}
    if opt["stunners"] and i["stunner"] and not w.stunner:
        raise ValueError("the weapon has no stunner version [7.2]")
    target = to_hit_number(w, i, opt)
    braced = w.mount and i["mount"] == "braced"
    is_stun = opt["stunners"] and i["stunner"]
    ar, far = i["armor_rating"], i["firer_armor_rating"]

    def outcome(result, **fields):
        o = dict(
            result=result,
            damage=0,
            stun=False,
            heavy_hit="none",
            knocked_down=False,
            drops_weapons=False,
            armor_effect="none",
            armor_rating_after=ar,
            gadget_chooser="none",
            self_damage=0,
            firer_armor_effect="none",
            firer_armor_rating_after=far,
            weapon_state="ready",
        )
        o.update(fields)
        return tuple(o[f] for f in FIRE_FIELDS)

    heavy_hit = d6.map(heavy_hit_table)

    def on_hit(hits, effect, after, chooser):
        heavy = opt["heavy_hits"] and hits >= 5
        five = opt["five_hits"] and i["target_up"] and i["hits_this_turn"] + hits >= 5

        def hit_with(heavy_effect):
            return outcome(
                "hit",
                damage=hits,
                stun=is_stun and hits > 0,
                armor_effect=effect,
                armor_rating_after=after,
                gadget_chooser=chooser,
                heavy_hit=heavy_effect,
                knocked_down=heavy or five,
                drops_weapons=heavy or five,
            )

        return heavy_hit.map(hit_with) if heavy else hit_with("none")

    def on_blown(hits, effect, after, _chooser):
        return outcome(
            "blown",
            weapon_state="destroyed",
            self_damage=hits,
            firer_armor_effect=effect,
            firer_armor_rating_after=after,
        )

    hit = damage(w.punch, ar, braced, is_stun, min(len(i["target_gadgets"]), 20), opt).map(on_hit, star=True)
    blown = damage(w.punch, far, braced, is_stun, 0, opt).map(on_blown, star=True)
    miss = outcome("miss")
    jammed = outcome("jammed", weapon_state="jammed")

    def resolve(r):
        special = special_hit_results(r) if opt["special_results"] else "normal"
        if special == "automatic_hit" or (special == "normal" and r <= target):
            return hit
        if special == "jammed_weapon":
            return jammed
        if special == "blown_weapon":
            return blown
        return miss

    return (4 @ d6).map(resolve)


# The benchmark's inputs: benches/common/mod.rs `fire_inputs`.
FIRE_CASE = dict(weapon="Ghazi 10/7", target_size=2, armor_rating=5, range_hexes=5, options=("special_results", "heavy_hits"))


def fire_case():
    return fire_die(**FIRE_CASE)


# ---------------------------------------------------------------------------------------------
# (b) RISK to elimination, as icepool's documentation writes it.
# ---------------------------------------------------------------------------------------------


def attack_sort_pair(a, d):
    """One attack, with the `sort_pair` RISK example of icepool's docs: the attacker's highest dice
    paired with the defender's, pairs won by the attacker counted (ties go to the defender).
    Both sides keep as many dice as there are pairs: with more dice on the right than on the left,
    `sort_pair` (icepool 2.2.2) pairs the left's die with the right's lowest, not its highest."""
    if a <= 1 or d == 0:
        return a, d
    a_dice, d_dice = min(a - 1, 3), min(d, 2)
    pairs = min(a_dice, d_dice)
    won = d6.pool(a_dice).highest(pairs).sort_pair(">", d6.pool(d_dice).highest(pairs)).size()
    return won.map(lambda w: (a - (pairs - w), d - w))


class EvalRisk(icepool.MultisetEvaluator):
    """The RISK evaluator of icepool's paper and its notebooks/risk.ipynb: outcomes seen from the
    highest down, `advantage` the unpaired dice of one side that rolled higher; the attacker's
    score is the pairs it won, and the defender wins the rest (ties)."""

    def initial_state(self, order, outcomes, a_size, b_size):
        if order > 0:
            raise icepool.UnsupportedOrder()
        return 0, 0, 0

    def next_state(self, state, order, outcome, a, b):
        score_a, score_b, advantage = state
        if advantage > 0:
            score_a += min(b, advantage)
        elif advantage < 0:
            score_b += min(a, -advantage)
        advantage += a - b
        return score_a, score_b, advantage

    def final_outcome(self, final_state, order, outcomes, a_size, b_size):
        return final_state[0]


eval_risk = EvalRisk()


def attack_evaluator(a, d):
    """One attack, with the paper's evaluator."""
    if a <= 1 or d == 0:
        return a, d
    a_dice, d_dice = min(a - 1, 3), min(d, 2)
    pairs = min(a_dice, d_dice)
    won = eval_risk(d6.pool(a_dice), d6.pool(d_dice))
    return won.map(lambda w: (a - (pairs - w), d - w))


def battle(attack, repeat, a=10, d=10):
    """The battle to elimination: `map(repeat=...)`, as notebooks/stack_exchange/risk_attrition.ipynb
    does it: 'inf' solves the absorbing Markov chain; a number steps the chain (stopping early once
    every state is absorbed; a battle of 10 against 10 ends within 19 attacks)."""
    return icepool.Die([(a, d)]).map(attack, star=True, repeat=repeat)


RISK_VARIANTS = {
    "sort_pair, repeat='inf'": lambda: battle(attack_sort_pair, "inf"),
    "sort_pair, repeat=19": lambda: battle(attack_sort_pair, 19),
    "evaluator, repeat='inf'": lambda: battle(attack_evaluator, "inf"),
    "evaluator, repeat=19": lambda: battle(attack_evaluator, 19),
}

# ---------------------------------------------------------------------------------------------
# Agreement with rulebook, timing, report.
# ---------------------------------------------------------------------------------------------


def die_fractions(die, key=lambda o: o):
    total = die.denominator()
    out = {}
    for o, q in die.items():
        k = key(o)
        out[k] = out.get(k, Fraction(0)) + Fraction(q, total)
    return {k: p for k, p in out.items() if p}


def rulebook_fractions(doc, fields):
    out = {}
    for entry in doc["outcomes"]:
        k = tuple(entry["outcome"][f] for f in fields)
        n, d = entry["probability"].split("/")
        out[k] = out.get(k, Fraction(0)) + Fraction(int(n), int(d))
    return out


def check_same(name, ours, theirs):
    if ours != theirs:
        only_ours = sorted(set(ours) - set(theirs), key=repr)[:5]
        only_theirs = sorted(set(theirs) - set(ours), key=repr)[:5]
        differ = [(k, ours[k], theirs[k]) for k in sorted(set(ours) & set(theirs), key=repr) if ours[k] != theirs[k]][:5]
        sys.exit(
            f"{name}: icepool and rulebook disagree\n  only icepool: {only_ours}\n"
            f"  only rulebook: {only_theirs}\n  different: {differ}"
        )
    assert sum(ours.values()) == 1, f"{name}: probabilities do not sum to 1"


def best_time(fn, repeat, min_total=0.2):
    """timeit: calls per repeat chosen so a repeat lasts at least `min_total` s; best per call."""
    timer = timeit.Timer(fn)
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_total or number >= 1 << 20:
            break
        number *= 2 if t * 2 >= min_total else max(2, min(10, int(min_total / max(t, 1e-9))))
    return min(timer.repeat(repeat=repeat, number=number)) / number, number


def fmt_time(s):
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def measure(args):
    """Checks icepool's answers against rulebook's documents, exactly, and times them."""
    results = {"icepool_version": icepool.__version__, "python": sys.version.split()[0]}

    # (a) Cold: the first computation in this process; then agreement; then best of repeats.
    t0 = timeit.default_timer()
    fire = fire_case()
    cold = timeit.default_timer() - t0
    with open(args.fire_json) as f:
        fire_doc = json.load(f)
    check_same("fire", die_fractions(fire), rulebook_fractions(fire_doc, FIRE_FIELDS))
    best, number = best_time(fire_case, args.repeat)
    results["fire"] = {"best_s": best, "first_call_s": cold, "calls_per_repeat": number, "outcomes": len(fire)}
    print(f"(a) fire: {len(fire)} outcomes, the same as rulebook's, exactly; icepool best {fmt_time(best)} "
          f"({args.repeat} repeats of {number}), first call {fmt_time(cold)}", file=sys.stderr)

    # (b) Every variant: cold, agreement, then best of repeats.
    with open(args.risk_json) as f:
        risk_doc = json.load(f)
    theirs = rulebook_fractions(risk_doc, ("attackers", "defenders"))
    won = sum((p for (a, d), p in theirs.items() if d == 0), Fraction(0))
    results["risk_attacker_wins"] = f"{won.numerator}/{won.denominator}"
    results["risk"] = {}
    for name, fn in RISK_VARIANTS.items():
        t0 = timeit.default_timer()
        die = fn()
        cold = timeit.default_timer() - t0
        ours = die_fractions(die)
        check_same(f"risk ({name})", ours, theirs)
        ice_won = sum((p for (a, d), p in ours.items() if d == 0), Fraction(0))
        assert ice_won == won, f"risk ({name}): attacker wins {ice_won}, rulebook {won}"
        best, number = best_time(fn, args.repeat)
        results["risk"][name] = {"best_s": best, "first_call_s": cold, "calls_per_repeat": number}
        print(f"(b) risk, icepool {name}: attacker wins {float(ice_won):.4%} ({len(ours)} end states), the same "
              f"as rulebook's, exactly; best {fmt_time(best)}, first call {fmt_time(cold)}", file=sys.stderr)

    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)


def best_of(docs, *path):
    """The smallest value at `path` over the rounds' documents."""
    def get(d):
        for k in path:
            d = d[k]
        return d
    return min(get(d) for d in docs)


def table(args):
    """The side-by-side table: per side, the best time over every round; icepool's over rulebook's."""
    rb = [json.load(open(f)) for f in args.rulebook]
    ice = [json.load(open(f)) for f in args.icepool]
    variants = list(ice[0]["risk"])
    risk_best = {k: best_of(ice, "risk", k, "best_s") for k in variants}
    fastest = min(variants, key=risk_best.get)
    rows = [
        ("(a) Starleader fire, full distribution", best_of(rb, "fire", "best_s"), best_of(ice, "fire", "best_s"), 500.0),
        ("(b) RISK 10v10 to elimination", best_of(rb, "risk", "best_s"), risk_best[fastest], 1.0),
    ]
    print(f"\nicepool {ice[0]['icepool_version']} on Python {ice[0]['python']}; rulebook compiled (release); "
          f"each time the best of {len(rb)} rounds of best-of-{rb[0]['repeat']} repeats, the two sides taking turns\n")
    head = ("case", "rulebook", "icepool", "ratio", "goal", "met")
    lines = [head]
    for case, r, i, goal in rows:
        ratio = i / r
        lines.append((case, fmt_time(r), fmt_time(i), f"{ratio:,.1f}×", f"≥{goal:g}×" if goal > 1 else "ahead (>1×)",
                      "met" if ratio >= goal and ratio > 1 else "not met"))
    widths = [max(len(line[k]) for line in lines) for k in range(len(head))]
    for n, line in enumerate(lines):
        print("  ".join(cell.ljust(widths[k]) if k == 0 else cell.rjust(widths[k]) for k, cell in enumerate(line)))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    print()
    print(f"(b) icepool's time is its fastest variant, {fastest}; every variant: "
          + "; ".join(f"{k} {fmt_time(v)}" for k, v in risk_best.items()))
    print(f"(b) the attacker conquers with probability {ice[0]['risk_attacker_wins']} on both sides")
    print(f"icepool's first calls (cold caches; the table is warm): fire {fmt_time(best_of(ice, 'fire', 'first_call_s'))}; "
          + "; ".join(f"{k} {fmt_time(best_of(ice, 'risk', k, 'first_call_s'))}" for k in variants))
    if args.interpreter_ms is not None:
        print(f"(b) through rulebook's interpreter instead (rulebook odds risk.attack --rules benches/fixtures ... "
              f"--until done, one run, process start included): {args.interpreter_ms} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="check icepool against rulebook's answers, then time it")
    m.add_argument("--fire-json", required=True, help="rulebook's `odds starleader.fire --json` document")
    m.add_argument("--risk-json", required=True, help="rulebook's `odds risk.attack --until done --json` document")
    m.add_argument("--repeat", type=int, default=7, help="timeit repeats; the best is kept")
    m.add_argument("--out", required=True, help="write icepool's timings here (JSON)")
    t = sub.add_parser("table", help="print the side-by-side table of timings measured in rounds")
    t.add_argument("--rulebook", nargs="+", required=True, help="rulebook's timings, one JSON per round (`peers time`)")
    t.add_argument("--icepool", nargs="+", required=True, help="icepool's timings, one JSON per round (`measure`)")
    t.add_argument("--interpreter-ms", type=int, help="the CLI's time for RISK through the interpreter")
    args = ap.parse_args()
    measure(args) if args.command == "measure" else table(args)


if __name__ == "__main__":
    main()
