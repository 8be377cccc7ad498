//! Adler-32 (RFC 1950 8.2; zlib's `adler32.c`), scalar: the portable
//! backend. Two sums modulo 65521, the largest prime below 2^16: `a` of
//! the bytes plus one, `b` of the successive values of `a`. The modulo is
//! taken once per [`NMAX`] bytes, as zlib does.

/// The modulus: the largest prime below 2^16 (RFC 1950 8.2).
const BASE: u32 = 65_521;

/// The most bytes that can be summed before `b` may overflow 32 bits
/// (zlib's `NMAX`: 255 n (n+1) / 2 + (n+1)(BASE-1) <= 2^32-1).
const NMAX: usize = 5552;

/// A running Adler-32.
#[derive(Clone, Debug)]
pub(crate) struct Adler32 {
    a: u32,
    b: u32,
}

impl Adler32 {
    /// The checksum of no bytes: `a` = 1, `b` = 0.
    pub(crate) fn new() -> Adler32 {
        Adler32 { a: 1, b: 0 }
    }

    /// Adds `data`.
    pub(crate) fn update(&mut self, data: &[u8]) {
        let (mut a, mut b) = (self.a, self.b);
        for chunk in data.chunks(NMAX) {
            let mut quads = chunk.chunks_exact(4);
            for q in &mut quads {
                a += u32::from(q[0]);
                b += a;
                a += u32::from(q[1]);
                b += a;
                a += u32::from(q[2]);
                b += a;
                a += u32::from(q[3]);
                b += a;
            }
            for &x in quads.remainder() {
                a += u32::from(x);
                b += a;
            }
            a %= BASE;
            b %= BASE;
        }
        self.a = a;
        self.b = b;
    }

    /// The value `b << 16 | a`.
    pub(crate) fn value(&self) -> u32 {
        (self.b << 16) | self.a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wikipedia_example() {
        // RFC 1950's definition worked in Wikipedia's "Adler-32" article.
        let mut h = Adler32::new();
        h.update(b"Wikipedia");
        assert_eq!(h.value(), 0x11E6_0398);
    }
}
