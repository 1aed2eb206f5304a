#!/usr/bin/env bash
# What the interpreter costs (`--rules DIR`) against the compiled rules, on the README's battle:
# `sim mercenary.battle` on one thread, the same runs both ways, each `sim`'s own runs/s line;
# then an editor's `sim` of 10,000 battles with `--rules` on every core, as its own last line
# says it took.
#   benches/interp-cost.sh [BINARY] [RUNS]     default target/release/rulebook, 2000 runs
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/rulebook}
runs=${2:-2000}
[ -x "$bin" ] || { echo "interp-cost.sh: no $bin (cargo build --release --locked)" >&2; exit 2; }
sim() { # runs, extra args...: the stderr line "N runs in S s on T thread(s): R runs/s"
    local n=$1
    shift
    "$bin" sim mercenary.battle --input examples/mercenary-infantry-clash.yaml --runs "$n" --seed 7 \
        --json "$@" 2>&1 >/dev/null | grep -E '^[0-9]+ runs in '
}
rate() { sim "$runs" --threads 1 "$@" | grep -o '[0-9]* runs/s' | grep -o '[0-9]*'; }
compiled=$(rate)
interpreted=$(rate --rules rules-src)
printf 'battles a second on one thread: compiled %s, interpreted %s (%sx slower)\n' \
    "$compiled" "$interpreted" "$((compiled / (interpreted > 0 ? interpreted : 1)))"
printf 'an editor'"'"'s sim of 10000 battles with --rules: %s\n' "$(sim 10000 --rules rules-src)"
