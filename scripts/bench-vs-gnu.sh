#!/usr/bin/env bash
# Whole-process throughput of mhash against GNU coreutils (and OpenSSL) on
# one cached file, same machine, same run: median of N runs per tool.
#
# usage: scripts/bench-vs-gnu.sh MHASH_BINARY [SIZE_MIB=512] [RUNS=5]
# Prints, per algorithm: GNU MB/s, OpenSSL MB/s, mhash MB/s, and the
# mhash/GNU ratio (MB/s = 10^6 bytes per second).
set -eu
bin=$(realpath "$1"); size=${2:-512}; runs=${3:-5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
head -c $((size * 1024 * 1024)) /dev/urandom > "$tmp/data"
cat "$tmp/data" > /dev/null
bytes=$((size * 1024 * 1024))
mkdir "$tmp/bin"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
clock() { # command... -> seconds (median of $runs)
  for _ in $(seq "$runs"); do
    s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
    awk -v e="$e" -v s="$s" 'BEGIN { printf "%.6f\n", e - s }'
  done | median
}
mbs() { awk -v b="$bytes" -v t="$1" 'BEGIN { printf "%d", b / t / 1000000 }'; }
printf '%-10s %10s %10s %10s %8s\n' algo "GNU MB/s" "OpenSSL" "mhash" "x GNU"
for pair in sha256sum:sha256 md5sum:md5 sha1sum:sha1 sha512sum:sha512 b2sum:blake2b512 cksum:-; do
  t=${pair%%:*}; o=${pair##*:}
  ln -sf "$bin" "$tmp/bin/$t"
  g=$(clock "/usr/bin/$t" "$tmp/data")
  m=$(clock "$tmp/bin/$t" "$tmp/data")
  if [ "$o" != - ] && command -v openssl > /dev/null; then
    os=$(mbs "$(clock openssl dgst "-$o" "$tmp/data")")
  else
    os=-
  fi
  printf '%-10s %10s %10s %10s %8.2f\n' "$t" "$(mbs "$g")" "$os" "$(mbs "$m")" "$(awk -v g="$g" -v m="$m" 'BEGIN { print g / m }')"
done
