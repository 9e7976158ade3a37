//! The float model's inner loops over the H hidden units, written so that the compiler
//! vectorizes them: fixed-size blocks held in registers, `chunks_exact` instead of
//! indexing (no bounds checks in the hot loop), selects instead of branches.
//!
//! Every loop adds in the same order per element as the plain loop it replaces (bias,
//! then the rows in the order given), so the results do not depend on the block size or
//! on the vector width the code is compiled for. The one exception is [`screlu_dot`], a
//! reduction: it sums in [`LANES`] interleaved partial sums, a fixed order too.

/// Hidden units per block of the row loops (8 AVX2 registers of 8 floats).
pub const BLOCK: usize = 64;
/// Partial sums of [`screlu_dot`].
pub const LANES: usize = 16;

/// `acc = bias + Σ w[row · H..(row + 1) · H]` over `rows` (in order), H = `acc.len()`:
/// the first layer of one perspective.
#[inline(always)]
pub fn accumulate(w: &[f32], bias: &[f32], rows: &[usize], acc: &mut [f32]) {
    let h = acc.len();
    let full = h - h % BLOCK;
    for (start, a) in (0..full).step_by(BLOCK).zip(acc.chunks_exact_mut(BLOCK)) {
        a.copy_from_slice(&accumulate_block(w, h, start, bias, rows));
    }
    for (j, a) in acc.iter_mut().enumerate().skip(full) {
        *a = accumulate_unit(w, h, j, bias, rows);
    }
}

/// Units `start..start + BLOCK` of [`accumulate`], held in registers while the rows are
/// added.
#[inline(always)]
pub fn accumulate_block(
    w: &[f32],
    h: usize,
    start: usize,
    bias: &[f32],
    rows: &[usize],
) -> [f32; BLOCK] {
    let mut r: [f32; BLOCK] = bias[start..start + BLOCK].try_into().expect("a full block");
    for &row in rows {
        let at = row * h + start;
        let x: &[f32; BLOCK] = w[at..at + BLOCK].try_into().expect("a full block");
        for (r, &x) in r.iter_mut().zip(x) {
            *r += x;
        }
    }
    r
}

/// Unit `j` of [`accumulate`] (the units after the last full block).
#[inline(always)]
pub fn accumulate_unit(w: &[f32], h: usize, j: usize, bias: &[f32], rows: &[usize]) -> f32 {
    let mut r = bias[j];
    for &row in rows {
        r += w[row * h + j];
    }
    r
}

/// Σ SCReLU(acc)·w with SCReLU(x) = clamp(x, 0, 1)²: one perspective's share of the
/// output. Sums in [`LANES`] partial sums (unit j into sum j mod LANES), then adds them in
/// order.
#[inline(always)]
pub fn screlu_dot(acc: &[f32], w: &[f32]) -> f32 {
    let mut sums = [0.0f32; LANES];
    let (a_full, w_full) = (acc.chunks_exact(LANES), w.chunks_exact(LANES));
    let (a_rest, w_rest) = (a_full.remainder(), w_full.remainder());
    for (a, w) in a_full.zip(w_full) {
        for ((s, &a), &w) in sums.iter_mut().zip(a).zip(w) {
            let a = a.clamp(0.0, 1.0);
            *s += a * a * w;
        }
    }
    for ((s, &a), &w) in sums.iter_mut().zip(a_rest).zip(w_rest) {
        let a = a.clamp(0.0, 1.0);
        *s += a * a * w;
    }
    sums.iter().sum()
}

/// The output layer's backward pass for one perspective, given `d` = ∂loss/∂output:
/// `gw += d·SCReLU(x)` and `x ← d·w·SCReLU'(x)` (SCReLU' = 2·clamp(x) inside (0, 1), 0
/// outside): the accumulator is replaced by its gradient.
#[inline(always)]
pub fn screlu_backward(x: &mut [f32], w: &[f32], d: f32, gw: &mut [f32]) {
    for ((x, &w), gw) in x.iter_mut().zip(w).zip(gw.iter_mut()) {
        let a = x.clamp(0.0, 1.0);
        *gw += d * a * a;
        let da = d * w * 2.0 * a;
        *x = if *x > 0.0 && *x < 1.0 { da } else { 0.0 };
    }
}

/// `a += b + c`, element by element (the first-layer bias gradient: both perspectives).
#[inline(always)]
pub fn add_sum(a: &mut [f32], b: &[f32], c: &[f32]) {
    for ((a, &b), &c) in a.iter_mut().zip(b).zip(c) {
        *a += b + c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 1000) as f32 / 500.0 - 0.7)
            .collect()
    }

    /// The blocked loop gives bit for bit what the plain loop gives, for H with and
    /// without a partial block.
    #[test]
    fn blocked_accumulate_equals_the_plain_loop() {
        for h in [8, 64, 100, 256] {
            let w = values(10 * h, 1);
            let bias = values(h, 2);
            let rows = [3, 0, 9, 4, 7];
            let mut acc = vec![0.0; h];
            accumulate(&w, &bias, &rows, &mut acc);
            let plain: Vec<f32> = (0..h)
                .map(|j| rows.iter().fold(bias[j], |s, &r| s + w[r * h + j]))
                .collect();
            assert_eq!(acc, plain, "accumulate, H = {h}");
        }
    }

    #[test]
    fn screlu_dot_matches_the_sum() {
        let (acc, w) = (values(100, 6), values(100, 7));
        let exact: f64 = acc
            .iter()
            .zip(&w)
            .map(|(&a, &w)| f64::from(a.clamp(0.0, 1.0)).powi(2) * f64::from(w))
            .sum();
        assert!((f64::from(screlu_dot(&acc, &w)) - exact).abs() < 1e-5);
    }
}
