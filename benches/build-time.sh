#!/usr/bin/env bash
# Build times and sizes from a clean target folder (issue 39), the figures the README quotes:
#   release   `cargo build --release --locked`: the command line with all five books
#   tests     the README's test command, `cargo test --workspace --locked`, built and run
#   one-book  examples/one-book (the library with `starleader` alone; debug, the compiler in its
#             build script included): `cargo build`
#   wasm      `wasm/build.sh` (release, all five books): the module's size, and gzipped
#   generated the generated code's lines and bytes (compiler/tests/generated_size.rs)
# Each build gets a fresh target folder under $BUILD_TIME_DIR (default target/build-time), so
# nothing is reused between them or from earlier builds; downloads are not timed (`cargo fetch`
# first). Run on an otherwise idle machine; `nproc` is printed with the figures.
#
#   benches/build-time.sh                 every measurement (about half an hour on 2 cores)
#   benches/build-time.sh one-book tests  just those
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dir=${BUILD_TIME_DIR:-$root/target/build-time}
which=("$@")
[ ${#which[@]} = 0 ] && which=(generated one-book release tests wasm)
cargo fetch --locked >/dev/null

fresh() { rm -rf "$dir/$1"; mkdir -p "$dir/$1"; echo "$dir/$1"; }
timed() { # label, command...: prints "label  M min S s"
    local label=$1; shift
    local started; started=$(date +%s)
    "$@" >"$dir/$label.log" 2>&1 || { tail -30 "$dir/$label.log"; echo "build-time: $label failed" >&2; exit 1; }
    local took=$(($(date +%s) - started))
    printf '%-10s %d min %02d s\n' "$label" $((took / 60)) $((took % 60))
}

echo "build-time: $(nproc) cores, $(rustc --version)"
for w in "${which[@]}"; do
    case "$w" in
        generated)
            mkdir -p "$dir"
            cargo test -p rulebook-compiler --locked --test generated_size -- --nocapture 2>/dev/null | sed -n '/^system/,/^total/p'
            ;;
        release)
            t=$(fresh release)
            CARGO_TARGET_DIR=$t timed release cargo build --release --locked
            ;;
        tests)
            t=$(fresh tests)
            CARGO_TARGET_DIR=$t timed tests cargo test --workspace --locked
            ;;
        one-book)
            t=$(fresh one-book)
            cp Cargo.lock examples/one-book/Cargo.lock
            (cd examples/one-book && CARGO_TARGET_DIR=$t timed one-book cargo build --offline)
            rm -f examples/one-book/Cargo.lock
            ;;
        wasm)
            t=$(fresh wasm)
            CARGO_TARGET_DIR=$t timed wasm wasm/build.sh
            wasm=web/pkg/rulebook_wasm_bg.wasm
            printf 'wasm       %s bytes, %s gzipped\n' "$(stat -c %s $wasm)" "$(gzip -9c $wasm | wc -c)"
            ;;
        *)
            echo "build-time: unknown measurement $w (generated, one-book, release, tests, wasm)" >&2
            exit 2
            ;;
    esac
done
