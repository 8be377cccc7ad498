#!/usr/bin/env bash
# Makes every fixture in this directory with the real tools (GnuPG,
# minisign, signify-openbsd, ssh-keygen); SOURCES.md says which command
# made which file. Run from anywhere: `bash tests/data/signatures/make.sh
# [OUTDIR]` (default: this directory; tests/signatures.rs makes a fresh set
# in a temporary OUTDIR where the tools are installed). Private keys live
# in a temporary directory and are thrown away. What the tools themselves
# say of each key and signature (the values the tests expect) is kept in
# each directory's `expected.txt`.
set -euo pipefail
here=$(cd "${1:-$(dirname "$0")}" && pwd)
tmp=$(mktemp -d)
trap 'GNUPGHOME="$tmp/gnupg" gpgconf --kill all >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export GNUPGHOME="$tmp/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg=(gpg --batch --quiet --pinentry-mode loopback --passphrase '')

# The signed payload: two files and sha256sum's list of them, the same in
# each format's directory; other.txt is a file that is not the list.
for d in openpgp minisign signify ssh; do
  rm -rf "${here:?}/$d"
  mkdir -p "$here/$d"
  (cd "$here/$d" &&
    printf 'alpha\n' > a.txt &&
    printf 'bravo\n' > b.txt &&
    printf 'not the checksum list\n' > other.txt &&
    sha256sum a.txt b.txt > SHA256SUMS)
done

# --- OpenPGP (GnuPG) ---
cd "$here/openpgp"
"${gpg[@]}" --quick-gen-key 'Release Signing <release@example.org>' ed25519 sign never
"${gpg[@]}" --quick-gen-key 'RSA Release <rsa@example.org>' rsa3072 cert never
rsa=$(gpg --list-keys --with-colons rsa@example.org | awk -F: '/^fpr/{print $10; exit}')
"${gpg[@]}" --quick-add-key "$rsa" rsa2048 sign never
"${gpg[@]}" --quick-gen-key 'ECDSA Release <ecdsa@example.org>' nistp256 sign never
"${gpg[@]}" --quick-gen-key 'Somebody Else <else@example.org>' ed25519 sign never
"${gpg[@]}" --faked-system-time 20200101T000000 --quick-gen-key 'Expired <expired@example.org>' ed25519 sign 1d
"${gpg[@]}" --quick-gen-key 'Revoked <revoked@example.org>' ed25519 sign never
"${gpg[@]}" --armor --export release@example.org > release.asc
"${gpg[@]}" --export rsa@example.org > rsa.gpg
"${gpg[@]}" --armor --export ecdsa@example.org > ecdsa.asc
"${gpg[@]}" --armor --export else@example.org > else.asc
"${gpg[@]}" --export else@example.org release@example.org > keyring.gpg
"${gpg[@]}" --armor --export expired@example.org > expired.asc
"${gpg[@]}" --local-user release@example.org --armor --detach-sign --output SHA256SUMS.asc SHA256SUMS
"${gpg[@]}" --local-user rsa@example.org --detach-sign --output SHA256SUMS.rsa.sig SHA256SUMS
"${gpg[@]}" --local-user ecdsa@example.org --armor --detach-sign --output SHA256SUMS.ecdsa.asc SHA256SUMS
"${gpg[@]}" --local-user else@example.org --armor --detach-sign --output SHA256SUMS.else.asc SHA256SUMS
"${gpg[@]}" --local-user release@example.org --armor --detach-sign --output other.txt.asc other.txt
"${gpg[@]}" --faked-system-time 20200101T000100 --local-user expired@example.org --armor --detach-sign --output SHA256SUMS.expired.asc SHA256SUMS
"${gpg[@]}" --local-user revoked@example.org --armor --detach-sign --output SHA256SUMS.revoked.asc SHA256SUMS
"${gpg[@]}" --local-user release@example.org --clearsign --output SHA256SUMS.clear SHA256SUMS
rev=$(gpg --list-keys --with-colons revoked@example.org | awk -F: '/^fpr/{print $10; exit}')
sed 's/^:-----/-----/' "$GNUPGHOME/openpgp-revocs.d/$rev.rev" > "$tmp/revoke.asc"
"${gpg[@]}" --import "$tmp/revoke.asc"
"${gpg[@]}" --armor --export revoked@example.org > revoked.asc
# The fingerprint of the key that made each good signature, as gpg's
# VALIDSIG status line gives it.
for s in SHA256SUMS.asc SHA256SUMS.rsa.sig SHA256SUMS.ecdsa.asc SHA256SUMS.clear; do
  if [ "$s" = SHA256SUMS.clear ]; then set -- "$s"; else set -- "$s" SHA256SUMS; fi
  printf '%s %s\n' "$s" "$(gpg --batch --status-fd 1 --verify "$@" 2>/dev/null | awk '$2 == "VALIDSIG" {print $3}')"
done > expected.txt

# --- minisign ---
cd "$here/minisign"
minisign -G -W -p minisign.pub -s "$tmp/minisign.key" > /dev/null
minisign -G -W -p else.pub -s "$tmp/else.key" > /dev/null
minisign -S -s "$tmp/minisign.key" -m SHA256SUMS -t 'release 1.0' > /dev/null
minisign -S -s "$tmp/minisign.key" -m other.txt -t 'not the list' > /dev/null
minisign -V -p minisign.pub -m SHA256SUMS > /dev/null
# minisign's key ID, from the comment it wrote in the public key file.
printf 'minisign.pub %s\n' "$(head -1 minisign.pub | awk '{print $NF}')" > expected.txt

# --- signify (OpenBSD) ---
cd "$here/signify"
signify-openbsd -G -n -c 'release public key' -p signify.pub -s "$tmp/signify.sec"
signify-openbsd -G -n -c 'else public key' -p else.pub -s "$tmp/else.sec"
signify-openbsd -S -s "$tmp/signify.sec" -m SHA256SUMS -x SHA256SUMS.sig
signify-openbsd -S -s "$tmp/signify.sec" -m other.txt -x other.txt.sig
signify-openbsd -S -e -s "$tmp/signify.sec" -m SHA256SUMS -x SHA256.sig
signify-openbsd -V -p signify.pub -m SHA256SUMS -x SHA256SUMS.sig > /dev/null

# --- SSH signatures (ssh-keygen -Y) ---
cd "$here/ssh"
ssh-keygen -q -t ed25519 -N '' -C release@example.org -f "$tmp/id_ed25519"
ssh-keygen -q -t ecdsa -b 256 -N '' -C ecdsa@example.org -f "$tmp/id_ecdsa"
ssh-keygen -q -t rsa -b 3072 -N '' -C rsa@example.org -f "$tmp/id_rsa"
ssh-keygen -q -t ed25519 -N '' -C else@example.org -f "$tmp/id_else"
cp "$tmp/id_ed25519.pub" release.pub
cp "$tmp/id_else.pub" else.pub
{
  printf 'release@example.org namespaces="file" %s\n' "$(cut -d' ' -f1,2 "$tmp/id_ed25519.pub")"
  printf 'ecdsa@example.org %s\n' "$(cut -d' ' -f1,2 "$tmp/id_ecdsa.pub")"
  printf 'rsa@example.org %s\n' "$(cut -d' ' -f1,2 "$tmp/id_rsa.pub")"
} > allowed_signers
ssh-keygen -q -Y sign -f "$tmp/id_ed25519" -n file SHA256SUMS 2>/dev/null
for k in ecdsa rsa; do
  cp SHA256SUMS "$tmp/SHA256SUMS"
  ssh-keygen -q -Y sign -f "$tmp/id_$k" -n file "$tmp/SHA256SUMS" 2>/dev/null
  mv "$tmp/SHA256SUMS.sig" "SHA256SUMS.$k.sig"
done
cp SHA256SUMS "$tmp/SHA256SUMS"
ssh-keygen -q -Y sign -f "$tmp/id_ed25519" -n git "$tmp/SHA256SUMS" 2>/dev/null
mv "$tmp/SHA256SUMS.sig" SHA256SUMS.git-namespace.sig
ssh-keygen -q -Y sign -f "$tmp/id_ed25519" -n file other.txt 2>/dev/null
ssh-keygen -Y verify -f allowed_signers -I release@example.org -n file -s SHA256SUMS.sig < SHA256SUMS > /dev/null
# ssh-keygen -l: each key's SHA256 fingerprint.
for k in ed25519 ecdsa rsa else; do
  printf '%s %s\n' "$k" "$(ssh-keygen -l -E sha256 -f "$tmp/id_$k.pub" | awk '{print $2}')"
done > expected.txt
echo "fixtures made in $here"
