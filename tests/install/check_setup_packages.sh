#!/usr/bin/env bash
# After `./setup.sh test` has installed what was missing, every name setup.sh lists must be a package
# dpkg reports installed: a name that is only provided by another package (a virtual name) never is, and
# would make every later run of setup.sh call apt again on a machine that has everything.
# usage: check_setup_packages.sh SOURCE_DIR
set -euo pipefail
missing=()
while read -r package; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done < <("$1/setup.sh" packages)
[ ${#missing[@]} -eq 0 ] || { echo "check_setup_packages: not installed packages (virtual or misspelt names?): ${missing[*]}" >&2; exit 1; }
echo "check_setup_packages: $("$1/setup.sh" packages | wc -l) packages installed"
