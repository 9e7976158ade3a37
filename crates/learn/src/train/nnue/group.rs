//! A group of samples through the first layer together, the layer that is the whole cost
//! of training: every sample adds ~30 weight rows of H floats into each perspective's
//! accumulator, and adds its two gradient vectors back into the same rows of the gradient.
//!
//! Sample by sample, those rows stream through the cache: the weights and one thread's
//! gradient are inputs · H floats each (768 or 2,304) (3 MB together for H = 256), more than a core's L2.
//! A group of [`GROUP`] samples instead
//! - computes the accumulators a block of [`BLOCK`] units at a time for every sample of
//!   the group, so that block of every weight row (768 · 64 floats, 192 kB; three times that with threat inputs) stays in L2
//!   while the whole group uses it;
//! - keeps the samples' gradient vectors (in place of the accumulators), sorts the
//!   (row, vector) pairs by row (a stable counting sort), and reads and writes each
//!   touched gradient row once, summing its vectors in registers.
//!
//! Every value gets the same additions in the same order as sample by sample (bias, then
//! the features in order; samples in order, White's perspective before Black's), so the
//! results are the same bit for bit.

use chessgraph_engine::nnue::FeatureSet;
use chessgraph_engine::nnue::features::mirror;

use super::data::{MAX_FEATURES, Sample};
use super::grad::Gradient;
use super::kernels::{BLOCK, accumulate_block, accumulate_unit};
use super::params::Params;

/// Samples per group: their vectors (2 · H floats each, 128 kB for H = 256) stay in L2
/// beside a block of the weights.
pub const GROUP: usize = 64;

/// The rows and vectors of a group of samples.
#[derive(Clone, Debug)]
pub struct Group {
    hidden: usize,
    /// Samples in the group.
    samples: usize,
    /// Per sample, the first-layer rows of its features: White's perspective.
    white: Vec<[usize; MAX_FEATURES]>,
    /// The same, Black's perspective (mirrored features).
    black: Vec<[usize; MAX_FEATURES]>,
    /// Per sample, the number of features and whether White is to move.
    info: Vec<(usize, bool)>,
    /// `2 · GROUP` slots of H: sample s's side to move in slot 2s, the other side in
    /// 2s + 1. The accumulators after [`Group::forward`], then their gradients.
    vectors: Vec<f32>,
    /// (row, slot) pairs in the order sample by sample would add them.
    pairs: Vec<(u16, u16)>,
    /// Counting sort: the end of each row's run in `sorted` (after the sort).
    ends: Vec<u32>,
    /// The slots sorted by row.
    sorted: Vec<u16>,
}

impl Group {
    /// An empty group for a model with `hidden` units.
    pub fn new(set: FeatureSet, hidden: usize) -> Group {
        Group {
            hidden,
            samples: 0,
            white: vec![[0; MAX_FEATURES]; GROUP],
            black: vec![[0; MAX_FEATURES]; GROUP],
            info: vec![(0, false); GROUP],
            vectors: vec![0.0; 2 * GROUP * hidden],
            pairs: vec![(0, 0); 2 * GROUP * MAX_FEATURES],
            ends: vec![0; set.inputs()],
            sorted: vec![0; 2 * GROUP * MAX_FEATURES],
        }
    }

    /// Takes up to [`GROUP`] samples and computes both perspectives' accumulators.
    #[inline(always)]
    pub fn forward(&mut self, params: &Params, samples: &[Sample]) {
        assert!(samples.len() <= GROUP, "at most {GROUP} samples in a group");
        let h = self.hidden;
        self.samples = samples.len();
        for (i, s) in samples.iter().enumerate() {
            let n = s.white_features().len();
            for (j, &f) in s.white_features().iter().enumerate() {
                self.white[i][j] = usize::from(f);
                self.black[i][j] = mirror(usize::from(f));
            }
            self.info[i] = (n, s.white_to_move);
        }
        let (w, bias) = (&params.ft_w[..], &params.ft_b[..]);
        let full = h - h % BLOCK;
        for start in (0..full).step_by(BLOCK) {
            for i in 0..self.samples {
                let (us, them) = perspectives(&self.white, &self.black, &self.info, i);
                let at = 2 * i * h + start;
                self.vectors[at..at + BLOCK]
                    .copy_from_slice(&accumulate_block(w, h, start, bias, us));
                let at = at + h;
                self.vectors[at..at + BLOCK]
                    .copy_from_slice(&accumulate_block(w, h, start, bias, them));
            }
        }
        for j in full..h {
            for i in 0..self.samples {
                let (us, them) = perspectives(&self.white, &self.black, &self.info, i);
                let at = 2 * i * h + j;
                self.vectors[at] = accumulate_unit(w, h, j, bias, us);
                self.vectors[at + h] = accumulate_unit(w, h, j, bias, them);
            }
        }
    }

    /// Sample i's two slots: side to move, other side.
    #[inline(always)]
    pub fn vectors_mut(&mut self, i: usize) -> (&mut [f32], &mut [f32]) {
        let h = self.hidden;
        self.vectors[2 * i * h..2 * (i + 1) * h].split_at_mut(h)
    }

    /// Adds every sample's two slots (by now ∂loss/∂accumulator) into its rows of the
    /// first layer's gradient, marking the rows touched.
    #[inline(always)]
    pub fn add_gradients(&mut self, grad: &mut Gradient) {
        let h = self.hidden;
        self.ends.fill(0);
        let mut k = 0;
        for i in 0..self.samples {
            let (n, white_to_move) = self.info[i];
            let us = (2 * i) as u16;
            let (w, b) = if white_to_move {
                (us, us + 1)
            } else {
                (us + 1, us)
            };
            for (&rw, &rb) in self.white[i][..n].iter().zip(&self.black[i][..n]) {
                self.pairs[k] = (rw as u16, w);
                self.pairs[k + 1] = (rb as u16, b);
                k += 2;
                self.ends[rw] += 1;
                self.ends[rb] += 1;
            }
        }
        // Starts of the runs, then each pair placed at its row's next position: after
        // this loop `ends[r]` is the end of row r's run.
        let mut start = 0;
        for e in &mut self.ends {
            let n = *e;
            *e = start;
            start += n;
        }
        for &(r, slot) in &self.pairs[..k] {
            let at = &mut self.ends[usize::from(r)];
            self.sorted[*at as usize] = slot;
            *at += 1;
        }
        let mut begin = 0;
        for (row, &end) in self.ends.iter().enumerate() {
            let slots = &self.sorted[begin as usize..end as usize];
            begin = end;
            if !slots.is_empty() {
                grad.touch(row);
                let g = &mut grad.params.ft_w[row * h..(row + 1) * h];
                add_slots(g, &self.vectors, slots);
            }
        }
    }
}

/// Sample i's rows: side to move's perspective, the other side's.
#[inline(always)]
fn perspectives<'a>(
    white: &'a [[usize; MAX_FEATURES]],
    black: &'a [[usize; MAX_FEATURES]],
    info: &[(usize, bool)],
    i: usize,
) -> (&'a [usize], &'a [usize]) {
    let (n, white_to_move) = info[i];
    let (w, b) = (&white[i][..n], &black[i][..n]);
    if white_to_move { (w, b) } else { (b, w) }
}

/// `g += Σ vectors[slot]` over `slots` in order (vectors of H = `g.len()`), a block of
/// [`BLOCK`] units at a time held in registers.
#[inline(always)]
fn add_slots(g: &mut [f32], vectors: &[f32], slots: &[u16]) {
    let h = g.len();
    let full = h - h % BLOCK;
    for (start, g) in (0..full).step_by(BLOCK).zip(g.chunks_exact_mut(BLOCK)) {
        let mut r: [f32; BLOCK] = (&*g).try_into().expect("a full block");
        for &slot in slots {
            let at = usize::from(slot) * h + start;
            let x: &[f32; BLOCK] = vectors[at..at + BLOCK].try_into().expect("a full block");
            for (r, &x) in r.iter_mut().zip(x) {
                *r += x;
            }
        }
        g.copy_from_slice(&r);
    }
    for j in full..h {
        for &slot in slots {
            g[j] += vectors[usize::from(slot) * h + j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::nnue::kernels::accumulate;
    use chessgraph_core::chess::fen::parse_position;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 1000) as f32 / 500.0 - 0.7)
            .collect()
    }

    /// Group by group, block by block and row by row gives bit for bit the sample-by-sample
    /// accumulators and gradient sums, for H with and without a partial block.
    #[test]
    fn group_equals_sample_by_sample() {
        // Both sides to move; a white pawn on e2 and a black pawn on e7 share a row
        // (one seen from White, the other from Black).
        let samples: Vec<Sample> = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "4k3/4p3/8/8/8/8/4P3/3QK3 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ]
        .iter()
        .map(|f| Sample::new(&parse_position(f).unwrap(), FeatureSet::Threats, 0.0, 0.5))
        .collect();
        for h in [8, 64, 100] {
            let mut params = Params::zeros(FeatureSet::Threats, h, 1);
            params.ft_w = values(FeatureSet::Threats.inputs() * h, 1);
            params.ft_b = values(h, 2);
            let mut grad = Gradient::new(&params);
            grad.params.ft_w = values(FeatureSet::Threats.inputs() * h, 9);
            let mut plain = grad.params.ft_w.clone();
            let mut rows = std::collections::BTreeSet::new();
            let mut group = Group::new(FeatureSet::Threats, h);
            group.forward(&params, &samples);
            for (i, s) in samples.iter().enumerate() {
                let white: Vec<usize> = s.white_features().iter().map(|&f| f as usize).collect();
                let black: Vec<usize> = white.iter().map(|&f| mirror(f)).collect();
                let (us_rows, them_rows) = if s.white_to_move {
                    (&white, &black)
                } else {
                    (&black, &white)
                };
                let (mut us, mut them) = (vec![0.0; h], vec![0.0; h]);
                accumulate(&params.ft_w, &params.ft_b, us_rows, &mut us);
                accumulate(&params.ft_w, &params.ft_b, them_rows, &mut them);
                let (gus, gthem) = group.vectors_mut(i);
                assert_eq!(
                    (&*gus, &*gthem),
                    (&us[..], &them[..]),
                    "H = {h}, sample {i}"
                );
                // Stand-ins for the gradients.
                gus.copy_from_slice(&values(h, i as u32));
                gthem.copy_from_slice(&values(h, 1000 + i as u32));
                let (dw, db) = if s.white_to_move {
                    (gus.to_vec(), gthem.to_vec())
                } else {
                    (gthem.to_vec(), gus.to_vec())
                };
                rows.extend(white.iter().chain(&black));
                for (&rw, &rb) in white.iter().zip(&black) {
                    for j in 0..h {
                        plain[rw * h + j] += dw[j];
                    }
                    for j in 0..h {
                        plain[rb * h + j] += db[j];
                    }
                }
            }
            group.add_gradients(&mut grad);
            assert_eq!(grad.params.ft_w, plain, "H = {h}");
            assert_eq!(grad.touched_rows(), rows.len());
            assert!(rows.iter().all(|&r| grad.is_touched(r)));
        }
    }
}
