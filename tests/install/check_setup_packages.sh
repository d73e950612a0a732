#!/usr/bin/env bash
# After `./setup.sh test` has installed what was missing, setup.sh must find nothing missing: otherwise
# (a virtual or misspelt name in its list) every later run calls apt again on a machine that has everything.
# usage: check_setup_packages.sh SOURCE_DIR
set -euo pipefail
missing=$("$1/setup.sh" missing)
[ -z "$missing" ] || { echo "check_setup_packages: setup.sh still finds missing:" $missing >&2; exit 1; }
