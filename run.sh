#!/usr/bin/env bash
# Landmark Privacy Explorer — the two commands of the README's quick start.
#   ./run.sh app    set up (virtualenv + deps) and launch the explorer on demo data
#   ./run.sh test   set up (virtualenv + deps + Debian chromium), lint, type-check, run every test
set -euo pipefail
cd "$(dirname "$0")"
VENV="${LMDK_VENV:-.venv}"
PY="$VENV/bin/python"

# The Python this project needs (pyproject.toml: requires-python; streamlit>=1.67 needs
# 3.11). LMDK_PYTHON=/path/to/python3.12 picks another interpreter for the virtualenv.
NEED_MAJOR=3
NEED_MINOR=11

find_python() {
  local c
  for c in "${LMDK_PYTHON:-}" python3 python3.13 python3.12 python3.11; do
    [ -n "$c" ] || continue
    command -v "$c" >/dev/null 2>&1 || continue
    if "$c" -c "import sys; sys.exit(sys.version_info < ($NEED_MAJOR, $NEED_MINOR))" 2>/dev/null
    then
      echo "$c"
      return 0
    fi
  done
  return 1
}

setup() {
  local extra="$1"
  if [ ! -x "$PY" ]; then
    local base found
    found="$(command -v "${LMDK_PYTHON:-python3}" 2>/dev/null || true)"
    if ! base="$(find_python)"; then
      echo "run.sh: the Landmark Privacy Explorer needs Python >= $NEED_MAJOR.$NEED_MINOR" \
           "(Streamlit >= 1.67 does not install on older ones)." >&2
      if [ -n "$found" ]; then
        echo "run.sh: found $("$found" --version 2>&1) at $found." >&2
      else
        echo "run.sh: found no python3 on the PATH." >&2
      fi
      echo "run.sh: install Python $NEED_MAJOR.$NEED_MINOR or newer (e.g. 'sudo apt-get install" \
           "python3.11 python3.11-venv', or from python.org), or point LMDK_PYTHON at it." >&2
      exit 2
    fi
    echo "run.sh: using $("$base" --version 2>&1) ($(command -v "$base")); creating $VENV"
    "$base" -m venv "$VENV"
  elif ! "$PY" -c "import sys; sys.exit(sys.version_info < ($NEED_MAJOR, $NEED_MINOR))"; then
    echo "run.sh: $VENV has $("$PY" --version 2>&1); the explorer needs Python >=" \
         "$NEED_MAJOR.$NEED_MINOR. Remove $VENV and run again (LMDK_PYTHON picks the" \
         "interpreter)." >&2
    exit 2
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
    if [ ! -f "$stamp" ]; then
      echo "run.sh: installing the explorer and its dependencies into $VENV (numpy, pandas," \
           "scipy, Streamlit, plotly, OpenDP, Dask, numba, pyproj${extra:+, test tools}):" \
           "about 2 minutes and 1.3 GB on a first run..."
    else
      echo "run.sh: pyproject.toml changed; updating $VENV..."
    fi
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
    # the type check: mypy with pyproject.toml's [tool.mypy] (files, strictness, the
    # untyped third-party packages); any error fails the run before the tests start
    "$PY" -m mypy
    # pytest exits 5 when no test was collected: that fails this script too.
    # In parallel on every core (pytest-xdist; worksteal rebalances the long browser
    # tests); each worker starts at most one Streamlit server for its browser tests
    # (tests/conftest.py). Coverage of lmdk_core, app_support and app_pages (pytest-cov,
    # combined over the workers; about 1.5x the CPU time of the engine tests) is printed
    # per package before the last line (tests/conftest.py); LMDK_COVERAGE=0 skips it.
    # Doctests of lmdk_core run too (pyproject.toml: testpaths).
    # Later arguments override: ./run.sh test -n 0 tests/cli/test_cli.py
    local_cov=(--cov --cov-report=)
    if [ "${LMDK_COVERAGE:-1}" = 0 ]; then local_cov=(); fi
    exec "$PY" -m pytest -q -p no:cacheprovider -n auto --dist worksteal \
      ${local_cov[@]+"${local_cov[@]}"} "$@"
    ;;
  *)
    echo "usage: ./run.sh app | ./run.sh test" >&2
    exit 2
    ;;
esac
