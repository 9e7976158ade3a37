//! The model file: safetensors, with chessgraph's header in its metadata.
//!
//! The safetensors metadata holds one key, `chessgraph`, whose value is a JSON object:
//!
//! ```json
//! {"format": "chessgraph-net", "version": 1, "arch": "cnn-eval",
//!  "encoding": "alphazero-20", "channels": 32, "blocks": 4,
//!  "k": 0.00576, "provenance": {...}}
//! ```
//!
//! `k` is the label scale: a value v ∈ [−1, 1] is the expected score (v + 1) / 2 =
//! σ(k · cp), the same centipawn → probability map as the Texel tuner's. `provenance`
//! says what the net was trained on and how it measured (free-form, kept as written).
//! Tensors are `f32`, named as [`super::arch::Model::new`] says. One metadata key keeps
//! the file's bytes a function of its contents: saving a loaded model writes the same
//! bytes.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use super::NetError;
use super::arch::{Arch, Shape};

/// The `format` every chessgraph model file declares.
pub const FORMAT: &str = "chessgraph-net";

/// The header version this build writes and reads.
pub const VERSION: u64 = 1;

/// A model file's header.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The architecture.
    pub arch: Arch,
    /// Its size.
    pub shape: Shape,
    /// The label scale k of σ(k · cp).
    pub k: f64,
    /// What it was trained on and how it measured.
    pub provenance: Value,
}

impl Header {
    /// The header as the metadata JSON text.
    pub fn to_json(&self) -> String {
        json!({
            "format": FORMAT,
            "version": VERSION,
            "arch": self.arch.as_str(),
            "encoding": self.arch.encoding().as_str(),
            "channels": self.shape.channels,
            "blocks": self.shape.blocks,
            "k": self.k,
            "provenance": self.provenance,
        })
        .to_string()
    }

    /// Reads the header of a model file's bytes (`path` names it in errors).
    pub fn read(bytes: &[u8], path: &Path) -> Result<Header, NetError> {
        let bad = |reason: String| NetError::Format {
            path: path.to_owned(),
            reason,
        };
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes)
            .map_err(|e| bad(format!("not a safetensors file, or a truncated one ({e})")))?;
        let Some(text) = meta.metadata().as_ref().and_then(|m| m.get("chessgraph")) else {
            return Err(NetError::NotOurs {
                path: path.to_owned(),
            });
        };
        let v: Value = serde_json::from_str(text)
            .map_err(|e| bad(format!("the chessgraph header is not JSON: {e}")))?;
        if v["format"] != FORMAT {
            return Err(NetError::NotOurs {
                path: path.to_owned(),
            });
        }
        let version = v["version"].as_u64().unwrap_or(0);
        if version != VERSION {
            return Err(bad(format!(
                "header version {version}; this build reads version {VERSION}"
            )));
        }
        let name = v["arch"].as_str().unwrap_or_default();
        let arch = Arch::parse(name).ok_or_else(|| {
            bad(format!(
                "unknown architecture {name:?} (known: {})",
                Arch::ALL.map(Arch::as_str).join(", ")
            ))
        })?;
        if v["encoding"] != arch.encoding().as_str() {
            return Err(bad(format!(
                "{} reads {} planes, the header says {}",
                arch.as_str(),
                arch.encoding().as_str(),
                v["encoding"]
            )));
        }
        let size = |key: &str| -> Result<usize, NetError> {
            v[key]
                .as_u64()
                .filter(|&n| (1..=1024).contains(&n))
                .map(|n| n as usize)
                .ok_or_else(|| bad(format!("{key} must be a whole number 1..=1024")))
        };
        let shape = Shape {
            channels: size("channels")?,
            blocks: size("blocks")?,
        };
        let k = v["k"]
            .as_f64()
            .filter(|k| k.is_finite() && *k > 0.0)
            .ok_or_else(|| bad("k must be a positive number".into()))?;
        Ok(Header {
            arch,
            shape,
            k,
            provenance: v["provenance"].clone(),
        })
    }
}

/// The file's bytes: `tensors` (name, tensor) under `header`.
pub fn to_bytes(
    header: &Header,
    tensors: &[(String, candle_core::Tensor)],
) -> Result<Vec<u8>, NetError> {
    let meta = HashMap::from([("chessgraph".to_owned(), header.to_json())]);
    let mut sorted: Vec<_> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    safetensors::serialize(sorted, Some(meta)).map_err(|e| NetError::Encode(e.to_string()))
}
