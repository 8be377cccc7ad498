#!/usr/bin/env bash
# Runs the GNU conformance cases on an mhash binary under every GNU name:
#
#   scripts/gnu-conformance.sh BINARY
#
# The cases live beside a development checkout, in ../shared/conformance
# (run.sh and one directory per case); a plain clone has none. Where they
# are not, this prints why the step was skipped and exits 0; where they
# are, it exits with run.sh's status (non-zero when a case fails).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:?usage: scripts/gnu-conformance.sh BINARY}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cases=../shared/conformance

echo "== GNU conformance cases ($cases)"
if [ ! -f "$cases/run.sh" ]; then
  echo "SKIP conformance: $cases/run.sh is not here (the cases sit beside a development checkout; a clone has none)"
  exit 0
fi
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
for n in mhash md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum; do
  ln -s "$bin" "$bindir/$n"
done
bash "$cases/run.sh" "$bindir"
