//! The four architectures, built with candle-nn layers.
//!
//! Every convolution is 3 × 3 with "same" padding (the players study's four 3 × 3 layers
//! on an 8 × 8 board need it: unpadded, the board would vanish after four), except the
//! 1 × 1 convolutions that start the heads. A residual block is
//! `relu(x + conv(relu(conv(x))))`, without batch normalization: the nets are small
//! enough to train without it, and inference then is exactly the layers written here.
//!
//! | arch | input | trunk | heads |
//! | --- | --- | --- | --- |
//! | `cnn-study` | 14 planes | `blocks` conv layers × `channels`, ReLU | flatten → 64 ReLU → 1, sigmoid |
//! | `cnn-eval` | 20 planes | conv, `blocks/2` residual blocks × `channels`, a widening conv to `2·channels`, the other blocks there | 1×1 conv to 16 → 128 ReLU → 1, tanh |
//! | `resnet-policy` | 20 planes | conv, `blocks` residual blocks × `channels` | 1×1 conv to 73 planes = 4,672 move logits |
//! | `policy-value` | 20 planes | as `resnet-policy` | its policy head, and 1×1 conv to 2 → 64 ReLU → 1, tanh |
//!
//! Values are White's expected score mapped to [−1, 1]; `cnn-study`'s sigmoid σ(z) (a
//! probability, as the study trained it) is reported as 2σ(z) − 1.

use candle_core::{Module, Result, Tensor};
use candle_nn::{Conv2d, Conv2dConfig, Linear, VarBuilder, conv2d, linear};

use super::encode::Encoding;
use super::moves::POLICY_LEN;

/// A network architecture (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arch {
    /// The players study's CNN evaluator.
    CnnStudy,
    /// The neural-network study's evaluation-only CNN.
    CnnEval,
    /// The neural-network study's ResNet move policy.
    ResnetPolicy,
    /// The neural-network study's two-headed policy/value ResNet.
    PolicyValue,
}

impl Arch {
    /// Every architecture.
    pub const ALL: [Arch; 4] = [
        Arch::CnnStudy,
        Arch::CnnEval,
        Arch::ResnetPolicy,
        Arch::PolicyValue,
    ];

    /// The name on the command line and in model files.
    pub const fn as_str(self) -> &'static str {
        match self {
            Arch::CnnStudy => "cnn-study",
            Arch::CnnEval => "cnn-eval",
            Arch::ResnetPolicy => "resnet-policy",
            Arch::PolicyValue => "policy-value",
        }
    }

    /// The architecture named `s`.
    pub fn parse(s: &str) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.as_str() == s)
    }

    /// The input planes it reads.
    pub const fn encoding(self) -> Encoding {
        match self {
            Arch::CnnStudy => Encoding::Study,
            _ => Encoding::AlphaZero,
        }
    }

    /// Whether it evaluates positions.
    pub const fn has_value(self) -> bool {
        !matches!(self, Arch::ResnetPolicy)
    }

    /// Whether it gives move probabilities.
    pub const fn has_policy(self) -> bool {
        matches!(self, Arch::ResnetPolicy | Arch::PolicyValue)
    }

    /// The size trained unless told otherwise: the study's for `cnn-study`, and for the
    /// others what two CPU cores train in about an hour on a million positions.
    pub const fn default_shape(self) -> Shape {
        match self {
            Arch::CnnStudy => Shape {
                channels: 32,
                blocks: 4,
            },
            Arch::CnnEval => Shape {
                channels: 32,
                blocks: 4,
            },
            Arch::ResnetPolicy | Arch::PolicyValue => Shape {
                channels: 32,
                blocks: 4,
            },
        }
    }
}

/// The size of a network: filters per convolution and blocks (conv layers for
/// `cnn-study`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Filters of the trunk's convolutions (`cnn-eval` doubles them half-way).
    pub channels: usize,
    /// Residual blocks (conv layers for `cnn-study`).
    pub blocks: usize,
}

/// What a forward pass gives, for a batch of N positions.
pub struct Outputs {
    /// `(N,)` values in [−1, 1], White's view; `None` without a value head.
    pub value: Option<Tensor>,
    /// `(N, 4672)` move logits; `None` without a policy head.
    pub policy: Option<Tensor>,
}

fn conv3(cin: usize, cout: usize, vb: VarBuilder) -> Result<Conv2d> {
    let cfg = Conv2dConfig {
        padding: 1,
        ..Default::default()
    };
    conv2d(cin, cout, 3, cfg, vb)
}

fn conv1(cin: usize, cout: usize, vb: VarBuilder) -> Result<Conv2d> {
    conv2d(cin, cout, 1, Conv2dConfig::default(), vb)
}

/// `relu(x + b(relu(a(x))))`.
struct Block {
    a: Conv2d,
    b: Conv2d,
}

impl Block {
    fn new(c: usize, vb: VarBuilder) -> Result<Block> {
        Ok(Block {
            a: conv3(c, c, vb.pp("a"))?,
            b: conv3(c, c, vb.pp("b"))?,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let h = self.b.forward(&self.a.forward(x)?.relu()?)?;
        (x + h)?.relu()
    }
}

/// One step of a trunk.
enum Layer {
    /// A convolution and ReLU.
    Conv(Conv2d),
    /// A residual block.
    Block(Block),
}

/// The value head: an optional 1×1 convolution, flatten, a hidden dense layer, one
/// output.
struct ValueHead {
    conv: Option<Conv2d>,
    hidden: Linear,
    out: Linear,
    /// `cnn-study`'s sigmoid (as 2σ − 1) instead of tanh.
    sigmoid: bool,
}

impl ValueHead {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let x = match &self.conv {
            Some(c) => c.forward(x)?.relu()?,
            None => x.clone(),
        };
        let z = self
            .out
            .forward(&self.hidden.forward(&x.flatten_from(1)?)?.relu()?)?
            .squeeze(1)?;
        if self.sigmoid {
            // 2σ(z) − 1 = tanh(z / 2).
            (z * 0.5)?.tanh()
        } else {
            z.tanh()
        }
    }
}

/// A network's layers.
pub struct Model {
    trunk: Vec<Layer>,
    value: Option<ValueHead>,
    policy: Option<Conv2d>,
}

impl Model {
    /// Builds (or, from a loaded file's tensors, reads) the layers of `arch` at `shape`.
    /// Tensor names: `trunk.I` (a conv) or `trunk.I.a` / `trunk.I.b` (a block),
    /// `value.conv`, `value.hidden`, `value.out`, `policy.conv`.
    pub fn new(arch: Arch, shape: Shape, vb: VarBuilder) -> Result<Model> {
        let planes = arch.encoding().planes();
        let c = shape.channels;
        let t = vb.pp("trunk");
        let mut trunk = Vec::new();
        let width = match arch {
            Arch::CnnStudy => {
                for i in 0..shape.blocks {
                    let cin = if i == 0 { planes } else { c };
                    trunk.push(Layer::Conv(conv3(cin, c, t.pp(i))?));
                }
                c
            }
            Arch::CnnEval => {
                trunk.push(Layer::Conv(conv3(planes, c, t.pp(0))?));
                let first = shape.blocks / 2;
                for _ in 0..first {
                    trunk.push(Layer::Block(Block::new(c, t.pp(trunk.len()))?));
                }
                trunk.push(Layer::Conv(conv3(c, 2 * c, t.pp(trunk.len()))?));
                for _ in first..shape.blocks {
                    trunk.push(Layer::Block(Block::new(2 * c, t.pp(trunk.len()))?));
                }
                2 * c
            }
            Arch::ResnetPolicy | Arch::PolicyValue => {
                trunk.push(Layer::Conv(conv3(planes, c, t.pp(0))?));
                for _ in 0..shape.blocks {
                    trunk.push(Layer::Block(Block::new(c, t.pp(trunk.len()))?));
                }
                c
            }
        };
        let v = vb.pp("value");
        let value = match arch {
            Arch::CnnStudy => Some(ValueHead {
                conv: None,
                hidden: linear(width * 64, 64, v.pp("hidden"))?,
                out: linear(64, 1, v.pp("out"))?,
                sigmoid: true,
            }),
            Arch::CnnEval => Some(ValueHead {
                conv: Some(conv1(width, 16, v.pp("conv"))?),
                hidden: linear(16 * 64, 128, v.pp("hidden"))?,
                out: linear(128, 1, v.pp("out"))?,
                sigmoid: false,
            }),
            Arch::PolicyValue => Some(ValueHead {
                conv: Some(conv1(width, 2, v.pp("conv"))?),
                hidden: linear(2 * 64, 64, v.pp("hidden"))?,
                out: linear(64, 1, v.pp("out"))?,
                sigmoid: false,
            }),
            Arch::ResnetPolicy => None,
        };
        let policy = if arch.has_policy() {
            Some(conv1(width, POLICY_LEN / 64, vb.pp("policy").pp("conv"))?)
        } else {
            None
        };
        Ok(Model {
            trunk,
            value,
            policy,
        })
    }

    /// The forward pass of `x`, `(N, planes, 8, 8)`.
    pub fn forward(&self, x: &Tensor) -> Result<Outputs> {
        let mut h = x.clone();
        for layer in &self.trunk {
            h = match layer {
                Layer::Conv(c) => c.forward(&h)?.relu()?,
                Layer::Block(b) => b.forward(&h)?,
            };
        }
        let value = match &self.value {
            Some(head) => Some(head.forward(&h)?),
            None => None,
        };
        let policy = match &self.policy {
            Some(conv) => Some(conv.forward(&h)?.flatten_from(1)?),
            None => None,
        };
        Ok(Outputs { value, policy })
    }
}
