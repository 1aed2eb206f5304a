"""`rulebook.best` against `rulebook best --json`: the same document, values as Fractions, on the
Pig fixture (hold at 20, the known answer) and the RISK attack; mistakes raise with the command
line's words."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

import rulebook

ROOT = Path(__file__).resolve().parents[2]


def test_pig_holds_at_twenty_as_the_command_line_says(cli):
    rules = rulebook.Rules.load(ROOT / "tests" / "fixtures" / "decisions")
    best = rules.best("pig.turn", total=0, until="done", maximize="banked", rounds=60)
    assert best.decide == "roll_again"
    assert best.optimal == Fraction(492303203, 60466176)
    assert best.choice(total=19) == [True]
    assert best.choice(total=20) == [False, True]
    assert best.choice(total=21) == [False]
    out = cli.run(
        "best", "pig.turn", "--rules", str(ROOT / "tests" / "fixtures" / "decisions"), "--set", "total=0",
        "--until", "done", "--maximize", "banked", "--rounds", "60", "--json",
    )
    assert out.returncode == 0, out.stderr
    assert best.json == json.loads(out.stdout)


def test_risk_compares_the_rules_own_choice_and_a_fixed_one(cli):
    rules = rulebook.Rules.load(ROOT / "benches" / "fixtures")
    best = rules.best(
        "risk.attack", attackers=6, defenders=4, until="done", maximize="defenders == 0", decide="stop_at=1..6",
        against={"stop_at": 4},
    )
    assert best.compared == [
        ("the rules' own (stop_at = 1)", Fraction(1166853115687865, 1828079220031488)),
        ("stop_at = 4", Fraction(659100625, 2176782336)),
    ]
    assert best.optimal == best.compared[0][1]


def test_mistakes_raise_with_the_command_lines_words():
    with pytest.raises(rulebook.RulebookError, match="gravity_movement declares no `choice` input"):
        rulebook.best("striker.gravity_movement", rate_cm=10, until="rate_cm", maximize="rate_cm")
    rules = rulebook.Rules.load(ROOT / "benches" / "fixtures")
    with pytest.raises(rulebook.RulebookError, match="has no output `conquered`"):
        rules.best("risk.attack", attackers=3, defenders=2, until="done", maximize="conquered")
