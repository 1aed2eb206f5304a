#!/usr/bin/env bash
# One book at a time (issue 39): builds and tests the one-book application (`src/main.rs`), then
# the command line with only the `starleader` feature, and checks that it runs the tour and names
# a left-out book as such. CI runs this; from the project root: `examples/one-book/check.sh`.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
target="$root/target/one-book"
# The project's lockfile: the same dependency versions as every other build (not `--locked`:
# cargo adds this package to the copy).
cp "$root/Cargo.lock" Cargo.lock
trap 'rm -f "$root/examples/one-book/Cargo.lock"' EXIT
CARGO_TARGET_DIR="$target" cargo test --offline --quiet
CARGO_TARGET_DIR="$target" cargo run --offline --quiet | tail -3

cd "$root"
CARGO_TARGET_DIR="$target" cargo build --locked --offline --quiet --no-default-features --features cli,starleader --bin rulebook
bin="$target/debug/rulebook"
fail() { echo "one-book check: $*" >&2; exit 1; }
tour=$("$bin" tour) || fail "the tour failed"
grep -q "^(skipped: the system \`striker\` is left out of this build" <<<"$tour" || fail "the tour did not skip Striker's step: $tour"
grep -q "Starleader 12.1" <<<"$tour" || fail "the tour lost Starleader's steps"
set +e
err=$("$bin" roll striker.horizon --set world_size=8 2>&1); code=$?
set -e
[ "$code" = 2 ] || fail "roll of a left-out book exited $code: $err"
grep -q "the system \`striker\` is left out of this build: turn on its Cargo feature (\`--features striker\`)" <<<"$err" || fail "$err"
# The left-out book still runs from its rules text.
"$bin" roll striker.horizon --set world_size=4 --rules rules-src --json | grep -q '"horizon_cm": 358' || fail "--rules rules-src did not run Striker"
"$bin" list | grep -q "left out of this build (their Cargo features are off): combat3000, mercenary, striker, t5" || fail "list did not name the left-out books"
echo "one-book check: ok (the library with starleader alone, and its command line)"
