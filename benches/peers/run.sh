#!/usr/bin/env bash
# The icepool peer benchmark (issue 15 part 2): rulebook and icepool computing the same exact
# distributions, checked to agree, timed in one run on this machine, with a table of the ratios.
# README.md beside this file says what each case computes. Not run by CI or the tests.
#
#   benches/peers/run.sh                  # from a clean clone: builds, installs icepool, measures
#   REPEAT=15 ROUNDS=5 benches/peers/run.sh   # more repeats and rounds (default 7 and 3)
#   PYTHON=python3.11 benches/peers/run.sh    # another Python (3.10 and 3.11 get icepool 2.1.3)
#   ICEPOOL=2.1.3 benches/peers/run.sh        # another icepool
#
# Needs cargo, python3 (3.10 or later; 3.12 or later gets the newest icepool) and PyPI. The venv is
# made in a temporary folder and removed at the end; cargo builds into $CARGO_TARGET_DIR (default
# target/ of this checkout). The measurements take about a minute; the release build from nothing
# takes minutes more (the generated rules are most of it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
repeat="${REPEAT:-7}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Python: $PYTHON, else the newest python3.13 / python3.12 found (also pyenv's), else python3.
newer() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
pick_python() {
    if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return; fi
    for c in python3.13 python3.12; do
        if command -v "$c" >/dev/null 2>&1 && newer "$c"; then echo "$c"; return; fi
    done
    if command -v pyenv >/dev/null 2>&1; then
        for v in $(pyenv versions --bare 2>/dev/null | sort -rV); do
            p="$(pyenv root)/versions/$v/bin/python3"
            if [ -x "$p" ] && newer "$p"; then echo "$p"; return; fi
        done
    fi
    echo python3
}
py="$(pick_python)"
# icepool 2.2.x needs Python 3.12; 2.1.3 is the newest for 3.10 and 3.11. Pinned either way.
if newer "$py"; then icepool_pin="icepool==${ICEPOOL:-2.2.2}"; else icepool_pin="icepool==${ICEPOOL:-2.1.3}"; fi

echo "== icepool: $icepool_pin on $("$py" --version 2>&1), in a throwaway venv" >&2
"$py" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$icepool_pin"

echo "== rulebook: release builds (the CLI, and benches/peers with the compiled RISK fixture)" >&2
(cd "$root" && cargo build --release --locked -p rulebook -p rulebook-peers)
rulebook="$CARGO_TARGET_DIR/release/rulebook"
peers="$CARGO_TARGET_DIR/release/peers"

echo "== rulebook's answers, from the CLI (what icepool's answers are checked against)" >&2
"$rulebook" odds starleader.fire --set weapon="Ghazi 10/7" --set target_size=2 --set armor_rating=5 \
    --set range_hexes=5 --set special_results=true --set heavy_hits=true --json >"$work/fire.json"
start=$(date +%s%N)
"$rulebook" odds risk.attack --rules "$root/benches/fixtures" --set attackers=10 --set defenders=10 \
    --until done --json >"$work/risk.json"
interp_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "   (the interpreter's RISK 10v10, the CLI with --rules: ${interp_ms} ms, start-up included)" >&2
"$peers" check "$work/fire.json" "$work/risk.json"

# The two sides take turns, ROUNDS times (3 unless said), so that a busy moment of a shared machine
# does not fall on one side only; the table takes each side's best round.
rounds="${ROUNDS:-3}"
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds: timing rulebook (compiled), then icepool; best of $repeat repeats each" >&2
    "$peers" time --repeat "$repeat" >"$work/rulebook-$round.json"
    "$work/venv/bin/python" "$here/icepool_bench.py" measure --fire-json "$work/fire.json" \
        --risk-json "$work/risk.json" --repeat "$repeat" --out "$work/icepool-$round.json"
done
"$work/venv/bin/python" "$here/icepool_bench.py" table --rulebook "$work"/rulebook-*.json \
    --icepool "$work"/icepool-*.json --interpreter-ms "$interp_ms"
