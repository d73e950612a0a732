#!/usr/bin/env bash
# Installs the build into a scratch prefix and packages it as a .deb, then checks what a user's
# machine would get: the executable runs, the desktop entry and AppStream metainfo validate, the icon
# is in the hicolor theme, the package's Depends names the Qt and OpenMP runtime it links, and the
# packaged app's window starts (under Xvfb when xvfb-run is installed) and takes a screenshot.
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
id=org.attnlab.AttnLab

fail() { echo "check_install: $*" >&2; exit 1; }

desktop-file-validate "$source/assets/$id.desktop"
appstreamcli validate --no-net "$source/assets/$id.metainfo.xml"

cmake --install "$build" --prefix "$scratch/prefix" > /dev/null
for file in bin/attnlab share/applications/$id.desktop share/icons/hicolor/scalable/apps/$id.svg \
            share/metainfo/$id.metainfo.xml; do
    [ -f "$scratch/prefix/$file" ] || fail "cmake --install did not put $file in place"
done
"$scratch/prefix/bin/attnlab" variants --json | grep -q '"id"' || fail "the installed attnlab does not run"
# The Python module, when the build has it: installed into the prefix's site-packages, and importable there.
module_check() { # DIR: where the module was put
    local found
    found=$(find "$1" -name 'attnlab.cpython-*.so' | head -n 1)
    [ -n "$found" ] || fail "no Python module under $1"
    PYTHONPATH=$(dirname "$found") QT_QPA_PLATFORM=offscreen "${ATTNLAB_PYTHON:-/usr/bin/python3}" -c \
        'import attnlab; assert attnlab.cost("full", 64, 8, 2)["layer_macs"] > 0; assert "full" in attnlab.variants()' \
        || fail "the Python module under $1 does not import and run"
}
with_python=$(ls "$build"/python/attnlab.cpython-*.so 2> /dev/null || true)
[ -z "$with_python" ] || module_check "$scratch/prefix/lib"

(cd "$build" && cpack -G DEB -B "$scratch/package" > /dev/null)
deb=$(ls "$scratch"/package/attnlab_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for library in libqt6widgets6 libgomp1 libopenblas; do
    grep -q "$library" <<< "$depends" || fail "the package's Depends lacks $library: $depends"
done
dpkg-deb -x "$deb" "$scratch/root"
for file in usr/bin/attnlab usr/share/applications/$id.desktop usr/share/icons/hicolor/scalable/apps/$id.svg \
            usr/share/metainfo/$id.metainfo.xml; do
    [ -f "$scratch/root/$file" ] || fail "the package does not contain /$file"
done
"$scratch/root/usr/bin/attnlab" cost --variant full --n 64 --d 8 --heads 2 --json | grep -q '"layer_macs"' \
    || fail "the packaged attnlab does not run"
[ -z "$with_python" ] || module_check "$scratch/root/usr"

# The desktop entry starts the packaged executable and names the packaged icon.
exec_name=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$scratch/root/usr/share/applications/$id.desktop")
icon_name=$(sed -n 's/^Icon=//p' "$scratch/root/usr/share/applications/$id.desktop")
[ -x "$scratch/root/usr/bin/$exec_name" ] || fail "the desktop entry's Exec=$exec_name is not a packaged executable"
ls "$scratch"/root/usr/share/icons/hicolor/*/apps/"$icon_name".* > /dev/null 2>&1 \
    || fail "the desktop entry's Icon=$icon_name is not in the packaged hicolor theme"

# The packaged app's window starts and draws: under Xvfb (the xcb platform a desktop uses) when
# xvfb-run is installed, else on the offscreen platform.
shot="$scratch/window.png"
if command -v xvfb-run > /dev/null; then
    env -u QT_QPA_PLATFORM xvfb-run -a "$scratch/root/usr/bin/attnlab" --screenshot "$shot" \
        || fail "the packaged app did not start under Xvfb"
else
    QT_QPA_PLATFORM=offscreen "$scratch/root/usr/bin/attnlab" --screenshot "$shot" \
        || fail "the packaged app did not start on the offscreen platform"
fi
[ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the packaged app wrote no PNG screenshot"
echo "install and package checks passed: $(basename "$deb")"
