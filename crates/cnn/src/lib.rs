//! The studies' neural networks: convolutional evaluators, a ResNet move policy and a
//! policy/value net, run with candle on the CPU.
//!
//! - [`encode`]: a position as input planes (the players study's 14, the neural-network
//!   study's 20).
//! - [`moves`]: AlphaZero's 4,672-way move encoding of the policy output.
//! - [`arch`]: the four architectures (`cnn-study`, `cnn-eval`, `resnet-policy`,
//!   `policy-value`).
//! - [`mod@file`]: the model file (safetensors with a versioned header).
//!
//! A [`Net`] is a loaded model: it evaluates positions (centipawns, through the label
//! scale of its header) and gives move priors. The trainer is a later stage (the learning
//! crate's `train::cnn`); inference needs none of it. candle is used rather than hand-written kernels: these
//! nets are dense convolutions, which a tensor library does well, unlike the NNUE's
//! sparse, incrementally updated first layer.

#![warn(missing_docs)]

pub mod arch;
pub mod encode;
pub mod file;
pub mod moves;

/// The modules in order: each may use only those before it in this list (a test of the
/// workspace checks it).
pub const LAYERS: &[&str] = &["encode", "moves", "arch", "file"];

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use shakmaty::{Chess, Color, Move, Position};

pub use arch::{Arch, Model, Outputs, Shape};
pub use encode::Encoding;
pub use file::Header;
pub use moves::{POLICY_LEN, policy_index};

/// What can go wrong reading, writing or running a network.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file is damaged or from an incompatible build.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A safetensors file without chessgraph's header.
    #[error(
        "{path}: not a chessgraph network (a safetensors file without the chessgraph \
         header; `chessgraph train --arch` writes them)"
    )]
    NotOurs {
        /// The file.
        path: PathBuf,
    },
    /// A weight is missing or has the wrong shape for the header's architecture.
    #[error("{path}: the weights do not fit the header's {arch} ({source})")]
    Weights {
        /// The file.
        path: PathBuf,
        /// The header's architecture.
        arch: &'static str,
        /// candle's error.
        source: Box<candle_core::Error>,
    },
    /// The model has no such head.
    #[error("{arch} has no {head} head")]
    NoHead {
        /// The architecture.
        arch: &'static str,
        /// `value` or `policy`.
        head: &'static str,
    },
    /// A tensor operation failed.
    #[error("tensor computation: {0}")]
    Candle(Box<candle_core::Error>),
    /// The model could not be serialized.
    #[error("cannot write the model: {0}")]
    Encode(String),
}

impl From<candle_core::Error> for NetError {
    fn from(e: candle_core::Error) -> Self {
        NetError::Candle(Box::new(e))
    }
}

/// A loaded network.
pub struct Net {
    header: Header,
    model: Model,
    tensors: Vec<(String, Tensor)>,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Net").field("header", &self.header).finish()
    }
}

impl PartialEq for Net {
    fn eq(&self, other: &Net) -> bool {
        self.header == other.header
            && self.tensors.len() == other.tensors.len()
            && self.tensors.iter().zip(&other.tensors).all(|(a, b)| {
                a.0 == b.0 && a.1.dims() == b.1.dims() && flat(&a.1).ok() == flat(&b.1).ok()
            })
    }
}

fn flat(t: &Tensor) -> candle_core::Result<Vec<f32>> {
    t.flatten_all()?.to_vec1()
}

/// The planes of `positions` as one `(N, planes, 8, 8)` tensor.
pub fn encode_batch<'a>(
    encoding: Encoding,
    positions: impl ExactSizeIterator<Item = &'a Chess>,
) -> candle_core::Result<Tensor> {
    let n = positions.len();
    let mut data = vec![0f32; n * encoding.inputs()];
    for (pos, out) in positions.zip(data.chunks_exact_mut(encoding.inputs())) {
        encoding.write(pos, out);
    }
    Tensor::from_vec(data, (n, encoding.planes(), 8, 8), &Device::Cpu)
}

impl Net {
    /// A network from its header and named tensors (`path` names it in errors).
    pub fn new(
        header: Header,
        tensors: Vec<(String, Tensor)>,
        path: &Path,
    ) -> Result<Net, NetError> {
        let map: HashMap<String, Tensor> = tensors.iter().cloned().collect();
        let vb = VarBuilder::from_tensors(map, DType::F32, &Device::Cpu);
        let model =
            Model::new(header.arch, header.shape, vb).map_err(|source| NetError::Weights {
                path: path.to_owned(),
                arch: header.arch.as_str(),
                source: Box::new(source),
            })?;
        let mut tensors = tensors;
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Net {
            header,
            model,
            tensors,
        })
    }

    /// Whether `bytes` look like a safetensors file (a model file of some kind).
    pub fn is_net_file(bytes: &[u8]) -> bool {
        safetensors::SafeTensors::read_metadata(bytes).is_ok()
    }

    /// Reads a model file.
    pub fn load(path: &Path) -> Result<Net, NetError> {
        let bytes = std::fs::read(path).map_err(|source| NetError::Io {
            path: path.to_owned(),
            source,
        })?;
        Net::from_bytes(&bytes, path)
    }

    /// A model from a file's bytes (`path` names it in errors).
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Net, NetError> {
        let header = Header::read(bytes, path)?;
        let loaded = candle_core::safetensors::load_buffer(bytes, &Device::Cpu).map_err(|e| {
            NetError::Format {
                path: path.to_owned(),
                reason: format!("damaged tensors: {e}"),
            }
        })?;
        let mut tensors = Vec::with_capacity(loaded.len());
        for (name, t) in loaded {
            if t.dtype() != DType::F32 {
                return Err(NetError::Format {
                    path: path.to_owned(),
                    reason: format!("tensor {name} is {:?}, not f32", t.dtype()),
                });
            }
            tensors.push((name, t));
        }
        let net = Net::new(header, tensors, path)?;
        let expected = net.expected_tensors()?;
        if expected != net.tensors.len() {
            return Err(NetError::Format {
                path: path.to_owned(),
                reason: format!(
                    "{} tensors where {} at this size has {expected}",
                    net.tensors.len(),
                    net.header.arch.as_str()
                ),
            });
        }
        Ok(net)
    }

    /// How many tensors the header's architecture has.
    fn expected_tensors(&self) -> Result<usize, NetError> {
        let vm = candle_nn::VarMap::new();
        let vb = VarBuilder::from_varmap(&vm, DType::F32, &Device::Cpu);
        Model::new(self.header.arch, self.header.shape, vb)?;
        Ok(vm.all_vars().len())
    }

    /// The model file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, NetError> {
        file::to_bytes(&self.header, &self.tensors)
    }

    /// Writes the model file.
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        let bytes = self.to_bytes()?;
        std::fs::write(path, bytes).map_err(|source| NetError::Io {
            path: path.to_owned(),
            source,
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Replaces the provenance (written with the file).
    pub fn set_provenance(&mut self, provenance: serde_json::Value) {
        self.header.provenance = provenance;
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.header.arch
    }

    /// The layers.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The named tensors, sorted by name.
    pub fn tensors(&self) -> &[(String, Tensor)] {
        &self.tensors
    }

    /// The forward pass of a batch of positions.
    pub fn forward<'a>(
        &self,
        positions: impl ExactSizeIterator<Item = &'a Chess>,
    ) -> Result<Outputs, NetError> {
        let x = encode_batch(self.header.arch.encoding(), positions)?;
        Ok(self.model.forward(&x)?)
    }

    /// Values in [−1, 1] from White's view of a batch of positions.
    pub fn values<'a>(
        &self,
        positions: impl ExactSizeIterator<Item = &'a Chess>,
    ) -> Result<Vec<f32>, NetError> {
        let out = self.forward(positions)?;
        let value = out.value.ok_or(NetError::NoHead {
            arch: self.header.arch.as_str(),
            head: "value",
        })?;
        Ok(value.to_vec1()?)
    }

    /// A value in [−1, 1] (White's view) in centipawns through the label scale:
    /// σ(k · cp) = (v + 1) / 2.
    pub fn centipawns(&self, v: f32) -> i32 {
        let p = f64::from((v + 1.0) / 2.0).clamp(1e-9, 1.0 - 1e-9);
        let cp = (p / (1.0 - p)).ln() / self.header.k;
        cp.round() as i32
    }

    /// The evaluation of `pos` in centipawns from White's view.
    ///
    /// # Panics
    ///
    /// If the net has no value head (check [`Arch::has_value`] first), or candle fails on
    /// a model whose shapes were checked when it was loaded.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        let v = self
            .values(std::iter::once(pos))
            .expect("a loaded value net evaluates any position");
        self.centipawns(v[0])
    }

    /// Move probabilities over `moves` (legal in `pos`; softmax of their logits, summing
    /// to 1) and, for a net with a value head, the value for the side to move.
    pub fn priors(&self, pos: &Chess, moves: &[Move]) -> Result<(Vec<f32>, Option<f32>), NetError> {
        let out = self.forward(std::iter::once(pos))?;
        let logits: Vec<f32> = out
            .policy
            .ok_or(NetError::NoHead {
                arch: self.header.arch.as_str(),
                head: "policy",
            })?
            .squeeze(0)?
            .to_vec1()?;
        let chosen: Vec<f32> = moves.iter().map(|m| logits[policy_index(m)]).collect();
        let value = match out.value {
            Some(v) => {
                let white = v.to_vec1::<f32>()?[0];
                Some(if pos.turn() == Color::White {
                    white
                } else {
                    -white
                })
            }
            None => None,
        };
        Ok((softmax(&chosen), value))
    }
}

/// Variables of a fresh `arch` at `shape`, seeded: every weight uniform in ±√(3 / fan-in)
/// (variance 1 / fan-in), every bias zero; with the model that computes with them.
pub fn seeded_vars(
    arch: Arch,
    shape: Shape,
    seed: u64,
) -> Result<(candle_nn::VarMap, Model), NetError> {
    let vm = candle_nn::VarMap::new();
    let vb = VarBuilder::from_varmap(&vm, DType::F32, &Device::Cpu);
    let model = Model::new(arch, shape, vb)?;
    let mut rng = chessgraph_core::chess::rng::SplitMix(chessgraph_core::chess::rng::mix64(seed));
    let data = vm.data().lock().expect("the var map is not poisoned");
    let mut names: Vec<&String> = data.keys().collect();
    names.sort();
    for name in names {
        let var = &data[name];
        let dims = var.dims().to_vec();
        let n: usize = dims.iter().product();
        let values: Vec<f32> = if name.ends_with("bias") {
            vec![0.0; n]
        } else {
            let fan_in: usize = dims[1..].iter().product();
            let bound = (3.0 / fan_in as f32).sqrt();
            (0..n).map(|_| rng.uniform() * bound).collect()
        };
        var.set(&Tensor::from_vec(values, dims, &Device::Cpu)?)?;
    }
    drop(data);
    Ok((vm, model))
}

/// A small seeded (untrained) network, `arch` at `shape` with label scale 0.005: for the
/// tests of this crate and of those that run networks.
pub fn test_net(arch: Arch, shape: Shape, seed: u64) -> Net {
    let (vars, _) = seeded_vars(arch, shape, seed).unwrap();
    let header = Header {
        arch,
        shape,
        k: 0.005,
        provenance: serde_json::json!({"test": true}),
    };
    Net::from_vars(header, &vars).unwrap()
}

impl Net {
    /// A snapshot of trained variables as a network (the tensors are copied, so training
    /// on does not change it).
    pub fn from_vars(header: Header, vars: &candle_nn::VarMap) -> Result<Net, NetError> {
        let data = vars.data().lock().expect("the var map is not poisoned");
        let mut tensors = Vec::with_capacity(data.len());
        for (name, var) in data.iter() {
            tensors.push((name.clone(), var.as_tensor().copy()?));
        }
        drop(data);
        Net::new(header, tensors, Path::new("(trained)"))
    }
}

/// The softmax of `logits` (empty for none).
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|&z| (z - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

#[cfg(test)]
mod tests;
