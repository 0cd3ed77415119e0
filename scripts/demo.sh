#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to the demo: dependencies, build, run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target aclnn_bce_cli
build/release/tools/cli/aclnn_bce_cli demo
