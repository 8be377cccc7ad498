#!/usr/bin/env bash
# Makes the release layouts (bitcoin/, openwrt/) with the real tools
# (GnuPG, minisign, signify-openbsd); SOURCES.md says which command made
# which file. `bash tests/data/signatures/make-layouts.sh [OUTDIR]`
# (default: this directory; tests/signatures.rs makes a fresh set in a
# temporary OUTDIR where the tools are installed). Private keys live in a
# temporary directory and are thrown away; what the tools said of each
# signature is kept in each directory's `expected.txt`.
set -euo pipefail
here=$(cd "${1:-$(dirname "$0")}" && pwd)
tmp=$(mktemp -d)
trap 'GNUPGHOME="$tmp/gnupg" gpgconf --kill all >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export GNUPGHOME="$tmp/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg=(gpg --batch --quiet --pinentry-mode loopback --passphrase '')

for d in bitcoin openwrt; do
  rm -rf "${here:?}/$d"
  mkdir -p "$here/$d"
  (cd "$here/$d" &&
    printf 'alpha\n' > a.txt &&
    printf 'bravo\n' > b.txt &&
    printf 'not the checksum list\n' > other.txt &&
    sha256sum a.txt b.txt > SHA256SUMS)
done

# --- Bitcoin Core: several builders' armored signatures, concatenated ---
cd "$here/bitcoin"
for i in 1 2 3 4 5; do
  "${gpg[@]}" --quick-gen-key "Builder $i <builder$i@example.org>" ed25519 sign never
  "${gpg[@]}" --armor --export "builder$i@example.org" > "builder$i.asc"
done
# Builders 1 to 4 sign (builder 5 does not: a listed key that did not sign).
for i in 1 2 3 4; do
  "${gpg[@]}" --local-user "builder$i@example.org" --armor --detach-sign --output "$tmp/$i.asc" SHA256SUMS
done
# As Bitcoin Core makes it: cat */all.SHA256SUMS.asc > SHA256SUMS.asc
cat "$tmp/1.asc" "$tmp/2.asc" "$tmp/3.asc" "$tmp/4.asc" > SHA256SUMS.asc
# One armored block holding two signature packets.
"${gpg[@]}" --local-user builder1@example.org --local-user builder2@example.org --armor --detach-sign --output SHA256SUMS.two.asc SHA256SUMS
# Builder 3's signature of another file among the good ones: BAD by builder 3.
"${gpg[@]}" --local-user builder3@example.org --armor --detach-sign --output "$tmp/other.asc" other.txt
cat "$tmp/1.asc" "$tmp/other.asc" "$tmp/2.asc" > SHA256SUMS.bad3.asc
cat builder1.asc builder2.asc > builders12.asc
cat builder1.asc builder5.asc > builders15.asc
cat builder2.asc builder3.asc > builders23.asc
# What gpg says: the fingerprint of each good signature (VALIDSIG), the
# key IDs it has no key for (NO_PUBKEY), the BAD ones (BADSIG).
{
  for i in 1 2 3 4 5; do
    printf 'builder%s %s\n' "$i" "$(gpg --list-keys --with-colons "builder$i@example.org" | awk -F: '/^fpr/{print $10; exit}')"
  done
  for k in builders12 builder2 builders23; do
    home="$tmp/verify-$k"; mkdir -m 700 "$home"
    GNUPGHOME="$home" gpg --batch --quiet --import "$k.asc" 2>/dev/null
    for s in SHA256SUMS.asc SHA256SUMS.two.asc SHA256SUMS.bad3.asc; do
      printf '%s:%s %s\n' "$k" "$s" "$(GNUPGHOME="$home" gpg --batch --status-fd 1 --verify "$s" SHA256SUMS 2>/dev/null |
        awk '$2 == "VALIDSIG" {printf "good:%s ", $3} $2 == "BADSIG" {printf "bad:%s ", $3} $2 == "NO_PUBKEY" {printf "nokey:%s ", $3}' | sed 's/ $//')"
    done
    GNUPGHOME="$home" gpgconf --kill all >/dev/null 2>&1 || true
  done
} > expected.txt

# --- OpenWrt: a usign signature and an OpenPGP one beside the list, and
# a minisign one (minisign -t binds repository and tag) ---
cd "$here/openwrt"
signify-openbsd -G -n -c 'public key of the release builder' -p usign.pub -s "$tmp/usign.sec"
signify-openbsd -S -s "$tmp/usign.sec" -m SHA256SUMS -x SHA256SUMS.sig
"${gpg[@]}" --quick-gen-key 'OpenWrt Build <build@example.org>' ed25519 sign never
"${gpg[@]}" --armor --export build@example.org > build.asc
"${gpg[@]}" --local-user build@example.org --armor --detach-sign --output SHA256SUMS.asc SHA256SUMS
minisign -G -W -p minisign.pub -s "$tmp/minisign.key" > /dev/null
minisign -S -s "$tmp/minisign.key" -m SHA256SUMS -t 'repo=example/tool;tag=v1.2.3' > /dev/null
minisign -V -p minisign.pub -m SHA256SUMS > /dev/null
signify-openbsd -V -p usign.pub -m SHA256SUMS -x SHA256SUMS.sig > /dev/null
{
  printf 'minisign.pub %s\n' "$(head -1 minisign.pub | awk '{print $NF}')"
  printf 'build.asc %s\n' "$(gpg --batch --status-fd 1 --verify SHA256SUMS.asc SHA256SUMS 2>/dev/null | awk '$2 == "VALIDSIG" {print $3}')"
  printf 'trusted %s\n' "$(minisign -V -p minisign.pub -m SHA256SUMS | sed -n 's/^Trusted comment: //p')"
} > expected.txt
echo "layouts made in $here"
