#!/usr/bin/env bash
# The Python side: a virtual environment (.venv) with python/requirements.txt from PyPI, and the
# package aclnn_bce built and installed into it with `pip install .` (scikit-build-core drives the
# project's CMake; its build folder build/python/ is kept, so a rebuild is incremental). Where the
# release build exists (build/release, as scripts/demo.sh and scripts/test.sh make it), its
# library is brought up to date and the package takes it (ACLNN_BCE_PREBUILT_LIBRARY): pip then
# compiles only the extension, in about a minute, instead of the whole library again.
#   scripts/python_env.sh            create or update .venv, then install the package
#   scripts/python_env.sh --deps     only the environment
# The environment is made again only when python/requirements.txt changes (its hash is kept in
# .venv/requirements.sha256): PyPI's torch wheel brings the CUDA libraries with it, and the
# environment measures 5.6 GB (du -sh .venv); it takes minutes to install.
# Environment: PYTHON (the interpreter that makes the environment, default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
python="${PYTHON:-python3}"
want=$(sha256sum python/requirements.txt | cut -d' ' -f1)
have=$(cat "$venv/requirements.sha256" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -x "$venv/bin/python" ]; then
  echo "python_env.sh: making $venv from python/requirements.txt (downloads about 3 GB the first time)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --disable-pip-version-check --progress-bar off -r python/requirements.txt
  echo "$want" > "$venv/requirements.sha256"
  echo "python_env.sh: $venv made at ${SECONDS} s ($(du -sh "$venv" | cut -f1))"
fi
[ "${1:-}" = "--deps" ] && exit 0
library=()
if [ -f build/release/CMakeCache.txt ]; then
  echo "python_env.sh: bringing the release build's library up to date"
  cmake --build --preset release --target aclnn_bce
  library=("-Ccmake.define.ACLNN_BCE_PREBUILT_LIBRARY=$(realpath build/release/src/libaclnn_bce.so.0)")
  echo "python_env.sh: pip install . with that library (compiles the extension only)"
else
  echo "python_env.sh: pip install . (no release build: compiles the library too, several minutes)"
fi
# The build requirements are in the environment already (no isolated build environment to fetch).
"$venv/bin/pip" install --disable-pip-version-check --no-build-isolation "${library[@]}" .
echo "python_env.sh: package installed at ${SECONDS} s"
