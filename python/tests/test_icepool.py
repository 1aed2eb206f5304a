"""The Starleader to-hit roll (rules-src/starleader/fire.rules: 4d6 against the To Hit number, a
hit when the roll is at most it) computed by icepool gives rulebook's exact odds."""

import pytest

import rulebook

icepool = pytest.importorskip("icepool")


@pytest.mark.parametrize("weapon,target_size", [("Ghazi 10/7", 2), ("Jaffna 9/4", 1), ("Vanert 12/7", -1)])
def test_icepool_agrees_on_the_hit_distribution(weapon, target_size):
    inputs = {"weapon": weapon, "target_size": target_size, "range_hexes": 5}
    odds = rulebook.odds("starleader.to_hit", **inputs)
    # The To Hit number does not depend on the dice: any roll shows it.
    target = rulebook.roll("starleader.to_hit", seed=0, **inputs).outcome["target"]
    roll = 4 @ icepool.d6
    hit = roll <= target
    assert odds.probability(result="hit") == hit.probability(True)
    assert odds.probability(result="miss") == hit.probability(False)
    # The raw roll's whole distribution, face by face.
    for total in range(4, 25):
        assert odds.probability(raw_roll=total) == roll.probability(total)
