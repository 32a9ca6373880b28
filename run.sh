#!/usr/bin/env bash
# Landmark Privacy Explorer — the two commands of the README's quick start.
#   ./run.sh app    set up (virtualenv + deps) and launch the explorer on demo data
#   ./run.sh test   set up (virtualenv + deps + Debian chromium) and run every test
set -euo pipefail
cd "$(dirname "$0")"
VENV="${LMDK_VENV:-.venv}"
PY="$VENV/bin/python"

setup() {
  local extra="$1"
  if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV"
  fi
  # pip is only upgraded when it is too old for editable installs from pyproject.toml
  # (PEP 660, pip >= 21.3): the upgrade costs ~7 s on a fresh clone otherwise.
  if ! "$PY" -c 'import sys, pip; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (21, 3))'
  then
    "$PY" -m pip install -qq --disable-pip-version-check --upgrade pip
  fi
  # skip pip (~20 s even when everything is installed) while pyproject.toml is unchanged
  # since the last successful install; LMDK_REINSTALL=1 forces it
  local stamp="$VENV/.lmdk-installed-${extra//[^a-z]/}"
  local want
  want="$(cksum < pyproject.toml)"
  if [ -n "${LMDK_REINSTALL:-}" ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    # -qq: no progress, no build-backend chatter; errors still show
    "$PY" -m pip install -qq --disable-pip-version-check -e ".${extra}"
    echo "$want" > "$stamp"
  fi
}

need_chromium() {
  if [ -x /usr/bin/chromium ]; then return; fi
  if [ "$(id -u)" = 0 ]; then
    echo "installing Debian's chromium for the browser tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: run 'sudo apt-get install -y chromium'" >&2
    exit 2
  fi
}

case "${1:-}" in
  app)
    setup ""
    shift
    exec "$PY" -m streamlit run app.py "$@"
    ;;
  test)
    setup "[test]"
    need_chromium
    shift
    export LMDK_REQUIRE_BROWSER=1
    # reproducible property tests on a clean clone (tests/conftest.py)
    export LMDK_HYPOTHESIS_PROFILE="${LMDK_HYPOTHESIS_PROFILE:-ci}"
    "$VENV/bin/ruff" check .
    # pytest exits 5 when no test was collected: that fails this script too.
    # In parallel on every core (pytest-xdist; worksteal rebalances the long browser
    # tests); each worker starts at most one Streamlit server for its browser tests
    # (tests/conftest.py). Later arguments override: ./run.sh test -n 0 tests/test_cli.py
    exec "$PY" -m pytest -q -p no:cacheprovider -n auto --dist worksteal "$@"
    ;;
  *)
    echo "usage: ./run.sh app | ./run.sh test" >&2
    exit 2
    ;;
esac
