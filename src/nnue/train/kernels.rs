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

/// `acc = bias + Σ w[row..row + H]` over `rows` (offsets into `w`, in order), H =
/// `acc.len()`: the first layer of one perspective. Each block of [`BLOCK`] units stays
/// in registers while the rows are added, so the accumulator is written once.
#[inline(always)]
pub fn accumulate(w: &[f32], bias: &[f32], rows: &[usize], acc: &mut [f32]) {
    let h = acc.len();
    let full = h - h % BLOCK;
    for (start, (a, b)) in (0..full)
        .step_by(BLOCK)
        .zip(acc.chunks_exact_mut(BLOCK).zip(bias.chunks_exact(BLOCK)))
    {
        let mut r: [f32; BLOCK] = b.try_into().expect("a full block");
        for &row in rows {
            let x: &[f32; BLOCK] = w[row + start..row + start + BLOCK]
                .try_into()
                .expect("a full block");
            for (r, &x) in r.iter_mut().zip(x) {
                *r += x;
            }
        }
        a.copy_from_slice(&r);
    }
    for j in full..h {
        let mut r = bias[j];
        for &row in rows {
            r += w[row + j];
        }
        acc[j] = r;
    }
}

/// `g[white[i]..] += d_white; g[black[i]..] += d_black` for every i in order (rows of H
/// = `d_white.len()` units): the first layer's gradient of one sample. Each block of both
/// gradients stays in registers while it is added into the rows.
#[inline(always)]
pub fn add_rows(g: &mut [f32], white: &[usize], black: &[usize], d_white: &[f32], d_black: &[f32]) {
    const B: usize = BLOCK / 2;
    let h = d_white.len();
    let full = h - h % B;
    for (start, (dw, db)) in (0..full)
        .step_by(B)
        .zip(d_white.chunks_exact(B).zip(d_black.chunks_exact(B)))
    {
        let dw: &[f32; B] = dw.try_into().expect("a full block");
        let db: &[f32; B] = db.try_into().expect("a full block");
        for (&rw, &rb) in white.iter().zip(black) {
            let gw: &mut [f32; B] = (&mut g[rw + start..rw + start + B])
                .try_into()
                .expect("a full block");
            for (g, &d) in gw.iter_mut().zip(dw) {
                *g += d;
            }
            let gb: &mut [f32; B] = (&mut g[rb + start..rb + start + B])
                .try_into()
                .expect("a full block");
            for (g, &d) in gb.iter_mut().zip(db) {
                *g += d;
            }
        }
    }
    for j in full..h {
        for (&rw, &rb) in white.iter().zip(black) {
            g[rw + j] += d_white[j];
            g[rb + j] += d_black[j];
        }
    }
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
/// `gw += d·SCReLU(acc)` and `dacc = d·w·SCReLU'(acc)` (SCReLU' = 2·clamp(acc) inside
/// (0, 1), 0 outside).
#[inline(always)]
pub fn screlu_backward(acc: &[f32], w: &[f32], d: f32, gw: &mut [f32], dacc: &mut [f32]) {
    for (((&x, &w), gw), dacc) in acc.iter().zip(w).zip(gw.iter_mut()).zip(dacc.iter_mut()) {
        let a = x.clamp(0.0, 1.0);
        *gw += d * a * a;
        let da = d * w * 2.0 * a;
        *dacc = if x > 0.0 && x < 1.0 { da } else { 0.0 };
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

    /// The blocked loops give bit for bit what the plain loops give, for H with and
    /// without a partial block.
    #[test]
    fn blocked_loops_equal_plain_loops() {
        for h in [8, 64, 100, 256] {
            let w = values(10 * h, 1);
            let bias = values(h, 2);
            let rows = [3 * h, 0, 9 * h, 3 * h + h, 7 * h];
            let mut acc = vec![0.0; h];
            accumulate(&w, &bias, &rows, &mut acc);
            let plain: Vec<f32> = (0..h)
                .map(|j| rows.iter().fold(bias[j], |s, &r| s + w[r + j]))
                .collect();
            assert_eq!(acc, plain, "accumulate, H = {h}");

            let (dw, db) = (values(h, 3), values(h, 4));
            // Row 3 is both a white row and a black row: the order of adds matters.
            let (white, black) = ([3 * h, 5 * h], [h, 3 * h]);
            let mut g = values(10 * h, 5);
            let mut plain = g.clone();
            add_rows(&mut g, &white, &black, &dw, &db);
            for (&rw, &rb) in white.iter().zip(&black) {
                for j in 0..h {
                    plain[rw + j] += dw[j];
                }
                for j in 0..h {
                    plain[rb + j] += db[j];
                }
            }
            assert_eq!(g, plain, "add_rows, H = {h}");
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
