#!/usr/bin/env bash
# A fully static Linux binary: build mhash for x86_64-unknown-linux-musl,
# check that it is statically linked, and run the GNU conformance cases on
# it under every GNU name where they are (../shared/conformance, beside a
# development checkout; a plain clone has none, and the step says it was
# skipped: scripts/gnu-conformance.sh). The last line printed is the
# static binary's path.
#
#   scripts/musl-build.sh                      install, build, check, conformance
#   scripts/musl-build.sh --no-install         the same, installing nothing
#   scripts/musl-build.sh --bench GLIBC_MHASH  also: throughput on a 1 GiB
#                                              file, musl against GLIBC_MHASH
#
# Installs (as root) the Rust target (rustup) and musl-tools (Debian; the
# musl-gcc wrapper, for crates that compile C). The binary is
# target/x86_64-unknown-linux-musl/release/mhash (under CARGO_TARGET_DIR
# when set). Prints "SKIP musl: REASON" and exits 0 when the target or the
# tools cannot be had.
#
# --bench: sha256, md5 and crc of one 1 GiB file (made once under
# target/mhash-benchmark/, page cache warm), the two binaries interleaved
# (glibc, musl, glibc, musl, ...), one warm-up each then 5 timed runs;
# prints the median MB/s (10^6 bytes/s) of each and the ratio, and fails
# if the two print different digests.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=x86_64-unknown-linux-musl
install=1
glibc=
while [ $# -gt 0 ]; do
  case $1 in
  --no-install) install=0 ;;
  --bench)
    glibc=${2:?--bench needs the glibc mhash binary}
    shift
    ;;
  *)
    echo "usage: $0 [--no-install] [--bench GLIBC_MHASH]" >&2
    exit 2
    ;;
  esac
  shift
done

skip() {
  echo "SKIP musl: $*"
  exit 0
}

if [ "$install" = 1 ]; then
  echo "== musl: installing the Rust target and musl-tools"
  rustup target add "$TARGET" || skip "rustup target add $TARGET failed"
  if ! command -v musl-gcc >/dev/null; then
    [ "$(id -u)" = 0 ] || skip "not root: cannot apt-get install musl-tools"
    export DEBIAN_FRONTEND=noninteractive
    timeout 600 apt-get update -qq || skip "apt-get update failed"
    timeout 600 apt-get install -y -qq --no-install-recommends musl-tools >/dev/null ||
      skip "apt-get install musl-tools failed"
  fi
fi
# Captured first: under pipefail, `grep -q` leaving a pipe early can fail
# the writer with SIGPIPE (exit 141) and so the whole pipeline.
installed=$(rustup target list --installed 2>/dev/null || true)
grep -qx "$TARGET" <<<"$installed" || skip "Rust target $TARGET not installed"

echo "== musl: release build"
export CC_x86_64_unknown_linux_musl=${CC_x86_64_unknown_linux_musl:-musl-gcc}
cargo build --release --locked --target "$TARGET"
bin=${CARGO_TARGET_DIR:-target}/$TARGET/release/mhash
bin=$(cd "$(dirname "$bin")" && pwd)/mhash

echo "== musl: static check"
# Each listing is captured before it is searched: a reader that stops early
# (grep -q, head) makes the writer die of SIGPIPE, which pipefail reports.
if grep -q 'Requesting program interpreter' <<<"$(readelf -l "$bin")"; then
  echo "musl: $bin has a program interpreter: not static" >&2
  exit 1
fi
if grep -q '(NEEDED)' <<<"$(readelf -d "$bin")"; then
  echo "musl: $bin needs shared libraries: not static" >&2
  exit 1
fi
file "$bin" 2>/dev/null || true
echo "size: $(stat -c %s "$bin") bytes"
test "$(printf abc | "$bin" -a sha256)" = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -" # FIPS 180-2 B.1
backends=$("$bin" --backends)
echo "${backends%%$'\n'*}"

scripts/gnu-conformance.sh "$bin"

if [ -z "$glibc" ]; then
  echo "== musl: static binary"
  echo "$bin"
  exit 0
fi

echo "== musl: throughput against $glibc (1 GiB, page cache warm)"
python3 - "$glibc" "$bin" "${CARGO_TARGET_DIR:-target}/mhash-benchmark" <<'EOF'
import os, random, statistics, subprocess, sys, time
glibc, musl, d = sys.argv[1:4]
os.makedirs(d, exist_ok=True)
path = os.path.join(d, "musl-1GiB.bin")
size = 1 << 30
if not os.path.exists(path) or os.path.getsize(path) != size:
    block = random.Random(8).randbytes(16 << 20)  # 16 MiB of fixed noise, 64 times
    with open(path + ".tmp", "wb") as f:
        for _ in range(size // len(block)):
            f.write(block)
    os.replace(path + ".tmp", path)
with open(path, "rb") as f:  # warm the page cache
    while f.read(8 << 20):
        pass
bins = {"glibc": glibc, "musl": musl}
print(f"file {path} ({size} bytes); {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}")
rows, runs, bad = [], [], False
for algo in ["sha256", "md5", "crc"]:
    argv = lambda b: [b, "-a", algo, path]
    outs = {k: subprocess.run(argv(b), capture_output=True, check=True).stdout for k, b in bins.items()}
    if outs["glibc"] != outs["musl"]:
        print(f"{algo}: OUTPUT MISMATCH {outs}")
        bad = True
    t = {k: [] for k in bins}
    for _ in range(5):
        for k, b in bins.items():
            t0 = time.perf_counter()
            subprocess.run(argv(b), stdout=subprocess.DEVNULL, check=True)
            t[k].append(time.perf_counter() - t0)
    mb = {k: size / statistics.median(v) / 1e6 for k, v in t.items()}
    rows.append(f"| {algo} | {mb['glibc']:,.0f} | {mb['musl']:,.0f} | {mb['musl'] / mb['glibc']:.2f} |")
    for k, v in t.items():
        runs.append(f"{algo} {k}: " + " ".join(f"{x:.3f}" for x in v) + " s")
print("| algorithm | glibc MB/s | musl MB/s | musl / glibc |")
print("| --- | ---: | ---: | ---: |")
print("\n".join(rows))
print("\n".join(runs))
sys.exit(3 if bad else 0)
EOF
echo "== musl: static binary"
echo "$bin"
