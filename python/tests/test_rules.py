"""Rules read from a folder (`Rules.load`, as `--rules DIR`): an exported copy of the built-in
rules answers as they do; a broken folder raises with the command line's message and diagnostics."""

import json
import shutil

import pytest

import rulebook
from conftest import CASES


@pytest.fixture(scope="module")
def exported(tmp_path_factory, cli):
    d = tmp_path_factory.mktemp("export") / "rules"
    out = cli.run("export", str(d))
    assert out.returncode == 0, out.stderr
    return d


def test_an_exported_folder_answers_as_the_built_in_rules(exported):
    rules = rulebook.Rules.load(exported)
    assert rules.systems() == rulebook.systems()
    for resolver, inputs in CASES:
        assert rules.roll(resolver, seed=7, **inputs) == rulebook.roll(resolver, seed=7, **inputs)
        assert rules.odds(resolver, **inputs) == rulebook.odds(resolver, **inputs)
    vary = {"range_hexes": range(0, 3)}
    assert rules.sweep_json("starleader.to_hit", vary, set={"weapon": "Ghazi 10/7"}) == rulebook.sweep_json(
        "starleader.to_hit", vary, set={"weapon": "Ghazi 10/7"}
    )
    assert rulebook.check(exported)["ok"] is True


def test_an_edit_shows(exported, tmp_path):
    d = tmp_path / "rules"
    shutil.copytree(exported, d)
    weapons = d / "starleader" / "weapons.rules"
    text = weapons.read_text()
    row = next(l for l in text.splitlines() if l.strip().startswith('"Ghazi 10/7"'))
    weapons.write_text(text.replace(row, row.replace("| 10 ", "| 11 ", 1)))
    edited = rulebook.Rules.load(d).odds("starleader.to_hit", weapon="Ghazi 10/7")
    assert edited.probability(result="hit") > rulebook.odds("starleader.to_hit", weapon="Ghazi 10/7").probability(result="hit")


def test_a_broken_folder_raises_with_diagnostics(tmp_path, cli):
    d = tmp_path / "house"
    (d / "house").mkdir(parents=True)
    (d / "house" / "fire.rules").write_text('system house "House"\n\nresolver shot {\n  roll d: 2d6\n  set result = d + nope\n}\n')
    with pytest.raises(rulebook.RulebookError) as e:
        rulebook.Rules.load(d)
    assert str(e.value) == cli.error("list", "--rules", str(d))
    diags = e.value.diagnostics
    assert diags and all(x["code"].startswith(("E", "W", "N")) for x in diags)
    first = diags[0]
    assert first["code"].startswith("E") and first["severity"] == "error"
    assert first["file"].endswith("house/fire.rules") and isinstance(first["line"], int) and first["line"] >= 3
    out = cli.run("check", "--rules", str(d), "--json")
    assert out.returncode == 1
    check = json.loads(out.stdout)
    keep = ("code", "file", "line", "column", "message")
    assert [{k: x[k] for k in keep} for x in diags] == [{k: x[k] for k in keep} for x in check["diagnostics"]]
    assert rulebook.check(d)["diagnostics"] == check["diagnostics"]
    with pytest.raises(rulebook.RulebookError):
        rulebook.Rules.load(tmp_path / "missing")
