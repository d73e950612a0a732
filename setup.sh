#!/usr/bin/env bash
# One command per job on a fresh Debian 12 machine:
#   ./setup.sh app    install what is missing, build (release) and launch the desktop app
#   ./setup.sh test   install what is missing, build (dev: warnings as errors) and run every test
#   ./setup.sh asan   install what is missing, build the core, CLI and their tests with AddressSanitizer +
#                     UBSan and run them (CI runs `test`, then `asan`)
#   ./setup.sh missing  print the Debian packages `test` would install on this machine, one a line
# Extra arguments after `app` are passed to attnlab.
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6opengl6-dev libgl-dev libgl1-mesa-dri
  libeigen3-dev libimgui-dev libopenblas-dev
  libgif-dev libavcodec-dev libavformat-dev libswscale-dev libavutil-dev
  libgtest-dev nlohmann-json3-dev
  xvfb xauth
  desktop-file-utils appstream dpkg-dev
  python3-dev python3-numpy pybind11-dev python3-pytest jupyter-nbconvert python3-ipykernel
  qt6-l10n-tools qt6-tools-dev qt6-translations-l10n libfontconfig-dev fonts-dejavu-core fonts-wqy-microhei
)
# Only for `./setup.sh fuzz` and `./setup.sh tsan`: clang with libFuzzer, its sanitizer runtimes and its
# OpenMP runtime (with the archer tool for ThreadSanitizer).
fuzz_packages=(clang libclang-rt-14-dev libomp-14-dev)

# The listed packages dpkg does not report installed, one a line. A name that another package only
# provides (a virtual name) is never reported installed, so the lists name real packages.
missing_packages() {
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
  done
}

install_missing() {
  local missing
  mapfile -t missing < <(missing_packages)
  [ ${#missing[@]} -eq 0 ] && return
  echo "Installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

build() {
  cmake --preset "$1"
  cmake --build --preset "$1"
}

case "${1:-}" in
  app)
    shift
    install_missing
    build release
    exec ./build/release/app/attnlab "$@"
    ;;
  test)
    install_missing
    build dev
    ctest --preset dev
    ;;
  asan)
    # The core and command-line tests under AddressSanitizer + UBSan (no GUI: Qt is uninstrumented).
    install_missing
    build asan
    ctest --preset asan
    ;;
  fuzz)
    # Builds the libFuzzer targets and runs each for FUZZ_SECONDS (default 60) over a copy of its corpus.
    packages+=("${fuzz_packages[@]}")
    install_missing
    build fuzz
    for target in npy params expression grid panel session animation; do
      work="build/fuzz/corpus-$target"
      mkdir -p "$work"
      cp -n tests/fuzz/corpus/$target/* "$work"/ 2>/dev/null || true
      "build/fuzz/tests/fuzz/fuzz_$target" "$work" -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=4096 \
        -print_final_stats=1
    done
    ;;
  tsan)
    # The core and command-line tests under ThreadSanitizer (clang; OpenMP made visible by archer;
    # suppressions for uninstrumented runtimes in tests/sanitizers/tsan.supp; docs/limits.md).
    packages+=("${fuzz_packages[@]}")
    install_missing
    build tsan
    ctest --preset tsan
    ;;
  missing)
    missing_packages
    ;;
  *)
    echo "usage: ./setup.sh app [attnlab arguments] | ./setup.sh test | ./setup.sh asan | ./setup.sh fuzz | ./setup.sh tsan | ./setup.sh missing" >&2
    exit 2
    ;;
esac
