#!/usr/bin/env bash
# What the step limit (runtime/src/steps.rs, issue 44) costs: the same source built twice, with
# the limit and with `--cfg rulebook_no_step_limit` (a step does nothing), then measured side by
# side in one run:
#   1. instructions (callgrind, benches/instructions.sh): exact, the figure to trust;
#   2. criterion (benches/fire.rs, benches/battle.rs), the two builds in alternation, ROUNDS times:
#      the build without the limit saves a baseline, the build with it is compared against that
#      baseline, and criterion says whether the difference is more than noise.
#
#   benches/steps.sh            two release builds (about 25 min on 2 cores), then the measurements
#   ROUNDS=3 benches/steps.sh   more rounds of criterion
#   ONLY=criterion benches/steps.sh    (or ONLY=instructions) one of the two measurements
# The build with the limit is target/release; the one without it is target/no-step-limit/release.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${ROUNDS:-2}
off_dir=$root/target/no-step-limit
export CRITERION_HOME=$root/target/steps-criterion

build() { # target dir, extra RUSTFLAGS: prints the fire and battle bench executables
    local dir=$1 flags=$2 log
    log=$(mktemp)
    CARGO_TARGET_DIR=$dir RUSTFLAGS=$flags cargo build --release --locked --bin rulebook >"$log" 2>&1 ||
        { tail -30 "$log" >&2; exit 1; }
    CARGO_TARGET_DIR=$dir RUSTFLAGS=$flags cargo bench --locked --no-run --bench fire --bench battle >"$log" 2>&1 ||
        { tail -30 "$log" >&2; exit 1; }
    grep -o 'Executable benches/fire.rs ([^)]*)' "$log" | sed 's/.*(\(.*\))/\1/'
    grep -o 'Executable benches/battle.rs ([^)]*)' "$log" | sed 's/.*(\(.*\))/\1/'
    rm -f "$log"
}

echo "building with the step limit (target/release) ..." >&2
mapfile -t on < <(build "$root/target" "")
echo "building without it (target/no-step-limit/release) ..." >&2
mapfile -t off < <(build "$off_dir" "--cfg rulebook_no_step_limit")
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
on_fire=$(abs "${on[0]}") on_battle=$(abs "${on[1]}")
off_fire=$(abs "${off[0]}") off_battle=$(abs "${off[1]}")

only=${ONLY:-}
if [ "$only" != criterion ]; then
    echo "== instructions (callgrind): with the limit, then without it"
    benches/instructions.sh target/release/rulebook target/no-step-limit/release/rulebook
fi
[ "$only" = instructions ] && exit 0

# The benchmarks the step counter can touch: a shot, a battle through the registry and typed.
filter='^(fire/generated|battle/one_battle|battle/one_battle_typed)$'
rm -rf "$CRITERION_HOME"
for round in $(seq "$rounds"); do
    echo "== criterion, round $round: without the limit (baseline), then with it (compared)"
    for pair in "$off_fire $on_fire" "$off_battle $on_battle"; do
        read -r without with <<<"$pair"
        "$without" --bench --warm-up-time 2 --measurement-time 5 --save-baseline no_limit "$filter" |
            grep -E '^(fire|battle)/|time:' || true
        "$with" --bench --warm-up-time 2 --measurement-time 5 --baseline no_limit "$filter" |
            grep -E '^(fire|battle)/|time:|change:|Performance|No change|noise' || true
    done
done
