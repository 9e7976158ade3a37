//! Every pruning, reduction and window constant of the search, named in one place, with
//! the range and step an SPSA tune may use. Changing one changes the bench signature (see
//! `bench`), as it should.
//!
//! Each is a function: in a normal build a `const fn` returning the value (compiled as a
//! constant), in a build with the `tune` feature a read of a value that the UCI option of
//! the same name sets (`set`), so that a tuner (`chessgraph tune spsa`, OpenBench) can
//! change it between games. [`PARAMS`] lists them with their defaults, ranges and SPSA
//! steps; `chessgraph-engine spsa` prints them as SPSA input lines.

/// A tunable constant: its UCI option name, value, range, and SPSA's final perturbation
/// (`c_end`) and final learning rate (`r_end`), in OpenBench's terms.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Param {
    /// The UCI option's name (the function's).
    pub name: &'static str,
    /// The hand-set value.
    pub default: i32,
    /// Smallest value allowed.
    pub min: i32,
    /// Largest value allowed.
    pub max: i32,
    /// SPSA's perturbation at the end of a tune.
    pub c_end: f64,
    /// SPSA's learning rate at the end of a tune.
    pub r_end: f64,
}

impl Param {
    /// The SPSA input line: `name, int, value, min, max, c_end, r_end`.
    pub fn spsa_line(&self, value: i32) -> String {
        format!(
            "{}, int, {value}, {}, {}, {}, {}",
            self.name, self.min, self.max, self.c_end, self.r_end
        )
    }
}

/// The learning rate at the end of a tune, the same for every constant (OpenBench's usual).
const R_END: f64 = 0.002;

macro_rules! params {
    ($( $(#[doc = $doc:literal])* $name:ident = $value:literal, $min:literal ..= $max:literal, c_end $c:literal; )*) => {
        /// Every tunable constant, in the order of this file.
        pub const PARAMS: &[Param] = &[$(Param {
            name: stringify!($name),
            default: $value,
            min: $min,
            max: $max,
            c_end: $c,
            r_end: R_END,
        }),*];

        #[cfg(feature = "tune")]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[repr(usize)]
        enum Index { $($name),* }

        #[cfg(feature = "tune")]
        static VALUES: [std::sync::atomic::AtomicI32; PARAMS.len()] =
            [$(std::sync::atomic::AtomicI32::new($value)),*];

        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub const fn $name() -> i32 {
                $value
            }

            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            #[inline(always)]
            pub fn $name() -> i32 {
                VALUES[Index::$name as usize].load(std::sync::atomic::Ordering::Relaxed)
            }
        )*
    };
}

params! {
    /// Reverse futility pruning applies at depths up to this …
    rfp_max_depth = 6, 3..=10, c_end 0.5;
    /// … with this margin per ply of depth, centipawns.
    rfp_margin = 90, 30..=200, c_end 8.0;

    /// Null-move pruning applies from this depth on …
    nmp_min_depth = 3, 1..=6, c_end 0.5;
    /// … reducing by `nmp_base + depth / nmp_depth_divisor` plies.
    nmp_base = 3, 1..=6, c_end 0.5;
    /// See [`nmp_base`].
    nmp_depth_divisor = 4, 2..=8, c_end 0.5;

    /// Futility pruning of quiet moves applies at depths up to this …
    futility_max_depth = 8, 2..=12, c_end 0.5;
    /// … when the static evaluation plus `futility_base + futility_margin · depth`
    /// centipawns is at most alpha.
    futility_base = 90, 0..=250, c_end 10.0;
    /// See [`futility_base`].
    futility_margin = 60, 20..=160, c_end 6.0;

    /// SEE pruning (after the first move, out of check) applies at depths up to this …
    see_prune_max_depth = 8, 2..=12, c_end 0.5;
    /// … to a quiet move losing more than this many centipawns per ply of depth …
    see_quiet_margin = 64, 16..=160, c_end 6.0;
    /// … and to a capture losing more than this times the depth squared.
    see_noisy_margin = 20, 4..=60, c_end 2.0;

    /// Continuation-history pruning at a non-PV node applies at depths up to this (not
    /// improving) …
    cmp_max_depth = 3, 1..=6, c_end 0.5;
    /// … or this (improving): a quiet move whose continuation history after the previous
    /// move is below [`cmp_limit`] (after the move two plies before: [`fmp_limit`]) is
    /// skipped.
    cmp_max_depth_improving = 2, 1..=6, c_end 0.5;
    /// See [`cmp_max_depth`].
    cmp_limit = 0, -4000..=2000, c_end 250.0;
    /// See [`cmp_max_depth`].
    cmp_limit_improving = -1000, -5000..=1000, c_end 250.0;
    /// See [`cmp_max_depth`].
    fmp_limit = -2000, -8000..=0, c_end 300.0;
    /// See [`cmp_max_depth`].
    fmp_limit_improving = -4000, -10000..=0, c_end 300.0;

    /// ProbCut applies at non-PV nodes from this depth on …
    probcut_min_depth = 5, 3..=8, c_end 0.5;
    /// … to captures that reach beta plus this margin, verified [`probcut_reduction`]
    /// plies shallower.
    probcut_margin = 100, 40..=250, c_end 10.0;
    /// See [`probcut_margin`].
    probcut_reduction = 4, 2..=6, c_end 0.5;

    /// Late-move pruning at a non-PV node applies at depths up to this: after
    /// `lmp_base + depth²` quiet moves (half as many when the position is not improving)
    /// the remaining quiet moves are skipped.
    lmp_max_depth = 6, 3..=10, c_end 0.5;
    /// See [`lmp_max_depth`].
    lmp_base = 3, 0..=8, c_end 0.5;

    /// Singular extensions: from this depth on, the table's move …
    se_min_depth = 8, 4..=12, c_end 0.5;
    /// … whose entry is at most this many plies shallower than the node …
    se_tt_depth_margin = 3, 1..=6, c_end 0.5;
    /// … is singular when every other move fails low against the table's score less this
    /// many centipawns per ply of depth.
    se_margin = 2, 1..=8, c_end 0.5;

    /// Internal iterative reduction: a node this deep without a move from the table is
    /// searched one ply shallower (its ordering is poor; a later visit finds the move there).
    iir_min_depth = 4, 2..=8, c_end 0.5;

    /// Late-move reductions apply from this depth …
    lmr_min_depth = 3, 2..=5, c_end 0.5;
    /// … to moves after this many searched ones.
    lmr_min_searched = 3, 1..=6, c_end 0.5;
    /// LMR table: `lmr_base + ln(depth) · ln(move number) / lmr_divisor` plies, both in
    /// hundredths.
    lmr_base = 75, 0..=200, c_end 8.0;
    /// See [`lmr_base`].
    lmr_divisor = 225, 100..=400, c_end 15.0;
    /// A quiet move is reduced a ply less (more) per this much history and continuation
    /// history above (below) zero, at most two plies either way.
    lmr_history_divisor = 8192, 2048..=32768, c_end 800.0;
    /// A quiet move at an expected cut node (a null-window node whose parent's search
    /// expects it to fail high) is reduced this many plies more.
    cut_node_reduction = 2, 0..=3, c_end 0.5;

    /// Delta pruning in the quiescence search: a capture that cannot raise the score to
    /// alpha even with this margin on top of the captured piece is skipped.
    delta_margin = 200, 50..=500, c_end 20.0;

    /// Aspiration windows start at this depth …
    aspiration_min_depth = 4, 1..=8, c_end 0.5;
    /// … with this half-width, doubled after every fail …
    aspiration_delta = 20, 5..=60, c_end 3.0;
    /// … until it passes this, when the window opens fully.
    aspiration_max_delta = 1000, 200..=3000, c_end 100.0;
}

/// Why `set` refused a value (a tuning build).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    /// No tunable constant has this name.
    #[error("no tunable constant {0:?}")]
    Unknown(String),
    /// The value is outside the constant's range.
    #[error("{name}: {value} is outside {min}..={max}")]
    OutOfRange {
        /// The constant.
        name: &'static str,
        /// The value given.
        value: i64,
        /// Smallest allowed.
        min: i32,
        /// Largest allowed.
        max: i32,
    },
}

/// The constant named `name` (case ignored, as UCI option names are).
pub fn find(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Sets constant `name` to `value` for every search that starts after this (a `tune`
/// build; the search's threads read it at their next node).
#[cfg(feature = "tune")]
pub fn set(name: &str, value: i64) -> Result<(), SetError> {
    let (i, p) = PARAMS
        .iter()
        .enumerate()
        .find(|(_, p)| p.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| SetError::Unknown(name.to_owned()))?;
    if value < i64::from(p.min) || value > i64::from(p.max) {
        return Err(SetError::OutOfRange {
            name: p.name,
            value,
            min: p.min,
            max: p.max,
        });
    }
    VALUES[i].store(value as i32, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// The current value of every constant, in [`PARAMS`]' order.
pub fn values() -> Vec<i32> {
    #[cfg(feature = "tune")]
    {
        VALUES
            .iter()
            .map(|v| v.load(std::sync::atomic::Ordering::Relaxed))
            .collect()
    }
    #[cfg(not(feature = "tune"))]
    {
        PARAMS.iter().map(|p| p.default).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_in_range_names_unique() {
        let mut names = std::collections::HashSet::new();
        for p in PARAMS {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(p.c_end > 0.0 && p.c_end < f64::from(p.max - p.min), "{p:?}");
            assert!(names.insert(p.name), "{p:?}");
        }
        assert_eq!(
            values(),
            PARAMS.iter().map(|p| p.default).collect::<Vec<_>>()
        );
        assert_eq!(find("RFP_MARGIN").map(|p| p.default), Some(rfp_margin()));
        assert_eq!(
            find("lmr_base").unwrap().spsa_line(80),
            "lmr_base, int, 80, 0, 200, 8, 0.002"
        );
    }

    #[cfg(feature = "tune")]
    #[test]
    fn set_checks_name_and_range() {
        assert!(matches!(set("nope", 1), Err(SetError::Unknown(_))));
        assert!(matches!(
            set("rfp_margin", 10_000),
            Err(SetError::OutOfRange { .. })
        ));
        // Other tests in this binary read the defaults: only the default is set here.
        set("Delta_Margin", 200).unwrap();
        assert_eq!(delta_margin(), 200);
    }
}
