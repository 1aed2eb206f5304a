"""Shared fixtures: the command line (`RULEBOOK_BIN`, default target/debug/rulebook under the
repository, built with `cargo build --locked` when missing) and the cases run on every system."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# One resolver of each built-in system with inputs from `rulebook list SYSTEM`: rolled with a seed
# and computed exactly, by the package and by the command line.
CASES = [
    ("starleader.fire", {"weapon": "Ghazi 10/7", "range_hexes": 5, "armor_rating": 2}),
    ("starleader.to_hit", {"weapon": "Ghazi 10/7"}),
    ("t5.penetrate", {"effect": "Bullet", "rating": 2, "armor": 3}),
    ("mercenary.morale_test", {"morale": 5}),
    ("combat3000.kill", {"effect": 3, "strength": 1}),
    ("striker.radar_detection", {"sensor_tl": 12, "ecm": "basic", "ecm_tl": 10}),
]


def _binary() -> Path:
    given = os.environ.get("RULEBOOK_BIN")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    path = target / "debug" / "rulebook"
    if not path.exists():
        subprocess.run(["cargo", "build", "--locked"], cwd=REPO, check=True)
    return path


BIN = _binary()


def sets(inputs):
    """Inputs as the command line's `--set NAME=VALUE` arguments."""
    out = []
    for name, value in inputs.items():
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        out += ["--set", f"{name}={text}"]
    return out


class Cli:
    """Runs `rulebook` from the repository's root."""

    def run(self, *args):
        return subprocess.run([str(BIN), *args], cwd=REPO, capture_output=True, text=True)

    def json(self, *args):
        out = self.run(*args)
        assert out.returncode == 0, f"rulebook {' '.join(args)}: {out.stderr}"
        return json.loads(out.stdout)

    def error(self, *args):
        """The message after `error: ` of a run that fails."""
        out = self.run(*args)
        assert out.returncode != 0, f"rulebook {' '.join(args)} succeeded"
        lines = out.stderr.splitlines()
        start = next(i for i, l in enumerate(lines) if l.startswith("error: "))
        return "\n".join(lines[start:])[len("error: "):].rstrip("\n")


@pytest.fixture(scope="session")
def cli():
    return Cli()
