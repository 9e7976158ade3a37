//! The integer kernels of the engine's forward pass: element-wise accumulator updates and
//! the SCReLU dot product of the output layer.
//!
//! The build targets baseline x86-64 (SSE2: 8 lanes of `i16`); each kernel is also compiled
//! with AVX2 enabled (16 lanes) and that copy is chosen at run time when the CPU has it, so
//! one binary runs everywhere and uses the wide registers where they exist. The loops are
//! plain Rust written so that both copies vectorize; the check is one cached load.

use super::QA;

/// Defines `$vis fn $name` that runs `$generic` compiled with AVX2 when the CPU has it and
/// as built otherwise (also used by the trainer's optimizer).
macro_rules! avx2_dispatch {
    ($(#[$doc:meta])* $vis:vis fn $name:ident / $avx2:ident = $generic:ident ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        $(#[$doc])*
        #[inline]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                return unsafe { $avx2($($arg),*) };
            }
            $generic($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx2($($arg: $ty),*) $(-> $ret)? {
            $generic($($arg),*)
        }
    };
}
pub(crate) use avx2_dispatch;

avx2_dispatch! {
    /// `acc += w`, element-wise (wrapping like the engines' SIMD adds; the trainer clips
    /// weights so that real accumulators stay far from the `i16` limits).
    pub(crate) fn add_assign / add_assign_avx2 = add_assign_generic(acc: &mut [i16], w: &[i16])
}

avx2_dispatch! {
    /// `acc −= w`, element-wise (wrapping, as [`add_assign`]).
    pub(crate) fn sub_assign / sub_assign_avx2 = sub_assign_generic(acc: &mut [i16], w: &[i16])
}

avx2_dispatch! {
    /// `out = a + b`, element-wise (wrapping): two accumulator parts into one.
    pub(crate) fn add_into / add_into_avx2 = add_into_generic(out: &mut [i16], a: &[i16], b: &[i16])
}

avx2_dispatch! {
    /// `Σ clamp(a, 0, QA)² · w` over one perspective. `clamp(a) · w` fits an `i16` because
    /// `|w| ≤ 127` (the "lizard" SCReLU trick), so the compiler can use 16-bit multiplies
    /// with 32-bit pairwise sums; 64-element blocks keep the 32-bit partial sums exact.
    pub(crate) fn screlu_dot / screlu_dot_avx2 = screlu_dot_generic(acc: &[i16], w: &[i16]) -> i64
}

#[inline(always)]
fn add_assign_generic(acc: &mut [i16], w: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(w) {
        *a = a.wrapping_add(w);
    }
}

#[inline(always)]
fn sub_assign_generic(acc: &mut [i16], w: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(w) {
        *a = a.wrapping_sub(w);
    }
}

#[inline(always)]
fn add_into_generic(out: &mut [i16], a: &[i16], b: &[i16]) {
    for (o, (&a, &b)) in out.iter_mut().zip(a.iter().zip(b)) {
        *o = a.wrapping_add(b);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The dispatched kernels equal the plain loops (on this CPU's path) on awkward lengths
    /// and values at the `i16` limits.
    #[test]
    fn kernels_equal_the_plain_loops() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 48) as i16
        };
        for n in [1, 15, 16, 17, 64, 255, 256, 512] {
            let a: Vec<i16> = (0..n).map(|_| next()).collect();
            let w: Vec<i16> = (0..n).map(|_| next() % 128).collect();
            let (mut x, mut y) = (a.clone(), a.clone());
            add_assign(&mut x, &w);
            add_assign_generic(&mut y, &w);
            assert_eq!(x, y);
            sub_assign(&mut x, &a);
            sub_assign_generic(&mut y, &a);
            assert_eq!(x, y);
            add_into(&mut x, &a, &w);
            add_into_generic(&mut y, &a, &w);
            assert_eq!(x, y);
            assert_eq!(screlu_dot(&a, &w), screlu_dot_generic(&a, &w));
            let slow: i64 = a
                .iter()
                .zip(&w)
                .map(|(&a, &w)| {
                    let c = i64::from(a.clamp(0, QA as i16));
                    c * c * i64::from(w)
                })
                .sum();
            assert_eq!(screlu_dot(&a, &w), slow, "n = {n}");
        }
    }
}
