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
  "$PY" -m pip install --quiet --disable-pip-version-check --upgrade pip
  "$PY" -m pip install --quiet --disable-pip-version-check -e ".${extra}"
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
    "$VENV/bin/ruff" check .
    # pytest exits 5 when no test was collected: that fails this script too
    exec "$PY" -m pytest -q -p no:cacheprovider "$@"
    ;;
  *)
    echo "usage: ./run.sh app | ./run.sh test" >&2
    exit 2
    ;;
esac
