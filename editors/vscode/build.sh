#!/usr/bin/env bash
# Builds the VS Code extension: installs what package-lock.json pins (npm ci), type-checks
# src/ (tsc --noEmit), bundles it with vscode-languageclient into out/extension.js (esbuild),
# runs test/smoke.mjs on the bundle (the extension with a stub of VS Code; with a real
# rulebook binary, $RULEBOOK_BIN or else target/{release,debug}/rulebook of the repository, it
# also starts `rulebook lsp`), packages rulebook-rules-VERSION.vsix (vsce) and checks what is in it.
# Its standard output is the path of the .vsix alone (vsix=$(editors/vscode/build.sh)); the
# steps report on standard error.
#
# Exit status 0: built; 1: a step failed; 3: no npm (Node.js) to build with.
set -euo pipefail
# $RULEBOOK_BIN (the binary the smoke test starts) may be relative to where this was run from.
if [ -n "${RULEBOOK_BIN:-}" ] && [ "${RULEBOOK_BIN#/}" = "$RULEBOOK_BIN" ]; then
    export RULEBOOK_BIN="$(pwd)/$RULEBOOK_BIN"
fi
cd "$(dirname "$0")"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "editors/vscode/build.sh: cannot build: npm (Node.js 20 or later) is not installed" >&2
    exit 3
fi

exec 3>&1 1>&2 # everything on stderr but the path of the .vsix
step() { echo "== $*"; }
run() { "$@" || { echo "editors/vscode/build.sh: failed (exit $?): $*"; exit 1; }; }

step "npm ci"
run npm ci --no-audit --no-fund --loglevel=error
step "tsc --noEmit"
run npx --no-install tsc --noEmit
step "esbuild: out/extension.js"
rm -rf out
run npm run -s bundle
step "test/smoke.mjs: the bundle"
run node --test-reporter=spec test/smoke.mjs
version=$(node -p 'require("./package.json").version')
vsix="rulebook-rules-$version.vsix"
step "vsce package: $vsix"
rm -f rulebook-rules-*.vsix
run npx --no-install vsce package --no-dependencies --skip-license --allow-missing-repository --out "$vsix"
step "test/smoke.mjs: the package"
run node --test-reporter=spec test/smoke.mjs --vsix "$vsix"
echo "$(pwd)/$vsix" >&3
