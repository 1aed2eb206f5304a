"""The Dask example on a local cluster of two worker processes: the shards computed by the
workers and merged are a single machine's `rulebook.sweep_json` and the command line's
`rulebook sweep --json`, byte for byte after json.loads."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rulebook

distributed = pytest.importorskip("dask.distributed")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep  # noqa: E402  (examples/dask/sweep.py)

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("RULEBOOK_BIN") or str(Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug" / "rulebook")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


def test_shards_on_two_workers_merge_into_one_run(client):
    vary = {"weapon": "Jaffna 9/4,Ghazi 10/7,Vanert 12/7", "range_hexes": "0..4"}
    fixed = {"target_size": "1"}
    doc = sweep.run(client, "starleader.to_hit", vary, fixed, ["result"], shards=4)
    # Both workers took tasks.
    assert len(client.scheduler_info()["workers"]) == 2
    one = rulebook.sweep_json("starleader.to_hit", vary, set=fixed, field=["result"])
    assert json.loads(doc) == json.loads(one)
    cli = subprocess.run(
        [BIN, "sweep", "starleader.to_hit", "--vary", "weapon=Jaffna 9/4,Ghazi 10/7,Vanert 12/7", "--vary", "range_hexes=0..4",
         "--set", "target_size=1", "--field", "result", "--json"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )
    assert json.loads(doc) == json.loads(cli.stdout)
    assert json.loads(doc)["grid_points"] == 15 and len(json.loads(doc)["points"]) == 15


def test_the_script_prints_csv_and_refuses_mistakes(capsys):
    argv = ["mercenary.morale_test", "--vary", "morale=0..6", "--vary", "no_command=all", "--shards", "3", "--workers", "2"]
    assert sweep.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "point,morale,no_command,outcome,probability,simulated,error"
    assert len({l.split(",")[0] for l in lines[1:]}) == 14
    assert sweep.main(["mercenary.morale_test", "--vary", "morale=0..6", "--vary", "no_command=all", "--json", "--shards", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(rulebook.sweep_json("mercenary.morale_test", {"morale": "0..6", "no_command": "all"}))
    assert sweep.main(["mercenary.morale_test", "--vary", "moral=0..6"]) == 2
    assert "has no input `moral`" in capsys.readouterr().err
