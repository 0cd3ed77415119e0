#!/usr/bin/env bash
# The Python side: a virtual environment (.venv) with python/requirements.txt from PyPI, and the
# package aclnn_bce built and installed into it with `pip install .` (scikit-build-core drives the
# project's CMake; its build folder build/python/ is kept, so a rebuild is incremental).
#   scripts/python_env.sh            create or update .venv, then install the package
#   scripts/python_env.sh --deps     only the environment
# The environment is made again only when python/requirements.txt changes (its hash is kept in
# .venv/requirements.sha256): PyPI's torch wheel brings about 4 GB and takes minutes to install.
# Environment: PYTHON (the interpreter that makes the environment, default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
python="${PYTHON:-python3}"
want=$(sha256sum python/requirements.txt | cut -d' ' -f1)
have=$(cat "$venv/requirements.sha256" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -x "$venv/bin/python" ]; then
  echo "python_env.sh: making $venv from python/requirements.txt"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r python/requirements.txt
  echo "$want" > "$venv/requirements.sha256"
fi
[ "${1:-}" = "--deps" ] && exit 0
# The build requirements are in the environment already (no isolated build environment to fetch).
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation .
