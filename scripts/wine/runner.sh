#!/usr/bin/env bash
# Cargo's runner for x86_64-pc-windows-gnu (scripts/windows-test.sh):
# runs a Windows program under Wine in the prefix scripts/wine-setup.sh
# made (target/wine-prefix, or $CARGO_TARGET_DIR/wine-prefix), with Wine's
# own debug messages off.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
export WINEPREFIX=${WINEPREFIX:-${CARGO_TARGET_DIR:-$here/target}/wine-prefix}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
exec wine "$@"
