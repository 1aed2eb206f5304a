"""The package answers as the command line does, on every built-in system: lists, seeded and
scripted rolls, exact odds (as Fractions), simulations, and the errors' messages."""

from fractions import Fraction

import pytest

import rulebook
from conftest import CASES, sets


def test_systems_and_resolvers_are_the_command_lines(cli):
    assert rulebook.systems() == cli.json("list", "--json")["systems"]
    names = [s["name"] for s in rulebook.systems()]
    assert names == sorted(["starleader", "t5", "mercenary", "combat3000", "striker"])
    for name in names:
        assert rulebook.resolvers(name) == cli.json("list", name, "--json")
    assert rulebook.resolvers("starleader.fire") == cli.json("list", "starleader.fire", "--json")


@pytest.mark.parametrize("resolver,inputs", CASES, ids=[c[0] for c in CASES])
def test_a_seeded_roll_is_the_command_lines(cli, resolver, inputs):
    for seed in (0, 7, 2**64 - 1):
        r = rulebook.roll(resolver, seed=seed, **inputs)
        doc = cli.json("roll", resolver, *sets(inputs), "--seed", str(seed), "--json")
        assert r.json == doc
        assert (r.resolver, r.inputs, r.outcome, r.trace) == (resolver, doc["inputs"], doc["outcome"], doc["trace"])
    # The inputs as a mapping are the same inputs.
    assert rulebook.roll(resolver, inputs, seed=7) == rulebook.roll(resolver, seed=7, **inputs)


@pytest.mark.parametrize("resolver,inputs", CASES, ids=[c[0] for c in CASES])
def test_odds_are_the_command_lines_as_fractions(cli, resolver, inputs):
    o = rulebook.odds(resolver, **inputs)
    doc = cli.json("odds", resolver, *sets(inputs), "--json")
    assert o.json == doc
    assert [outcome for outcome, _ in o.outcomes] == [x["outcome"] for x in doc["outcomes"]]
    assert [p for _, p in o.outcomes] == [Fraction(x["probability"]) for x in doc["outcomes"]]
    assert all(type(p) is Fraction for _, p in o.outcomes)
    assert sum(p for _, p in o.outcomes) == 1
    assert o.probability() == 1


def test_probability_sums_the_matching_outcomes():
    o = rulebook.odds("starleader.to_hit", weapon="Ghazi 10/7")
    assert o.probability(result="hit") == Fraction(145, 432)
    assert o.probability(result="miss") == Fraction(287, 432)
    assert o.probability(result="hit", raw_roll=4) == Fraction(1, 1296)
    with pytest.raises(rulebook.RulebookError, match="no field `reslt`"):
        o.probability(reslt="hit")


def test_scripted_dice_replay_a_seeded_roll(cli):
    inputs = dict(CASES[0][1])
    seeded = rulebook.roll("starleader.fire", seed=11, **inputs)
    faces = [f for e in seeded.trace if e["kind"] == "roll" for f in e["faces"]]
    assert faces
    scripted = rulebook.roll("starleader.fire", dice=faces, **inputs)
    assert scripted.json == seeded.json
    text = ",".join(map(str, faces))
    assert scripted.json == cli.json("roll", "starleader.fire", *sets(inputs), "--dice", text, "--json")


def test_sim_is_the_command_lines(cli):
    for resolver, inputs in CASES[1:3]:
        got = rulebook.sim(resolver, runs=500, seed=3, **inputs)
        assert got == cli.json("sim", resolver, *sets(inputs), "--runs", "500", "--seed", "3", "--json")
        assert got["runs"] == 500


def test_errors_carry_the_command_lines_message(cli):
    with pytest.raises(rulebook.RulebookError) as e:
        rulebook.roll("starleader.fier", weapon="Ghazi 10/7")
    assert str(e.value) == cli.error("roll", "starleader.fier", "--set", "weapon=Ghazi 10/7", "--json")
    assert "did you mean `starleader.fire`" in str(e.value)
    with pytest.raises(rulebook.RulebookError) as e:
        rulebook.odds("starleader.to_hit", weapon="Gazi")
    assert str(e.value) == cli.error("odds", "starleader.to_hit", "--set", "weapon=Gazi", "--json")
    assert str(e.value).startswith("unknown weapon `Gazi`")
    with pytest.raises(rulebook.RulebookError) as e:
        rulebook.roll("mercenary.morale_test", morale=5000)
    assert str(e.value) == cli.error("roll", "mercenary.morale_test", "--set", "morale=5000", "--json")
    assert issubclass(rulebook.RulebookError, Exception)
    assert e.value.diagnostics == ()
