#!/usr/bin/env bash
# Instructions counted by callgrind (valgrind) for three workloads of a `rulebook` binary: exact
# and repeatable where timings on a shared machine are not. Compare two builds side by side:
#   benches/instructions.sh target/release/rulebook other/target/release/rulebook
# The workloads: `sim` of 100,000 Starleader shots, the exact odds of a shot with its optional
# results, and `sim` of 3,000 Mercenary infantry battles (one thread each).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 3; }
[ $# -gt 0 ] || { echo "usage: benches/instructions.sh BINARY [BINARY...]" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # binary, args...: the instructions of one run
    local bin=$1; shift
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$bin" "$@" >/dev/null 2>"$out/err"
    grep -o 'Collected : [0-9]*' "$out/err" | grep -o '[0-9]*'
}
printf '%-44s %15s %15s %15s\n' binary "fire sim" "fire odds" "battle sim"
for bin in "$@"; do
    fire=$(count "$bin" sim starleader.fire --set "weapon=Ghazi 10/7" --runs 100000 --seed 7 --threads 1 --json)
    odds=$(count "$bin" odds starleader.fire --set "weapon=Ghazi 10/7" --set special_results=true --set heavy_hits=true --json)
    battle=$(count "$bin" sim mercenary.battle --input examples/mercenary-infantry-clash.yaml --runs 3000 --seed 7 --threads 1 --json)
    printf '%-44s %15s %15s %15s\n' "$bin" "$fire" "$odds" "$battle"
done
