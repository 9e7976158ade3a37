//! SplitMix64 (Steele, Lea and Flood, 2014): a small, well-mixed seeded generator; all the
//! players, the opening generator and the trainer need is a reproducible stream.

/// The constant SplitMix64 adds to its state at each step (2⁶⁴ / φ, odd).
pub const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser (Stafford's "Mix13"): spreads every input bit over the output,
/// a bijection of `u64`. Alone it turns a weak hash (FNV's low bits) into a well-mixed one.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64: a tiny seeded generator (the state is the seed, advanced by a constant).
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix64(self.0)
    }

    /// Uniform in [−1, 1).
    pub fn uniform(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_first_outputs() {
        // The reference implementation's first outputs for seed 0.
        let mut r = SplitMix(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(mix64(GAMMA), 0xe220_a839_7b1d_cdaf);
        let mut r = SplitMix(7);
        assert!((0..1000).all(|_| r.below(10) < 10));
        assert!(
            (0..1000)
                .map(|_| r.uniform())
                .all(|u| (-1.0..1.0).contains(&u))
        );
    }
}
