#!/usr/bin/env python3
"""Writes report.csv: a Compute checksum completion report for the files
under root/, in the layout of AWS's documented example (Amazon S3 User
Guide, "Examples: S3 Batch Operations completion reports", "Compute
checksum task report"), each checksum computed here by Python's zlib and
hashlib (CRC32 is zlib.crc32, big-endian as S3 encodes it), never by mhash.
Run from this directory: python3 make-report.py > report.csv"""
import base64, hashlib, json, sys, urllib.parse, zlib

def digest(alg, data):
    if alg == "CRC32":
        return zlib.crc32(data).to_bytes(4, "big")
    return hashlib.new(alg.lower(), data).digest()

def line(key, alg, data, typ="FULL_OBJECT"):
    d = digest(alg, data)
    msg = json.dumps({"checksum_base64": base64.b64encode(d).decode(), "etag": hashlib.md5(data).hexdigest(),
                      "checksumAlgorithm": alg, "checksumType": typ, "checksum_hex": d.hex().upper()},
                     separators=(",", ":"))
    key = urllib.parse.quote_plus(key, safe="")
    return 'amzn-s3-demo-bucket1,%s,,succeeded,200,,"%s"\n' % (key, msg.replace('"', '""'))

def read(name):
    with open("root/" + name, "rb") as f:
        return f.read()

out = sys.stdout
out.write(line("data/a b.txt", "CRC32", read("data/a b.txt")))
out.write(line("data/hello.txt", "SHA256", read("data/hello.txt")))
out.write(line("big.bin", "SHA512", read("big.bin")))
out.write(line("big.bin", "SHA1", read("big.bin")))
out.write(line("empty", "MD5", read("empty")))
# The object in S3 differs from the local copy.
out.write(line("changed.txt", "SHA256", b"the object as S3 holds it\n"))
# No local copy.
out.write(line("not-here.txt", "CRC32", b"x"))
