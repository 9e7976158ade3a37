//! The integer kernels of the engine's forward pass: element-wise accumulator updates and
//! the SCReLU dot product of the output layer.
//!
//! The build targets baseline x86-64 (SSE2: 8 lanes of `i16`); each kernel is also compiled
//! with AVX2 enabled (16 lanes) and that copy is chosen at run time when the CPU has it, so
//! one binary runs everywhere and uses the wide registers where they exist. The element-wise
//! loops are plain Rust that both copies vectorize; the check is one cached load.
//!
//! Two kernels are written with AVX2 intrinsics because the compiler does not find the
//! good code for them (checked in the assembly): the SCReLU dot product, which it computes
//! on 8-lane halves because the products widen to 32 bits, and the update of many weight
//! rows at once, where it reloads and stores the accumulator once per row instead of
//! keeping a block of it in registers. Their plain versions stay as the reference the
//! tests compare them with, and as the path of CPUs without AVX2.

use super::QA;

/// Defines `$vis fn $name` that runs `$generic` compiled with AVX2 when the CPU has it and
/// as built otherwise (also used by the trainer's model and optimizer).
#[macro_export]
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
pub use crate::avx2_dispatch;

avx2_dispatch! {
    /// `acc += w`, element-wise (wrapping like the engines' SIMD adds; the trainer clips
    /// weights so that real accumulators stay far from the `i16` limits).
    pub(crate) fn add_assign / add_assign_avx2 = add_assign_generic(acc: &mut [i16], w: &[i16])
}

avx2_dispatch! {
    /// `acc −= w`, element-wise (wrapping, as [`add_assign`]).
    pub(crate) fn sub_assign / sub_assign_avx2 = sub_assign_generic(acc: &mut [i16], w: &[i16])
}

/// `Σ clamp(a, 0, QA)² · w` over one perspective. `clamp(a) · w` fits an `i16` because
/// `|w| ≤ 127` (the "lizard" SCReLU trick), so the kernel uses 16-bit multiplies with
/// 32-bit pairwise sums.
#[inline]
pub(crate) fn screlu_dot(acc: &[i16], w: &[i16]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2::screlu_dot(acc, w) };
    }
    screlu_dot_generic(acc, w)
}

/// `out = from + Σ adds − Σ subs`, element-wise (wrapping), in one pass over the
/// accumulator; each row is `weights[o..o + out.len()]` for an offset `o` of `adds` or
/// `subs`. `from` is `None` for an update of `out` in place.
///
/// # Panics
/// When a row or `from` is shorter than `out`.
pub(crate) fn add_sub_rows(
    out: &mut [i16],
    from: Option<&[i16]>,
    weights: &[i16],
    adds: &[u32],
    subs: &[u32],
) {
    let n = out.len();
    let fits = |&o: &u32| o as usize + n <= weights.len();
    assert!(from.is_none_or(|f| f.len() >= n) && adds.iter().chain(subs).all(fits));
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && n.is_multiple_of(avx2::TILE_VALUES) {
        // SAFETY: the CPU has AVX2, checked just above; the lengths were checked.
        return unsafe { avx2::add_sub_rows(out, from, weights, adds, subs) };
    }
    if let Some(from) = from {
        out.copy_from_slice(&from[..n]);
    }
    for &o in adds {
        add_assign(out, &weights[o as usize..o as usize + n]);
    }
    for &o in subs {
        sub_assign(out, &weights[o as usize..o as usize + n]);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{QA, screlu_dot_generic};

    /// 16-lane blocks summed in one 32-bit register before it is widened: each lane adds
    /// two products of at most 255 · 255 · 127 per block, so 64 blocks stay below 2³¹.
    const BLOCKS_PER_SUM: usize = 64;

    /// [`super::screlu_dot`] with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn screlu_dot(a: &[i16], w: &[i16]) -> i64 {
        let n = a.len().min(w.len());
        let full = n / 16 * 16;
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut total = 0i64;
        let mut i = 0;
        while i < full {
            let end = (i + 16 * BLOCKS_PER_SUM).min(full);
            let mut sum = zero;
            while i < end {
                // SAFETY: i + 16 ≤ full ≤ the length of each slice; unaligned loads.
                let (v, wv) = unsafe {
                    (
                        _mm256_loadu_si256(a.as_ptr().add(i).cast()),
                        _mm256_loadu_si256(w.as_ptr().add(i).cast()),
                    )
                };
                let c = _mm256_min_epi16(_mm256_max_epi16(v, zero), qa);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(c, wv), c));
                i += 16;
            }
            total += i64::from(hsum(sum));
        }
        if full < n {
            total += screlu_dot_generic(&a[full..n], &w[full..n]);
        }
        total
    }

    #[target_feature(enable = "avx2")]
    fn hsum(v: __m256i) -> i32 {
        let x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        let x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0b01_00_11_10));
        let x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0b10_11_00_01));
        _mm_cvtsi128_si32(x)
    }

    /// Registers of the accumulator block kept while the rows are applied: all sixteen
    /// of AVX2 (each row is added from memory, so none is needed for it; checked in the
    /// assembly: no spills), which halves the passes over the row list against eight.
    const TILE: usize = 16;
    /// Values of one such block.
    pub(super) const TILE_VALUES: usize = 16 * TILE;

    /// [`super::add_sub_rows`] with AVX2: each block of the accumulator is loaded once,
    /// every row added or subtracted in registers, and stored once. The caller checks that
    /// `out.len()` is a multiple of [`TILE_VALUES`] and that `from` and every row hold
    /// `out.len()` values.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn add_sub_rows(
        out: &mut [i16],
        from: Option<&[i16]>,
        weights: &[i16],
        adds: &[u32],
        subs: &[u32],
    ) {
        let n = out.len();
        // Both pointers come from the one `as_mut_ptr`: a `src` taken with `out.as_ptr()`
        // first would be invalidated by the later `as_mut_ptr` (a unique reborrow of
        // `out`) and reading through it would be undefined behaviour (Stacked Borrows;
        // Miri reports it).
        let dst = out.as_mut_ptr();
        let src = from.map_or(dst.cast_const(), <[i16]>::as_ptr);
        let w = weights.as_ptr();
        let mut i = 0;
        while i < n {
            // SAFETY: the caller's checks; `src` may be `dst` itself (an update in place),
            // each block of which is read before it is written.
            unsafe {
                let mut r = [_mm256_setzero_si256(); TILE];
                for (k, reg) in r.iter_mut().enumerate() {
                    *reg = _mm256_loadu_si256(src.add(i + 16 * k).cast());
                }
                for &o in adds {
                    let row = w.add(o as usize + i);
                    for (k, reg) in r.iter_mut().enumerate() {
                        *reg = _mm256_add_epi16(*reg, _mm256_loadu_si256(row.add(16 * k).cast()));
                    }
                }
                for &o in subs {
                    let row = w.add(o as usize + i);
                    for (k, reg) in r.iter_mut().enumerate() {
                        *reg = _mm256_sub_epi16(*reg, _mm256_loadu_si256(row.add(16 * k).cast()));
                    }
                }
                for (k, reg) in r.iter().enumerate() {
                    _mm256_storeu_si256(dst.add(i + 16 * k).cast(), *reg);
                }
            }
            i += TILE_VALUES;
        }
    }
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

/// The plain [`screlu_dot`]: 64-element blocks keep the 32-bit partial sums exact.
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

    /// A seeded stream of `i16`s over the whole range (an LCG's high bits).
    fn random_i16(mut seed: u64) -> impl FnMut() -> i16 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 48) as i16
        }
    }

    /// The dispatched kernels equal the plain loops (on this CPU's path) on awkward lengths
    /// and values at the `i16` limits.
    #[test]
    fn kernels_equal_the_plain_loops() {
        let mut next = random_i16(7);
        // Under Miri (`.ci/run`), which interprets every lane, the lengths that still
        // reach each case: a partial block, whole blocks, more than one 32-bit sum.
        let lengths: &[usize] = if cfg!(miri) {
            &[1, 17, 256, 1040]
        } else {
            &[1, 15, 16, 17, 64, 255, 256, 512, 1040, 2048]
        };
        for &n in lengths {
            let a: Vec<i16> = (0..n).map(|_| next()).collect();
            let w: Vec<i16> = (0..n).map(|_| next() % 128).collect();
            let (mut x, mut y) = (a.clone(), a.clone());
            add_assign(&mut x, &w);
            add_assign_generic(&mut y, &w);
            assert_eq!(x, y);
            sub_assign(&mut x, &a);
            sub_assign_generic(&mut y, &a);
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

    /// The fused many-row update equals adding and subtracting the rows one by one, from
    /// another accumulator or in place, on lengths with and without whole AVX2 blocks.
    #[test]
    fn add_sub_rows_equals_row_by_row() {
        let mut next = random_i16(11);
        // Smaller under Miri (`.ci/run`); 256 and 512 take the AVX2 kernel, where the CPU
        // (or Miri, with `-Ctarget-feature=+avx2`) has it.
        let (lengths, row_counts): (&[usize], &[(usize, usize)]) = if cfg!(miri) {
            (&[8, 256, 512], &[(0, 0), (1, 2), (5, 3)])
        } else {
            (
                &[8, 64, 512, 520],
                &[(0, 0), (1, 1), (1, 2), (2, 2), (5, 3), (40, 30)],
            )
        };
        for &n in lengths {
            let weights: Vec<i16> = (0..70 * n).map(|_| next()).collect();
            let from: Vec<i16> = (0..n).map(|_| next()).collect();
            for &(na, ns) in row_counts {
                let adds: Vec<u32> = (0..na).map(|r| (r * n) as u32).collect();
                let subs: Vec<u32> = (na..na + ns).map(|r| (r * n) as u32).collect();
                let mut want = from.clone();
                for &o in &adds {
                    add_assign_generic(&mut want, &weights[o as usize..o as usize + n]);
                }
                for &o in &subs {
                    sub_assign_generic(&mut want, &weights[o as usize..o as usize + n]);
                }
                let mut out = vec![0; n];
                add_sub_rows(&mut out, Some(&from), &weights, &adds, &subs);
                assert_eq!(out, want, "n = {n}, {na} + {ns} rows");
                let mut in_place = from.clone();
                add_sub_rows(&mut in_place, None, &weights, &adds, &subs);
                assert_eq!(in_place, want, "in place, n = {n}, {na} + {ns} rows");
            }
        }
    }

    /// Every run-time AVX2 check of the workspace is in this file ([`avx2_dispatch`] or the intrinsic
    /// kernels), so there is one way to choose the wide copy. (It reads the source tree,
    /// which Miri's isolation forbids; `cargo test` runs it.)
    #[test]
    #[cfg_attr(miri, ignore = "reads the source files")]
    fn every_avx2_check_is_here() {
        // The workspace's sources: the binary's `src/` and every crate's.
        let root = chessgraph_testkit::repo_root().canonicalize().unwrap();
        let this = root.join("crates/engine/src/nnue/simd.rs");
        let mut stack = vec![root.join("src"), root.join("crates")];
        let mut elsewhere = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if !path.ends_with("target") {
                        stack.push(path);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") && path != this {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if text.contains("is_x86_feature_detected!") {
                        elsewhere.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(
            elsewhere.is_empty(),
            "AVX2 checked by hand in {elsewhere:?}"
        );
    }
}
