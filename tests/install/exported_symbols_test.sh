#!/usr/bin/env bash
# The shared library exports exactly the C API: every defined dynamic symbol is a function the
# headers of include/ declare, and every function they declare is exported.
#   exported_symbols_test.sh <libaclnn_bce.so> <include dir>
set -euo pipefail
library="$1"
include_dir="$2"
exported=$(nm -D --defined-only "$library" | awk '{print $3}' | sort -u)
declared=$(grep -rhoE '\bacl[A-Za-z0-9_]*[[:space:]]*\(' "$include_dir" | tr -d '( \t' | sort -u)
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
status=0
if [ -n "$extra" ]; then
  echo "exported but not declared in $include_dir:"
  echo "$extra" | c++filt | sed 's/^/  /'
  status=1
fi
if [ -n "$missing" ]; then
  echo "declared in $include_dir but not exported:"
  echo "$missing" | sed 's/^/  /'
  status=1
fi
[ $status = 0 ] && echo "$(echo "$exported" | wc -l) symbols exported, each declared in $include_dir"
exit $status
