#!/usr/bin/env bash
# Prepare this Linux machine to run mhash's Windows build
# (x86_64-pc-windows-gnu) under Wine: the Rust target, the MinGW-w64 cross
# linker, Wine, and a Wine prefix of its own under target/wine-prefix with
# the bcryptprimitives.dll shim installed (scripts/wine/bcryptprimitives.c:
# Wine 8.0 has no ProcessPrng, without which no Rust 1.78+ program starts).
#
#   scripts/wine-setup.sh              install what is missing, make the prefix
#   scripts/wine-setup.sh --no-install the same, installing nothing
#
# Idempotent: what is there already is kept (the prefix is made once, the
# shim rebuilt only when its source changed). Packages come from apt
# (as root, or through `sudo -n`); the Rust target from rustup.
#
# Where a piece cannot be had (no root, no network, no package), it prints
# "SKIP windows: REASON" and exits 0; its last line is then that SKIP line,
# and scripts/windows-test.sh skips too. On success the last line is
# "windows: ready (WINEPREFIX=...)".
#
# Wine runs console programs here without a display: no Xvfb, and no Mono
# or Gecko install dialogs (WINEDLLOVERRIDES turns mscoree and mshtml off
# while the prefix is made).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=x86_64-pc-windows-gnu
CC=x86_64-w64-mingw32-gcc
TARGET_DIR=${CARGO_TARGET_DIR:-target}
mkdir -p "$TARGET_DIR"
TARGET_DIR=$(cd "$TARGET_DIR" && pwd)
export WINEPREFIX=$TARGET_DIR/wine-prefix
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
export WINEARCH=win64
SHIM_SRC=scripts/wine/bcryptprimitives.c
SHIM_DEF=scripts/wine/bcryptprimitives.def
SHIM=$TARGET_DIR/wine/bcryptprimitives.dll
install=1
[ "${1:-}" = --no-install ] && install=0

skip() {
  echo "SKIP windows: $*"
  exit 0
}

SUDO=
root=1
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    root=0
  fi
fi

have_tools() {
  command -v wine >/dev/null && command -v wineboot >/dev/null && command -v wineserver >/dev/null &&
    command -v "$CC" >/dev/null
}
target_installed() {
  # Captured first: under pipefail, `grep -q` leaving a pipe early can
  # fail the writer with SIGPIPE and so the whole pipeline.
  local installed
  installed=$(rustup target list --installed 2>/dev/null || true)
  grep -qx "$TARGET" <<<"$installed"
}

echo "== windows: Rust target, MinGW-w64, Wine (at ${SECONDS} s)"
if ! target_installed; then
  [ "$install" = 1 ] || skip "Rust target $TARGET not installed (run without --no-install)"
  command -v rustup >/dev/null || skip "no rustup: cannot add the Rust target $TARGET"
  rustup target add "$TARGET" || skip "rustup target add $TARGET failed"
fi
if ! have_tools; then
  [ "$install" = 1 ] || skip "wine or $CC missing (run without --no-install)"
  [ "$root" = 1 ] || skip "not root: cannot apt-get install wine, wine64 and gcc-mingw-w64-x86-64"
  command -v apt-get >/dev/null || skip "no apt-get: install wine (64-bit) and $CC by hand"
  # Without the recommended packages: those are GUI, GL and multimedia
  # libraries; console programs need none of them.
  timeout 300 $SUDO apt-get update -qq || skip "apt-get update failed"
  timeout 900 $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    wine wine64 gcc-mingw-w64-x86-64 >/dev/null ||
    skip "apt-get install wine wine64 gcc-mingw-w64-x86-64 failed"
fi
have_tools || skip "wine, wineboot, wineserver or $CC still missing"
echo "$(wine --version) at $(command -v wine); $("$CC" --version | head -1)"

echo "== windows: the bcryptprimitives.dll shim (at ${SECONDS} s)"
if [ ! -f "$SHIM" ] || [ "$SHIM_SRC" -nt "$SHIM" ] || [ "$SHIM_DEF" -nt "$SHIM" ]; then
  mkdir -p "$(dirname "$SHIM")"
  "$CC" -O2 -s -shared -static-libgcc -o "$SHIM.tmp" "$SHIM_SRC" "$SHIM_DEF" -ladvapi32 ||
    skip "$CC could not build $SHIM_SRC"
  mv "$SHIM.tmp" "$SHIM"
fi

echo "== windows: Wine prefix $WINEPREFIX (at ${SECONDS} s)"
sys32=$WINEPREFIX/drive_c/windows/system32
if [ ! -f "$sys32/kernel32.dll" ]; then
  rm -rf "$WINEPREFIX"
  # wineboot may print that syswow64's rundll32 is missing: 32-bit Wine
  # is not installed, and not needed.
  timeout 300 wineboot -i </dev/null >/dev/null 2>&1 || skip "wineboot -i failed to make $WINEPREFIX"
  wineserver -w || true
fi
[ -f "$sys32/kernel32.dll" ] || skip "wineboot made no $sys32"
cmp -s "$SHIM" "$sys32/bcryptprimitives.dll" || cp "$SHIM" "$sys32/bcryptprimitives.dll"

echo "windows: ready (WINEPREFIX=$WINEPREFIX, at ${SECONDS} s)"
