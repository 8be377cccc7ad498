#!/usr/bin/env bash
# Byte-for-byte comparison of mhash against the installed GNU coreutils on
# every regular file under the given directories (default: /usr/share/doc
# and /usr/lib/x86_64-linux-gnu), for sha256sum, md5sum, sha1sum, sha512sum,
# b2sum and cksum; then `-c` of GNU's own output must say OK for each file.
#
# usage: scripts/gnu-corpus.sh MHASH_BINARY [DIR...]
# Prints one summary line per tool and exits non-zero on any difference.
# Skips (exit 0, loudly) where /usr/bin/sha256sum is not GNU coreutils.
set -u
bin=$(realpath "$1"); shift
dirs=("$@"); [ ${#dirs[@]} -gt 0 ] || dirs=(/usr/share/doc /usr/lib/x86_64-linux-gnu)
if ! /usr/bin/sha256sum --version 2>/dev/null | grep -q 'GNU coreutils'; then
  echo "SKIP gnu-corpus: no GNU coreutils in /usr/bin"; exit 0
fi
export LC_ALL=C MHASH_GNU_COMPAT=9.1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/gnu" "$tmp/mh"
find "${dirs[@]}" -type f -readable -print0 2>/dev/null | sort -z > "$tmp/list"
n=$(tr -cd '\0' < "$tmp/list" | wc -c)
fail=0
for t in sha256sum md5sum sha1sum sha512sum b2sum cksum; do
  ln -s "/usr/bin/$t" "$tmp/gnu/$t"; ln -s "$bin" "$tmp/mh/$t"
  (cd "$tmp/gnu" && xargs -0 ./"$t" < "$tmp/list" > "$tmp/$t.gnu" 2> "$tmp/$t.gnu.err")
  (cd "$tmp/mh" && xargs -0 ./"$t" < "$tmp/list" > "$tmp/$t.mh" 2> "$tmp/$t.mh.err")
  if cmp -s "$tmp/$t.gnu" "$tmp/$t.mh" && cmp -s "$tmp/$t.gnu.err" "$tmp/$t.mh.err"; then
    res="same bytes"
  else
    res="DIFFERENT"; fail=1
    diff <(head -c 2000 "$tmp/$t.gnu") <(head -c 2000 "$tmp/$t.mh") | head -5
  fi
  chk=""
  if [ "$t" != cksum ]; then
    (cd "$tmp/mh" && ./"$t" -c --quiet "$tmp/$t.gnu") > "$tmp/$t.chk" 2>&1
    rc=$?
    ok=$( (cd "$tmp/mh" && ./"$t" -c "$tmp/$t.gnu") 2>/dev/null | grep -c ': OK$')
    if [ $rc -eq 0 ] && [ ! -s "$tmp/$t.chk" ]; then chk=", -c: $ok OK"; else chk=", -c FAILED (rc=$rc)"; fail=1; head -5 "$tmp/$t.chk"; fi
  fi
  echo "$t: $n files, $res$chk"
done
exit $fail
