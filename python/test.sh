#!/usr/bin/env bash
# The Python package's tests: a fresh venv with python/requirements-test.txt, the package built
# by maturin (debug, interpreted rules: the same answers, minutes less to build) into it, then
# pytest over python/tests and examples/dask. CARGO_TARGET_DIR is honoured (default: target/ at
# the repository's root, where CI has already built the workspace). The command line the tests
# compare with is RULEBOOK_BIN, default $CARGO_TARGET_DIR/debug/rulebook (built when missing).
#
# Exit status: pytest's; 3 when pip cannot reach PyPI, or there is no Python with venv (nothing
# was tested).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
python="${PYTHON:-python3}"
venv="$CARGO_TARGET_DIR/python-venv"
started=$SECONDS

if ! command -v "$python" >/dev/null 2>&1; then
    echo "python/test.sh: no $python (set PYTHON to a Python 3.9 or later); nothing tested" >&2
    exit 3
fi
rm -rf "$venv"
if ! "$python" -m venv "$venv"; then
    echo "python/test.sh: $python cannot make a venv (Debian: apt-get install python3-venv); nothing tested" >&2
    exit 3
fi
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements-test.txt"; then
    if ! "$venv/bin/python" -m pip index versions pytest >/dev/null 2>&1; then
        echo "python/test.sh: pip cannot reach PyPI to install python/requirements-test.txt; nothing tested" >&2
        exit 3
    fi
    echo "python/test.sh: pip could not install python/requirements-test.txt (see above)" >&2
    exit 1
fi

if [ ! -x "${RULEBOOK_BIN:-$CARGO_TARGET_DIR/debug/rulebook}" ]; then
    (cd "$root" && cargo build --locked)
fi

# maturin develop installs into the venv named by VIRTUAL_ENV, building in CARGO_TARGET_DIR.
(cd "$here" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" "$venv/bin/maturin" develop --locked --quiet)

cd "$root"
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests examples/dask "$@"
echo "python/test.sh: passed in $((SECONDS - started)) s" >&2
