# mhash in a FROM scratch image: the static musl binary and its GNU names.
#
#   docker build -t mhash .
#   docker run --rm -v "$PWD:/data" -w /data mhash sha256sum README.md
#
# Stage 1 builds the static x86_64 musl binary with scripts/musl-build.sh
# (the Rust target, musl-tools, the release build and its static checks;
# the GNU conformance step is skipped in an image, which has no
# ../shared/conformance). Stage 2 holds the binary alone, with md5sum,
# sha1sum, ..., cksum and sum made as links to it by
# `mhash --install-links` (exec form: the image has no shell).
FROM rust:1.89-bookworm AS build
WORKDIR /src
COPY . .
RUN scripts/musl-build.sh

FROM scratch
COPY --from=build /src/target/x86_64-unknown-linux-musl/release/mhash /usr/local/bin/mhash
RUN ["/usr/local/bin/mhash", "--install-links", "/usr/local/bin"]
ENV PATH=/usr/local/bin
CMD ["mhash", "--help"]
