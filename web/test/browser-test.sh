#!/usr/bin/env bash
# The browser test of web/: builds the package (wasm/build.sh), serves web/ on localhost, and in
# headless Chromium resolves a Starleader fire with seed 7 through the form, checking the trace,
# the outcome, the README's snippet (web/example.js) and the odds bars against what the command
# line prints for the same shot (browser-test.mjs says what is checked). Screenshots go to
# web/test/artifacts/.
#
#   web/test/browser-test.sh           with the package wasm/build.sh ships (release, compiled rules)
#   web/test/browser-test.sh --quick   with a debug package of the interpreted rules (the same
#                                      answers, minutes less to build: what CI runs)
#   web/test/browser-test.sh --no-build   with web/pkg/ as it is
#
# It installs what is missing: Debian's chromium (apt-get) when /usr/bin/chromium is not there,
# playwright-core (npm, into web/test/node_modules), and the wasm32 target (wasm/build.sh).
# The command line's answers come from `cargo run`, or from the binary $RULEBOOK_BIN when set
# (CI passes the one its tests built: `cargo run` could build the generated resolvers again).
# Exit status 0: passed; 1: failed; 3: something it needs could not be installed (the message
# says what), so the test could not run.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

build=(wasm/build.sh)
for arg in "$@"; do
    case "$arg" in
        --quick) build=(wasm/build.sh --dev --interpreted) ;;
        --no-build) build=() ;;
        *)
            echo "browser-test.sh: unknown option $arg (try --quick or --no-build)" >&2
            exit 2
            ;;
    esac
done

unavailable() {
    echo "browser test: cannot run: $1" >&2
    exit 3
}

if [ ! -x /usr/bin/chromium ]; then
    echo "browser test: installing Debian's chromium (apt-get)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
        unavailable "Chromium is not installed and apt-get could not install it (apt-get install chromium)"
    [ -x /usr/bin/chromium ] || unavailable "apt-get installed chromium, but there is no /usr/bin/chromium"
fi
command -v node >/dev/null 2>&1 || unavailable "no Node.js (node) to drive Chromium"
if [ ! -f web/test/node_modules/playwright-core/package.json ]; then
    (cd web/test && npm ci --no-audit --no-fund --loglevel=error) ||
        unavailable "npm could not install playwright-core into web/test/node_modules"
fi

if [ ${#build[@]} -gt 0 ]; then
    status=0
    "${build[@]}" || status=$?
    if [ "$status" = 3 ]; then
        unavailable "wasm/build.sh could not install what it needs (above)"
    elif [ "$status" != 0 ]; then
        echo "browser test: the package did not build" >&2
        exit 1
    fi
fi
[ -f web/pkg/rulebook_wasm.js ] || { echo "browser test: no web/pkg/ (run wasm/build.sh)" >&2; exit 1; }

# What the command line says for the same shot.
work=$(mktemp -d)
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
if [ -n "${RULEBOOK_BIN:-}" ]; then
    rulebook=("$RULEBOOK_BIN")
else
    rulebook=(cargo run --locked --quiet --)
fi
shot=(starleader.fire --input examples/starleader-fire.yaml)
"${rulebook[@]}" roll "${shot[@]}" --seed 7 >"$work/roll.txt"
"${rulebook[@]}" roll "${shot[@]}" --seed 7 --json >"$work/roll.json"
"${rulebook[@]}" odds "${shot[@]}" --json >"$work/odds.json"
# The same shot as counter-fire at a dodging target, with the optional rules that apply: modifiers.
"${rulebook[@]}" roll "${shot[@]}" --seed 7 --set action=counter_fire --set target_dodging=true \
    --set special_results=true --set dodging=true >"$work/roll-modifiers.txt"

# web/ on a free localhost port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory web >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.html')" 2>/dev/null && break
    sleep 0.1
done

mkdir -p web/test/artifacts
PAGE_URL="http://127.0.0.1:$port/index.html" \
    EXPECTED_TEXT="$work/roll.txt" EXPECTED_JSON="$work/roll.json" EXPECTED_ODDS="$work/odds.json" \
    EXPECTED_MODIFIERS="$work/roll-modifiers.txt" \
    ARTIFACTS="$root/web/test/artifacts" \
    timeout 300 node web/test/browser-test.mjs
