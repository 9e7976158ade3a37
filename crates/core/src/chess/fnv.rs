//! FNV-1a, 64 bit (Fowler, Noll and Vo): a small byte hash that is the same on every
//! platform and Rust version (unlike `DefaultHasher`), for checksums and fingerprints
//! that are stored — network files, imported files, tournament openings, the split.

/// The FNV-1a 64-bit offset basis (the hash of no bytes).
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// The FNV 64-bit prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a over bytes written in parts: the same hash as [`fnv1a64`] of them joined.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a64(pub u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Fnv1a64(FNV_OFFSET)
    }
}

impl Fnv1a64 {
    /// Hashes `bytes` after what was written before.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }

    /// The hash of everything written.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The FNV-1a 64-bit hash of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a64::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_test_vectors_and_parts() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        let mut h = Fnv1a64::default();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), fnv1a64(b"foobar"));
    }
}
