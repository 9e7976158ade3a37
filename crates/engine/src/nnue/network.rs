//! The quantized network, its integer forward pass, and its file format.
//!
//! # File format, version 2 (all integers little-endian)
//!
//! | bytes | content |
//! | --- | --- |
//! | 8 | magic `CGNNUE\r\n` |
//! | 4 | format version, `2` |
//! | 4 × 6 | inputs I (768: pieces; 2,304: pieces and threats), hidden size H, output buckets B, QA (255), QB (64, 128 or 256), SCALE (400) |
//! | 4 + n | length n and n bytes of UTF-8 JSON provenance (database, positions, labels, epochs, losses, τ, date) |
//! | 2 × I·H | first-layer weights, `i16`, feature-major (the H weights of feature 0, then feature 1, …) |
//! | 2 × H | first-layer biases, `i16` |
//! | 2 × B·2H | output weights, `i16`, per bucket: H for the side to move, then H for the other side |
//! | 4 × B | output biases, `i32` (scale QA·QB), per bucket |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! Version 1 is the same without B in the header (one bucket); it is still read.
//!
//! The first layer is scaled by QA (1.0 ↦ 255) and the output weights by the file's QB
//! (1.0 ↦ 128 for the networks `train` writes now, 64 for earlier ones).
//! With SCReLU `h = clamp(a, 0, QA)²` the output is
//! `(Σ h·w / QA + b) · SCALE / (QA·QB)` centipawns for the side to move, with the output
//! weights and bias of the position's bucket ([`output_bucket`]: by the number of pieces
//! on the board, as engines choose the output layer by game phase).

use std::fmt;
use std::path::Path;

use shakmaty::{Color, Position};

use super::accumulator::Accumulator;
use super::features::{self, FeatureSet};
use super::simd::{add_assign, screlu_dot};
use super::{QA, QB_CHOICES, SCALE};
use chessgraph_core::chess::fnv::fnv1a64;

const MAGIC: &[u8; 8] = b"CGNNUE\r\n";
/// The file format version this chessgraph writes (it also reads version 1).
pub const VERSION: u32 = 2;
/// Largest hidden size a file may declare (a sanity bound against corrupt headers).
pub const MAX_HIDDEN: usize = 4096;
/// Largest number of output buckets (one per piece count from 2 to 32 at most).
pub const MAX_BUCKETS: usize = 31;

/// The output bucket of a position with `pieces` pieces on the board (kings included)
/// for a network with `buckets` buckets: the 2–32 piece counts in `buckets` equal
/// ranges, so with 8 buckets 2–5 pieces use bucket 0 and 30–32 bucket 7.
#[inline]
pub fn output_bucket(pieces: u32, buckets: usize) -> usize {
    let p = pieces.clamp(2, 32) as usize - 2;
    (p * buckets / 31).min(buckets - 1)
}

/// Why a network file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// Reading the file failed.
    #[error("cannot read network file {path}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a network of this format, or is damaged.
    #[error("network file {path}: {reason}")]
    Format {
        /// The file (or `<built-in>`).
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// A quantized perspective network, ready for integer inference.
#[derive(Clone, PartialEq)]
pub struct Network {
    features: FeatureSet,
    hidden: usize,
    /// `inputs × hidden`, feature-major.
    pub(crate) ft_weights: Vec<i16>,
    ft_bias: Vec<i16>,
    /// `buckets × 2 × hidden`: per bucket, side to move first.
    out_weights: Vec<i16>,
    /// One per output bucket.
    out_bias: Vec<i32>,
    /// The output weights' scale: 1.0 ↦ `qb` (one of [`QB_CHOICES`]).
    qb: i32,
    provenance: serde_json::Value,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network")
            .field("features", &self.features)
            .field("hidden", &self.hidden)
            .field("buckets", &self.buckets())
            .field("provenance", &self.provenance)
            .finish_non_exhaustive()
    }
}

impl Network {
    /// The feature transformer's weights, `inputs × hidden`, feature-major (scale `QA`).
    pub fn ft_weights(&self) -> &[i16] {
        &self.ft_weights
    }

    /// The output weights, `buckets × 2 × hidden`: per bucket, side to move first (scale
    /// [`Network::qb`]).
    pub fn out_weights(&self) -> &[i16] {
        &self.out_weights
    }

    /// The output biases, one per output bucket (scale `QA × qb`).
    pub fn out_bias(&self) -> &[i32] {
        &self.out_bias
    }

    /// A network of `set` with `hidden` units, `buckets` output buckets and pseudo-random
    /// weights from `seed` (deterministic): for tests and benchmarks of the code around a
    /// network, in this crate and the trainer's.
    pub fn random(set: FeatureSet, hidden: usize, buckets: usize, seed: u64) -> Network {
        let mut s = seed;
        let mut next = |range: i32| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as i32).rem_euclid(2 * range + 1) - range
        };
        let ft_weights = (0..set.inputs() * hidden)
            .map(|_| next(60) as i16)
            .collect();
        let ft_bias = (0..hidden).map(|_| next(100) as i16).collect();
        let out_weights = (0..buckets * 2 * hidden)
            .map(|_| next(127) as i16)
            .collect();
        let out_bias = (0..buckets).map(|_| next(5000)).collect();
        Network::from_parts(
            set,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            crate::nnue::QB,
            serde_json::json!({"test": true}),
        )
        .expect("random weights are within the network's ranges")
    }

    /// A network from quantized parts (the number of output buckets is the number of
    /// output biases), its output weights at scale `qb`; `None` when the sizes do not fit
    /// together or `qb` is not one of [`QB_CHOICES`].
    pub fn from_parts(
        features: FeatureSet,
        ft_weights: Vec<i16>,
        ft_bias: Vec<i16>,
        out_weights: Vec<i16>,
        out_bias: Vec<i32>,
        qb: i32,
        provenance: serde_json::Value,
    ) -> Option<Network> {
        let hidden = ft_bias.len();
        let buckets = out_bias.len();
        (hidden > 0
            && (1..=MAX_BUCKETS).contains(&buckets)
            && QB_CHOICES.contains(&qb)
            && ft_weights.len() == features.inputs() * hidden
            && out_weights.len() == buckets * 2 * hidden
            && out_weights.iter().all(|&w| w.unsigned_abs() <= 127))
        .then_some(Network {
            features,
            hidden,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            qb,
            provenance,
        })
    }

    /// The output weights' scale (1.0 ↦ `qb`).
    pub fn qb(&self) -> i32 {
        self.qb
    }

    /// The inputs it reads.
    pub fn features(&self) -> FeatureSet {
        self.features
    }

    /// Hidden size H.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Number of output buckets B (1: a single output layer).
    pub fn buckets(&self) -> usize {
        self.out_bias.len()
    }

    /// The JSON provenance stored with the weights.
    pub fn provenance(&self) -> &serde_json::Value {
        &self.provenance
    }

    /// Replaces the provenance.
    pub fn set_provenance(&mut self, provenance: serde_json::Value) {
        self.provenance = provenance;
    }

    /// The H first-layer weights of `feature`.
    #[inline]
    pub fn feature_weights(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// The first layer's biases (the accumulator of an empty board).
    pub fn ft_bias(&self) -> &[i16] {
        &self.ft_bias
    }

    /// Computes the accumulator of `pos` from scratch (both perspectives, every input).
    pub fn refresh(&self, pos: &impl Position, acc: &mut Accumulator) {
        acc.white.copy_from_slice(&self.ft_bias);
        acc.black.copy_from_slice(&self.ft_bias);
        for f in features::active(pos, self.features) {
            add_assign(&mut acc.white, self.feature_weights(f));
            add_assign(&mut acc.black, self.feature_weights(features::mirror(f)));
        }
    }

    /// The output for an accumulator of a position with `pieces` pieces on the board, in
    /// centipawns from `turn`'s point of view.
    #[inline]
    pub fn output(&self, acc: &Accumulator, turn: Color, pieces: u32) -> i32 {
        let (us, them) = match turn {
            Color::White => (&acc.white, &acc.black),
            Color::Black => (&acc.black, &acc.white),
        };
        let b = output_bucket(pieces, self.buckets());
        let (w_us, w_them) = self.output_weights(b);
        self.scale_output(screlu_dot(us, w_us) + screlu_dot(them, w_them), b)
    }

    /// The output weights of `bucket`: side to move's half, then the other's.
    #[inline]
    fn output_weights(&self, bucket: usize) -> (&[i16], &[i16]) {
        let h = self.hidden;
        self.out_weights[2 * h * bucket..2 * h * (bucket + 1)].split_at(h)
    }

    /// Centipawns from the output layer's dot products `sum` in `bucket`.
    #[inline]
    fn scale_output(&self, sum: i64, bucket: usize) -> i32 {
        let raw = sum / i64::from(QA) + i64::from(self.out_bias[bucket]);
        (raw * i64::from(SCALE) / i64::from(QA * self.qb)) as i32
    }

    /// The output for a position given by its active features from White's perspective
    /// and its number of pieces (the trainer's samples), centipawns from `turn`'s point of
    /// view.
    pub fn evaluate_features(&self, white: &[u16], turn: Color, pieces: u32) -> i32 {
        let mut acc = Accumulator::new(self.hidden);
        acc.white.copy_from_slice(&self.ft_bias);
        acc.black.copy_from_slice(&self.ft_bias);
        for &f in white {
            add_assign(&mut acc.white, self.feature_weights(f as usize));
            add_assign(
                &mut acc.black,
                self.feature_weights(features::mirror(f as usize)),
            );
        }
        self.output(&acc, turn, pieces)
    }

    /// Static evaluation of `pos`, centipawns from the side to move's point of view
    /// (a full refresh; the engine updates its accumulators incrementally instead).
    pub fn evaluate(&self, pos: &impl Position) -> i32 {
        let mut acc = Accumulator::new(self.hidden);
        self.refresh(pos, &mut acc);
        self.output(&acc, pos.turn(), pos.board().occupied().count() as u32)
    }

    /// Reads a network file.
    pub fn load(path: &Path) -> Result<Network, NetworkError> {
        let bytes = std::fs::read(path).map_err(|source| NetworkError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Network::from_bytes(&bytes, &path.display().to_string())
    }

    /// Whether `bytes` start like a network file (for telling it from a JSON evaluator).
    pub fn is_network_file(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
    }

    /// Parses a network file's bytes; `name` is used in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Network, NetworkError> {
        let err = |reason: String| NetworkError::Format {
            path: name.to_owned(),
            reason,
        };
        if !bytes.starts_with(MAGIC) {
            return Err(err("not a chessgraph network (bad magic bytes)".into()));
        }
        let mut r = Reader {
            bytes,
            at: MAGIC.len(),
        };
        let truncated = |r: &Reader| {
            err(format!(
                "truncated at byte {} of {} (the file is incomplete)",
                r.at,
                bytes.len()
            ))
        };
        let version = r.u32().ok_or_else(|| truncated(&r))?;
        if !(1..=VERSION).contains(&version) {
            return Err(err(format!(
                "format version {version}, this chessgraph reads versions 1 to {VERSION}"
            )));
        }
        let mut header = [0u32; 6];
        for h in header.iter_mut().skip(usize::from(version == 1)) {
            *h = r.u32().ok_or_else(|| truncated(&r))?;
        }
        if version == 1 {
            // inputs, hidden, (no buckets), QA, QB, SCALE
            header.copy_within(1..3, 0);
            header[2] = 1;
        }
        let [inputs, hidden, buckets, qa, qb, scale] = header;
        let set = FeatureSet::from_inputs(inputs as usize);
        let Some(set) = set.filter(|_| {
            (qa as i32, scale as i32) == (QA, SCALE) && QB_CHOICES.contains(&(qb as i32))
        }) else {
            return Err(err(format!(
                "layout inputs={inputs} QA={qa} QB={qb} SCALE={scale}, this chessgraph \
                 reads inputs={} or {} with QA={QA} QB={QB_CHOICES:?} SCALE={SCALE}",
                FeatureSet::Pieces.inputs(),
                FeatureSet::Threats.inputs()
            )));
        };
        let inputs = set.inputs();
        let hidden = hidden as usize;
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(err(format!(
                "hidden size {hidden} is outside 1..={MAX_HIDDEN}"
            )));
        }
        let buckets = buckets as usize;
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(err(format!(
                "{buckets} output buckets is outside 1..={MAX_BUCKETS}"
            )));
        }
        let json_len = r.u32().ok_or_else(|| truncated(&r))? as usize;
        let json = r.take(json_len).ok_or_else(|| truncated(&r))?;
        let provenance: serde_json::Value = serde_json::from_slice(json)
            .map_err(|e| err(format!("provenance is not valid JSON: {e}")))?;
        let expected =
            r.at + 2 * (inputs * hidden + hidden + buckets * 2 * hidden) + 4 * buckets + 8;
        if bytes.len() != expected {
            return Err(err(format!(
                "{} bytes, but a network with hidden size {hidden} and {buckets} output \
                 bucket(s) has {expected}{}",
                bytes.len(),
                if bytes.len() < expected {
                    " (the file is incomplete)"
                } else {
                    ""
                }
            )));
        }
        let ft_weights = r.i16s(inputs * hidden).ok_or_else(|| truncated(&r))?;
        let ft_bias = r.i16s(hidden).ok_or_else(|| truncated(&r))?;
        let out_weights = r.i16s(buckets * 2 * hidden).ok_or_else(|| truncated(&r))?;
        let out_bias = (0..buckets)
            .map(|_| r.u32().map(|b| b as i32))
            .collect::<Option<Vec<i32>>>()
            .ok_or_else(|| truncated(&r))?;
        let body = r.at;
        let checksum = r.u64().ok_or_else(|| truncated(&r))?;
        if checksum != fnv1a64(&bytes[..body]) {
            return Err(err("checksum mismatch (the file is damaged)".into()));
        }
        Network::from_parts(
            set,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            qb as i32,
            provenance,
        )
        .ok_or_else(|| err("an output weight is outside ±127".into()))
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let json = serde_json::to_vec(&self.provenance).expect("a JSON value serializes");
        let mut out = Vec::with_capacity(64 + json.len() + 2 * self.ft_weights.len());
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION,
            self.features.inputs() as u32,
            self.hidden as u32,
            self.buckets() as u32,
            QA as u32,
            self.qb as u32,
            SCALE as u32,
            json.len() as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&json);
        for w in self
            .ft_weights
            .iter()
            .chain(&self.ft_bias)
            .chain(&self.out_weights)
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.out_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let checksum = fnv1a64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Writes the network file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i16s(&mut self, n: usize) -> Option<Vec<i16>> {
        let s = self.take(n.checked_mul(2)?)?;
        Some(
            s.chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect(),
        )
    }
}

#[cfg(test)]
pub(crate) mod tests;
