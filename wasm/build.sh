#!/usr/bin/env bash
# Builds the JavaScript package into web/pkg/ (README: "JavaScript / WebAssembly"):
#   rulebook_wasm.js        the ES module to import (`--target web`), with its TypeScript types
#   rulebook_wasm_bg.wasm   the rules, compiled to WebAssembly
# It installs what it needs when it is missing: the wasm32-unknown-unknown target (rustup) and
# wasm-bindgen-cli at exactly the wasm-bindgen version of Cargo.lock (cargo install).
#
#   wasm/build.sh                  release build with the compiled rules: the package to ship
#   wasm/build.sh --dev            debug build (faster to build, larger and slower)
#   wasm/build.sh --interpreted    without the compiled rules: their text runs in the interpreter
#                                  (the same answers, byte for byte; minutes less to build)
#
# CI's browser test builds with --dev --interpreted (web/test/browser-test.sh --quick).
# Exit status 3: a tool could not be installed (the message says which); 1: the build failed.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
features=()
for arg in "$@"; do
    case "$arg" in
        --dev) profile=dev ;;
        --interpreted) features=(--no-default-features) ;;
        -h | --help)
            sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "wasm/build.sh: unknown option $arg (try --dev, --interpreted or --help)" >&2
            exit 2
            ;;
    esac
done

target=wasm32-unknown-unknown
if [ ! -d "$(rustc --print sysroot)/lib/rustlib/$target" ]; then
    echo "wasm/build.sh: installing the $target target (rustup target add $target)" >&2
    if ! rustup target add "$target"; then
        echo "wasm/build.sh: cannot install the Rust target $target; install it with \`rustup target add $target\`" >&2
        exit 3
    fi
fi

# wasm-bindgen-cli must be the very version of the wasm-bindgen library in Cargo.lock.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$version" ]; then
    echo "wasm/build.sh: no wasm-bindgen in Cargo.lock" >&2
    exit 1
fi
if ! command -v wasm-bindgen >/dev/null 2>&1 || [ "$(wasm-bindgen --version | awk '{ print $2 }')" != "$version" ]; then
    echo "wasm/build.sh: installing wasm-bindgen-cli $version (cargo install; a few minutes, once)" >&2
    if ! cargo install wasm-bindgen-cli --version "$version" --locked; then
        # The lock file published with wasm-bindgen-cli can name a dependency version that the
        # registry no longer serves (yanked): then resolve its dependencies afresh.
        echo "wasm/build.sh: cargo install --locked failed; trying again without --locked" >&2
        if ! cargo install wasm-bindgen-cli --version "$version"; then
            echo "wasm/build.sh: cannot install wasm-bindgen-cli $version (cargo install wasm-bindgen-cli --version $version)" >&2
            exit 3
        fi
    fi
fi

cargo build -p rulebook-wasm --target "$target" --profile "$profile" --locked ${features[@]+"${features[@]}"}
target_dir=${CARGO_TARGET_DIR:-target}
out_profile=$([ "$profile" = dev ] && echo debug || echo release)
wasm-bindgen --target web --out-dir web/pkg "$target_dir/$target/$out_profile/rulebook_wasm.wasm"
echo "wasm/build.sh: built web/pkg/ ($profile profile, $([ ${#features[@]} = 0 ] && echo "compiled rules" || echo "interpreted rules"), wasm-bindgen $version): $(du -h web/pkg/rulebook_wasm_bg.wasm | cut -f1) of WebAssembly" >&2
