#!/usr/bin/env bash
# Installs everything the project builds and tests with, from Debian 12's packages.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
PACKAGES=(
  build-essential cmake ninja-build git
  libhwy-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev lld-14 valgrind
  libtorch-dev python3-torch
  python3-venv python3-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
