"""Sweeps: the package's document is `rulebook sweep --json`; vary values given as ranges, lists
or the command line's specs; shards merged are one run; tables with Fraction probabilities."""

import json
from fractions import Fraction

import pytest

import rulebook

VARY_CLI = ["--vary", "weapon=Jaffna 9/4,Ghazi 10/7", "--vary", "range_hexes=0..3"]
VARY = {"weapon": ["Jaffna 9/4", "Ghazi 10/7"], "range_hexes": range(0, 4)}


def test_a_sweep_is_the_command_lines(cli):
    got = json.loads(rulebook.sweep_json("starleader.to_hit", VARY, set={"target_size": 1}, field=["result"]))
    want = cli.json("sweep", "starleader.to_hit", *VARY_CLI, "--set", "target_size=1", "--field", "result", "--json")
    assert got == want
    assert got["grid_points"] == 8 and len(got["points"]) == 8
    # The command line's specs, as text, give the same document.
    specs = {"weapon": "Jaffna 9/4,Ghazi 10/7", "range_hexes": "0..3"}
    assert json.loads(rulebook.sweep_json("starleader.to_hit", specs, set={"target_size": 1}, field="result")) == want
    # `all`, and a whole outcome per row without --field.
    got = json.loads(rulebook.sweep_json("mercenary.morale_test", {"morale": range(0, 13, 3), "no_command": "all"}))
    want = cli.json("sweep", "mercenary.morale_test", "--vary", "morale=0,3,6,9,12", "--vary", "no_command=all", "--json")
    assert got == want and got["grid_points"] == 10


def test_shards_merged_are_one_run(cli, tmp_path):
    whole = rulebook.sweep_json("starleader.to_hit", VARY, set={"target_size": 1})
    shards = [rulebook.sweep_json("starleader.to_hit", VARY, set={"target_size": 1}, shard=(i, 3)) for i in (1, 2, 3)]
    assert [len(json.loads(s)["points"]) for s in shards] == [3, 3, 2]
    assert json.loads(rulebook.merge(reversed(shards))) == json.loads(whole)
    assert json.loads(rulebook.merge([json.loads(s) for s in shards])) == json.loads(whole)
    # The command line's merge of the same shards agrees.
    files = []
    for i, s in enumerate(shards):
        f = tmp_path / f"shard{i}.json"
        f.write_text(s)
        files.append(str(f))
    assert cli.json("merge", "--json", *files) == json.loads(whole)
    other = rulebook.sweep_json("starleader.to_hit", {"range_hexes": "0..3"}, set={"weapon": "Ghazi 10/7"}, shard=(2, 3))
    with pytest.raises(rulebook.RulebookError, match="shard 2: not a shard of the same sweep"):
        rulebook.merge([shards[0], other])


def test_a_sweep_as_a_table():
    pandas = pytest.importorskip("pandas")
    frame = rulebook.sweep("starleader.to_hit", VARY, set={"target_size": 1}, field="result")
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["point", "weapon", "range_hexes", "result", "probability", "simulated", "error"]
    assert all(type(p) is Fraction for p in frame["probability"])
    assert frame["range_hexes"].tolist()[:2] == [0, 0]
    assert all(frame.groupby("point")["probability"].sum() == 1)
    rows = rulebook.sweep("starleader.to_hit", VARY, set={"target_size": 1}, field="result", as_frame=False)
    assert rows == frame.to_dict("records")
    hit = [r["probability"] for r in rows if r["result"] == "hit" and r["weapon"] == "Ghazi 10/7" and r["range_hexes"] == 3]
    odds = rulebook.odds("starleader.to_hit", weapon="Ghazi 10/7", range_hexes=3, target_size=1)
    assert hit == [odds.probability(result="hit")]


def test_sweep_mistakes_raise_before_any_work(cli):
    with pytest.raises(rulebook.RulebookError) as e:
        rulebook.sweep_json("starleader.to_hit", {"wepon": "all"})
    assert str(e.value) == cli.error("sweep", "starleader.to_hit", "--vary", "wepon=all", "--json")
    with pytest.raises(rulebook.RulebookError, match="--shard"):
        rulebook.sweep_json("starleader.to_hit", VARY, shard=(0, 3))
    with pytest.raises(rulebook.RulebookError, match="holds a comma"):
        rulebook.sweep_json("starleader.to_hit", {"weapon": ["a,b"]})
    with pytest.raises(rulebook.RulebookError, match="both varied and given"):
        rulebook.sweep_json("starleader.to_hit", VARY, set={"weapon": "Ghazi 10/7"})
