//! The integer kernels of the engine's forward pass: element-wise accumulator updates and
//! the SCReLU dot product of the output layer.

use super::QA;

/// `acc += w`, element-wise (wrapping like the engines' SIMD adds; the trainer clips
/// weights so that real accumulators stay far from the `i16` limits).
#[inline]
pub(crate) fn add_assign(acc: &mut [i16], w: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(w) {
        *a = a.wrapping_add(w);
    }
}

/// `acc −= w`, element-wise (wrapping, as [`add_assign`]).
pub(crate) fn sub_assign(acc: &mut [i16], w: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(w) {
        *a = a.wrapping_sub(w);
    }
}

/// `out = a + b`, element-wise (wrapping): two accumulator parts into one.
pub(crate) fn add_into(out: &mut [i16], a: &[i16], b: &[i16]) {
    for (o, (&a, &b)) in out.iter_mut().zip(a.iter().zip(b)) {
        *o = a.wrapping_add(b);
    }
}

/// `Σ clamp(a, 0, QA)² · w` over one perspective. `clamp(a) · w` fits an `i16` because
/// `|w| ≤ 127` (the "lizard" SCReLU trick), so the compiler can use 16-bit multiplies
/// with 32-bit pairwise sums; 64-element blocks keep the 32-bit partial sums exact.
#[inline]
pub(crate) fn screlu_dot(acc: &[i16], w: &[i16]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { screlu_dot_avx2(acc, w) };
    }
    screlu_dot_generic(acc, w)
}

/// [`screlu_dot`] compiled for AVX2 (16 lanes of `i16`); the build targets baseline x86-64.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn screlu_dot_avx2(acc: &[i16], w: &[i16]) -> i64 {
    screlu_dot_generic(acc, w)
}

#[inline(always)]
fn screlu_dot_generic(acc: &[i16], w: &[i16]) -> i64 {
    let mut total = 0i64;
    for (a, w) in acc.chunks(64).zip(w.chunks(64)) {
        let mut sum = 0i32;
        for (&a, &w) in a.iter().zip(w) {
            let c = a.clamp(0, QA as i16);
            sum += i32::from(c.wrapping_mul(w)) * i32::from(c);
        }
        total += i64::from(sum);
    }
    total
}
