#!/usr/bin/env bash
# Lint mhash for the other operating systems and link its macOS binaries
# here, on Linux, through zig:
#
#   1. `cargo clippy --all-targets --locked --target T -- -D warnings` for
#      x86_64-unknown-freebsd, aarch64-apple-darwin, x86_64-apple-darwin
#      and x86_64-pc-windows-gnu (a check build: nothing is linked, so no
#      C toolchain or SDK of the target is needed);
#   2. `cargo zigbuild` of the mhash binary for aarch64-apple-darwin and
#      x86_64-apple-darwin, then a check of each file: a Mach-O executable
#      for the right CPU whose LC_BUILD_VERSION asks for macOS 11.0
#      ($MACOSX_DEPLOYMENT_TARGET; without it zig would stamp its own,
#      newest, macOS version and the binary would not load on older ones).
#
#   scripts/cross-check.sh              install what is missing, then check
#   scripts/cross-check.sh --no-install the same, installing nothing
#   CROSS_TARGETS="x86_64-unknown-freebsd" scripts/cross-check.sh
#                                       lint only these targets (no link
#                                       step unless a darwin target is named)
#
# What it installs where missing: the Rust targets (rustup), zig
# (`pip install ziglang`; run as `python3 -m ziglang`) and cargo-zigbuild
# (`pip install cargo-zigbuild`: its prebuilt binary, seconds; `cargo
# install --locked cargo-zigbuild` only where pip cannot, 712 s here). A piece that cannot be had prints
# `SKIP <target>: <why>` and the script goes on; a lint error, a failed
# link or a wrong binary fails it. Each step prints its time.
#
# The link uses the `cross-link` profile (Cargo.toml): the dev profile with
# every crate at opt-level 0 and no debug info. Its purpose is to show that
# the binary links against macOS's libSystem with the flags and deployment
# target set here, which optimization does not change (LTO is done by
# rustc before the linker runs), while the release profile's fat LTO and
# the size-optimized dependencies of dev cost several times more per target
# on two cores (see the timings printed). `CROSS_PROFILE=release` links the
# release binaries instead.
#
# cargo-zigbuild, not a bare `python3 -m ziglang cc` linker wrapper: the
# wrapper is free to set up but fails to link (zig has no libiconv for
# macOS without an SDK: rustc's `-liconv`), which cargo-zigbuild handles.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

install=1
[ "${1:-}" = --no-install ] && install=0
LINT_TARGETS=${CROSS_TARGETS:-x86_64-unknown-freebsd aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-gnu}
PROFILE=${CROSS_PROFILE:-cross-link}
export MACOSX_DEPLOYMENT_TARGET=${MACOSX_DEPLOYMENT_TARGET:-11.0}

fail=0
skip() { echo "SKIP $1: $2"; }
# step NAME: prints the step's name and the time since the script began.
step() {
  echo "== $* (at ${SECONDS} s)"
  step_start=$SECONDS
}
took() { echo "   took $((SECONDS - step_start)) s"; }

# True when the standard library for target $1 is installed.
have_target() {
  [ -d "$(rustc --print sysroot)/lib/rustlib/$1/lib" ]
}

ensure_target() {
  have_target "$1" && return 0
  if [ "$install" = 1 ] && command -v rustup >/dev/null 2>&1; then
    rustup target add "$1" >/dev/null 2>&1 || true
  fi
  have_target "$1"
}

# zig as `python3 -m ziglang` (the PyPI package) or `zig` on PATH.
have_zig() {
  python3 -m ziglang version >/dev/null 2>&1 || command -v zig >/dev/null 2>&1
}

ensure_zig() {
  have_zig && return 0
  if [ "$install" = 1 ]; then
    python3 -m pip install -q ziglang >/dev/null 2>&1 ||
      python3 -m pip install -q --break-system-packages ziglang >/dev/null 2>&1 ||
      python3 -m pip install -q --user ziglang >/dev/null 2>&1 || true
  fi
  have_zig
}

ensure_zigbuild() {
  command -v cargo-zigbuild >/dev/null 2>&1 && return 0
  if [ "$install" = 1 ]; then
    { python3 -m pip install -q cargo-zigbuild ||
      python3 -m pip install -q --break-system-packages cargo-zigbuild ||
      python3 -m pip install -q --user cargo-zigbuild; } >/dev/null 2>&1 || true
    hash -r
    command -v cargo-zigbuild >/dev/null 2>&1 ||
      cargo install --locked cargo-zigbuild >/dev/null 2>&1 || true
  fi
  command -v cargo-zigbuild >/dev/null 2>&1
}

# Prints "ARCH MINOS" of the Mach-O executable $1 (LC_BUILD_VERSION, or
# LC_VERSION_MIN_MACOSX in older binaries); fails on anything else.
macho_info() {
  python3 - "$1" <<'EOF'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    d = f.read(1 << 16)
magic, cpu, _sub, filetype, ncmds, _size = struct.unpack_from('<IiiIII', d, 0)
if magic != 0xfeedfacf or filetype != 2:  # MH_MAGIC_64, MH_EXECUTE
    sys.exit(f'{sys.argv[1]}: not a 64-bit Mach-O executable')
arch = {0x0100000c: 'arm64', 0x01000007: 'x86_64'}.get(cpu, hex(cpu))
off, minos = 32, None
for _ in range(ncmds):
    cmd, size = struct.unpack_from('<II', d, off)
    if cmd == 0x32:  # LC_BUILD_VERSION: platform, minos, sdk, ntools
        minos = struct.unpack_from('<I', d, off + 12)[0]
    elif cmd == 0x24 and minos is None:  # LC_VERSION_MIN_MACOSX: version, sdk
        minos = struct.unpack_from('<I', d, off + 8)[0]
    off += size
if minos is None:
    sys.exit(f'{sys.argv[1]}: no minimum macOS version in the load commands')
print(arch, f'{minos >> 16}.{minos >> 8 & 255}')
EOF
}

step "toolchain"
cargo --version
rustc --version
took

link_targets=
for t in aarch64-apple-darwin x86_64-apple-darwin; do
  case " $LINT_TARGETS " in *" $t "*) link_targets+=" $t" ;; esac
done

# zig first: the macOS lints need it too (blake3's build script compiles
# its C for the target: the host's gcc knows no `-arch arm64`, so they run
# through `cargo-zigbuild clippy`, which sets zig as the target's C
# compiler).
zig_ok=0
if [ -n "$link_targets" ]; then
  step "zig and cargo-zigbuild"
  zig_ok=1
  if ! ensure_zig; then
    zig_ok=0
    why="zig is not installed and pip could not install ziglang"
  elif ! ensure_zigbuild; then
    zig_ok=0
    why="cargo-zigbuild is not installed and neither pip nor cargo install could get it"
  else
    echo "zig $(python3 -m ziglang version 2>/dev/null || zig version), $(cargo-zigbuild --version)"
  fi
  took
fi

for t in $LINT_TARGETS; do
  step "clippy --target $t"
  if ! ensure_target "$t"; then
    skip "$t" "the Rust standard library for $t is not installed and rustup could not add it"
    continue
  fi
  clippy=(cargo clippy)
  case "$t" in
    *-apple-darwin)
      if [ "$zig_ok" = 0 ]; then
        skip "$t" "$why"
        continue
      fi
      clippy=(cargo-zigbuild clippy)
      ;;
  esac
  if ! "${clippy[@]}" --all-targets --locked --target "$t" -- -D warnings; then
    echo "cross-check: clippy failed for $t" >&2
    fail=1
  fi
  took
done

if [ -n "$link_targets" ]; then
  for t in $link_targets; do
    if [ "$zig_ok" = 0 ]; then
      skip "$t" "$why"
      continue
    fi
    if ! have_target "$t"; then
      skip "$t" "the Rust standard library for $t is not installed"
      continue
    fi
    step "link mhash for $t through zig (profile $PROFILE, macOS $MACOSX_DEPLOYMENT_TARGET)"
    if ! cargo zigbuild --locked --profile "$PROFILE" --target "$t" --bin mhash; then
      echo "cross-check: the zig link failed for $t" >&2
      fail=1
      took
      continue
    fi
    dir=$PROFILE
    [ "$PROFILE" = dev ] && dir=debug
    bin=target/$t/$dir/mhash
    file "$bin" || true
    want=${t%%-*}
    [ "$want" = aarch64 ] && want=arm64
    if ! got=$(macho_info "$bin"); then
      fail=1
    elif [ "$got" != "$want $MACOSX_DEPLOYMENT_TARGET" ]; then
      echo "cross-check: $bin is \"$got\", expected \"$want $MACOSX_DEPLOYMENT_TARGET\" (arch, minimum macOS)" >&2
      fail=1
    else
      echo "$bin: Mach-O $got (arch, minimum macOS)"
    fi
    took
  done
fi

echo "== done (at ${SECONDS} s)"
exit "$fail"
