#!/usr/bin/env bash
# Builds the JavaScript package into web/pkg/ (README: "JavaScript / WebAssembly"):
#   rulebook_wasm.js        the ES module to import (`--target web`), with its TypeScript types
#   rulebook_wasm_bg.wasm   the rules, compiled to WebAssembly
# It needs only cargo and rustup: it adds the wasm32-unknown-unknown target when it is missing,
# and builds wasm/bindgen/, our own small wasm-bindgen (`--target web` only) on wasm-bindgen's
# library pinned to the wasm-bindgen version of Cargo.lock, from its own committed Cargo.lock
# (`--locked`), into $CARGO_TARGET_DIR/bindgen/: once, in about a minute and a half of CPU;
# a second build finds it there. Nothing is installed with `cargo install`.
#
#   wasm/build.sh                  release build with the compiled rules: the package to ship
#   wasm/build.sh --dev            debug build (faster to build, larger and slower)
#   wasm/build.sh --interpreted    without the compiled rules: their text runs in the interpreter
#                                  (the same answers, byte for byte; minutes less to build)
#
# CI's browser test builds with --dev --interpreted (web/test/browser-test.sh --quick).
# Exit status 3: something could not be installed or downloaded (the message says what);
# 1: the build failed, or wasm/bindgen/ does not pin Cargo.lock's wasm-bindgen (it says how to fix).
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
features=()
for arg in "$@"; do
    case "$arg" in
        --dev) profile=dev ;;
        --interpreted) features=(--no-default-features) ;;
        -h | --help)
            sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
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

# The glue must come from the very wasm-bindgen version the package links (its schema differs
# from version to version): wasm/bindgen/ pins wasm-bindgen-cli-support to Cargo.lock's wasm-bindgen.
locked_version() { # the version of package $1 in lock file $2
    awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' "$2"
}
version=$(locked_version wasm-bindgen Cargo.lock)
tool_version=$(locked_version wasm-bindgen-cli-support wasm/bindgen/Cargo.lock)
if [ -z "$version" ] || [ "$version" != "$tool_version" ]; then
    {
        echo "wasm/build.sh: Cargo.lock has wasm-bindgen ${version:-(none)}, but wasm/bindgen/Cargo.lock has wasm-bindgen-cli-support ${tool_version:-(none)}: they must be the same version."
        echo "  To follow Cargo.lock: in wasm/bindgen/Cargo.toml set wasm-bindgen-cli-support and wasm-bindgen-shared to \"=${version:-VERSION}\","
        echo "  run \`cargo update --manifest-path wasm/bindgen/Cargo.toml -p wasm-bindgen-cli-support\`, and commit both files."
    } >&2
    exit 1
fi

target_dir=${CARGO_TARGET_DIR:-target}
bindgen_manifest=(--manifest-path wasm/bindgen/Cargo.toml --locked)
if ! cargo fetch "${bindgen_manifest[@]}" --quiet; then
    echo "wasm/build.sh: cannot download the crates of wasm/bindgen/ (cargo fetch --manifest-path wasm/bindgen/Cargo.toml)" >&2
    exit 3
fi
cargo build "${bindgen_manifest[@]}" --target-dir "$target_dir/bindgen"
bindgen=$target_dir/bindgen/debug/rulebook-wasm-bindgen

# The WebAssembly module is built for size: optimised for size (`opt-level = "z"`), fat LTO in one
# code generation unit, symbols stripped. Measured with `benches/build-time.sh wasm` (issue 39), all
# five books: 8,238,760 bytes (1,669,301 gzipped), built in 5 min 25 s; cargo's defaults (speed,
# 16 units, no LTO) gave 14,976,765 bytes (3,283,302 gzipped) in 7 min 23 s. The answers do not
# depend on it: the rules are exact integers and decimals. Each setting can be overridden from the
# environment (CARGO_PROFILE_RELEASE_OPT_LEVEL=3 ...).
CARGO_PROFILE_RELEASE_OPT_LEVEL=${CARGO_PROFILE_RELEASE_OPT_LEVEL:-z} \
CARGO_PROFILE_RELEASE_LTO=${CARGO_PROFILE_RELEASE_LTO:-fat} \
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=${CARGO_PROFILE_RELEASE_CODEGEN_UNITS:-1} \
CARGO_PROFILE_RELEASE_STRIP=${CARGO_PROFILE_RELEASE_STRIP:-true} \
    cargo build -p rulebook-wasm --target "$target" --profile "$profile" --locked ${features[@]+"${features[@]}"}
out_profile=$([ "$profile" = dev ] && echo debug || echo release)
"$bindgen" --target web --out-dir web/pkg "$target_dir/$target/$out_profile/rulebook_wasm.wasm"
echo "wasm/build.sh: built web/pkg/ ($profile profile, $([ ${#features[@]} = 0 ] && echo "compiled rules" || echo "interpreted rules"), wasm-bindgen $version): $(du -h web/pkg/rulebook_wasm_bg.wasm | cut -f1) of WebAssembly" >&2
