//! Neural value networks without a training framework: the model file,
//! its checks, and a fast forward pass.
//!
//! A model file is a SafeTensors file. Its tensors are `layer{k}.weight`
//! (shape `[inputs, outputs]`, the layout burn's `Linear` uses) and
//! `layer{k}.bias` (`[outputs]`), all f32. Its metadata says what it is:
//! `format` = `sawah-model`, `format_version`, `rules` and `rules_digest`
//! (the rule set it was trained for), `encoder` and `input_size` (see
//! [`super::encoding`]), `layers` (widths, e.g. `60,64,1`), `activations`
//! (one per layer, e.g. `relu,sigmoid`) and `info` (JSON: training games,
//! seed, code version, measured strength). Loading checks all of it and
//! refuses a model for another rule set or encoder with a message.
//!
//! The first layer reads the sparse 0/1 encoding as a sum of weight rows,
//! so an evaluation costs (active inputs + later layer sizes) × width.

use super::encoding::{Encode, Encoder};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use sawah_engine::Codec;
use std::path::Path;
use thiserror::Error;

/// What a model file's `format` says.
pub const MODEL_FORMAT: &str = "sawah-model";
/// The model format version this build reads and writes.
pub const MODEL_FORMAT_VERSION: u32 = 1;
/// The widest layer a model may have (the forward pass keeps layers on the stack).
pub const MAX_WIDTH: usize = 1024;

thread_local! {
    /// Per-thread buffers for the forward pass, so an evaluation neither
    /// allocates nor clears memory.
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch { values: Vec::new(), rows: Vec::new() })
    };
    /// Per-thread buffer for a position's active inputs.
    static ACTIVE: std::cell::RefCell<Vec<u16>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The rows a layer adds up: (input index, input value).
type Rows = Vec<(usize, f32)>;

/// The forward pass's working memory: two layers' outputs, and the rows
/// the next layer adds up.
struct Scratch {
    values: Vec<f32>,
    rows: Rows,
}

/// A layer's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// max(0, x).
    Relu,
    /// 1 / (1 + e^−x) (the output layer: a win probability).
    Sigmoid,
    /// tanh(x).
    Tanh,
    /// x.
    Identity,
}

impl Activation {
    /// Its name in model files.
    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Sigmoid => "sigmoid",
            Activation::Tanh => "tanh",
            Activation::Identity => "identity",
        }
    }

    fn parse(name: &str) -> Option<Activation> {
        match name {
            "relu" => Some(Activation::Relu),
            "sigmoid" => Some(Activation::Sigmoid),
            "tanh" => Some(Activation::Tanh),
            "identity" => Some(Activation::Identity),
            _ => None,
        }
    }

    /// Applies the activation to every value (one loop per kind, so the
    /// compiler can vectorise it).
    #[inline(always)]
    fn apply_all(self, values: &mut [f32]) {
        match self {
            Activation::Relu => values.iter_mut().for_each(|x| *x = x.max(0.0)),
            Activation::Sigmoid => values
                .iter_mut()
                .for_each(|x| *x = 1.0 / (1.0 + (-*x).exp())),
            Activation::Tanh => values.iter_mut().for_each(|x| *x = x.tanh()),
            Activation::Identity => {}
        }
    }
}

/// One fully connected layer.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// Inputs.
    pub inputs: usize,
    /// Outputs.
    pub outputs: usize,
    /// Weights, `[inputs][outputs]` row-major.
    pub weight: Vec<f32>,
    /// Biases, one per output.
    pub bias: Vec<f32>,
    /// Applied to each output.
    pub activation: Activation,
}

/// What a model says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    /// The rule set id.
    pub rules: String,
    /// The rule set's digest ([`Codec::rules_digest`]).
    pub rules_digest: String,
    /// The input encoding's id.
    pub encoder: String,
    /// Free-form JSON: training games, seed, code version, strength.
    pub info: serde_json::Value,
}

/// Why a model could not be used.
#[derive(Debug, Error)]
pub enum ModelError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Not a valid model file.
    #[error("not a valid sawah model: {0}")]
    Format(String),
    /// A model for another rule set or encoding.
    #[error("the model is for {found}, not {expected}")]
    Mismatch {
        /// What the game needs.
        expected: String,
        /// What the model is for.
        found: String,
    },
}

/// A multilayer perceptron giving the win probability of the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct NeuralNet {
    /// What the model is for.
    pub info: ModelInfo,
    /// The layers, input first; the last has one output.
    pub layers: Vec<Dense>,
    /// The encoding named by `info.encoder`, resolved once.
    encoder: Encoder,
}

fn format_error(message: impl Into<String>) -> ModelError {
    ModelError::Format(message.into())
}

impl NeuralNet {
    /// A network from its parts, checking that the layers fit together,
    /// are at most [`MAX_WIDTH`] wide and end in one output.
    pub fn new(info: ModelInfo, layers: Vec<Dense>) -> Result<NeuralNet, ModelError> {
        if layers.is_empty() {
            return Err(format_error("no layers"));
        }
        for (k, layer) in layers.iter().enumerate() {
            if layer.inputs == 0 || layer.outputs == 0 {
                return Err(format_error(format!(
                    "layer {k} has no inputs or no outputs"
                )));
            }
            if layer.inputs > u16::MAX as usize || layer.outputs > MAX_WIDTH {
                return Err(format_error(format!(
                    "layer {k} is {}×{}; at most {} inputs and {MAX_WIDTH} outputs",
                    layer.inputs,
                    layer.outputs,
                    u16::MAX
                )));
            }
            if layer.weight.len() != layer.inputs * layer.outputs
                || layer.bias.len() != layer.outputs
            {
                return Err(format_error(format!(
                    "layer {k}: weights do not match its shape"
                )));
            }
            if k > 0 && layers[k - 1].outputs != layer.inputs {
                return Err(format_error(format!(
                    "layer {k} takes {} inputs but layer {} gives {}",
                    layer.inputs,
                    k - 1,
                    layers[k - 1].outputs
                )));
            }
            if layer
                .weight
                .iter()
                .chain(&layer.bias)
                .any(|w| !w.is_finite())
            {
                return Err(format_error(format!(
                    "layer {k} has a weight that is not finite"
                )));
            }
        }
        if layers.last().map(|l| l.outputs) != Some(1) {
            return Err(format_error("the last layer must have one output"));
        }
        let encoder = Encoder::from_id(&info.encoder).ok_or_else(|| {
            let known: Vec<&str> = Encoder::ALL.iter().map(|e| e.id()).collect();
            format_error(format!(
                "unknown encoder {:?}; this build reads {}",
                info.encoder,
                known.join(", ")
            ))
        })?;
        Ok(NeuralNet {
            info,
            layers,
            encoder,
        })
    }

    /// A network for `game` with ReLU hidden layers of widths `hidden`, a
    /// sigmoid output, and small weights from a seeded generator (for
    /// benchmarks and tests; training starts from burn's initialiser).
    pub fn with_random_weights<G: Encode + Codec>(
        game: &G,
        hidden: &[usize],
        seed: u64,
    ) -> Result<NeuralNet, ModelError> {
        NeuralNet::with_random_weights_for(game, game.default_encoder(), hidden, seed)
    }

    /// [`NeuralNet::with_random_weights`] reading `encoder`'s inputs.
    pub fn with_random_weights_for<G: Encode + Codec>(
        game: &G,
        encoder: Encoder,
        hidden: &[usize],
        seed: u64,
    ) -> Result<NeuralNet, ModelError> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.6
        };
        let mut widths = vec![game.input_size_of(encoder)];
        widths.extend_from_slice(hidden);
        widths.push(1);
        let last = widths.len() - 2;
        let layers = widths
            .windows(2)
            .enumerate()
            .map(|(k, w)| Dense {
                inputs: w[0],
                outputs: w[1],
                weight: (0..w[0] * w[1]).map(|_| next()).collect(),
                bias: (0..w[1]).map(|_| next()).collect(),
                activation: if k == last {
                    Activation::Sigmoid
                } else {
                    Activation::Relu
                },
            })
            .collect();
        NeuralNet::new(
            ModelInfo {
                rules: game.name().to_string(),
                rules_digest: game.rules_digest(),
                encoder: encoder.id().to_string(),
                info: serde_json::json!({ "random_weights_seed": seed }),
            },
            layers,
        )
    }

    /// Inputs the network reads.
    pub fn input_size(&self) -> usize {
        self.layers[0].inputs
    }

    /// Trainable parameters.
    pub fn parameters(&self) -> usize {
        self.layers
            .iter()
            .map(|l| l.weight.len() + l.bias.len())
            .sum()
    }

    /// Layer widths, input first (`60,64,1`).
    pub fn widths(&self) -> Vec<usize> {
        std::iter::once(self.input_size())
            .chain(self.layers.iter().map(|l| l.outputs))
            .collect()
    }

    /// The input encoding the network reads.
    pub fn encoder(&self) -> Encoder {
        self.encoder
    }

    /// Checks that the model belongs to `game`: rule set (name and full
    /// description), an encoder the game offers, and its input size.
    pub fn check_for<G: Encode + Codec>(&self, game: &G) -> Result<(), ModelError> {
        if self.info.rules != game.name() || self.info.rules_digest != game.rules_digest() {
            return Err(ModelError::Mismatch {
                expected: format!("rule set {} ({})", game.name(), game.rules_digest()),
                found: format!("rule set {} ({})", self.info.rules, self.info.rules_digest),
            });
        }
        let offered = game.encoder_named(&self.info.encoder);
        if offered != Some(self.encoder) || self.input_size() != game.input_size_of(self.encoder) {
            let expected: Vec<String> = game
                .encoders()
                .iter()
                .map(|&e| format!("{e} with {} inputs", game.input_size_of(e)))
                .collect();
            return Err(ModelError::Mismatch {
                expected: format!("encoder {}", expected.join(" or ")),
                found: format!(
                    "encoder {} with {} inputs",
                    self.info.encoder,
                    self.input_size()
                ),
            });
        }
        Ok(())
    }

    /// The output for a sparse 0/1 input given by its active indices (each
    /// below the input size).
    pub fn forward_active(&self, active: &[u16]) -> f32 {
        SCRATCH.with(|scratch| {
            let Scratch { values, rows } = &mut *scratch.borrow_mut();
            if values.len() < 2 * MAX_WIDTH {
                values.resize(2 * MAX_WIDTH, 0.0);
            }
            let (a, b) = values.split_at_mut(MAX_WIDTH);
            self.forward_with(active, a, b, rows)
        })
    }

    /// Runs the network with the widest vector instructions this processor
    /// has. Every path does the same additions and multiplications in the
    /// same order for each output (Rust never fuses them into one), so the
    /// outputs are the same bit for bit; only the number of lanes differs.
    fn forward_with(&self, active: &[u16], a: &mut [f32], b: &mut [f32], rows: &mut Rows) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has just been found to support AVX2.
            return unsafe { self.forward_avx2(active, a, b, rows) };
        }
        self.forward_portable(active, a, b, rows)
    }

    /// [`Self::forward_portable`] compiled for AVX2 (eight lanes, against
    /// the baseline's four).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn forward_avx2(&self, active: &[u16], a: &mut [f32], b: &mut [f32], rows: &mut Rows) -> f32 {
        self.forward_portable(active, a, b, rows)
    }

    /// The forward pass itself; no closures inside, so that the AVX2
    /// copy compiles all of it for AVX2.
    #[inline(always)]
    fn forward_portable(
        &self,
        active: &[u16],
        a: &mut [f32],
        b: &mut [f32],
        rows: &mut Rows,
    ) -> f32 {
        let first = &self.layers[0];
        rows.clear();
        rows.extend(active.iter().map(|&i| (usize::from(i), 1.0)));
        add_rows(first, rows, &mut a[..first.outputs]);
        first.activation.apply_all(&mut a[..first.outputs]);
        let (mut current, mut next) = (a, b);
        for layer in &self.layers[1..] {
            // The inputs that are not zero, gathered without a branch per
            // input (after a ReLU about half are zero, in no order a
            // processor could predict).
            let inputs = &current[..layer.inputs];
            rows.resize(inputs.len(), (0, 0.0));
            let mut kept = 0;
            for (i, &x) in inputs.iter().enumerate() {
                rows[kept] = (i, x);
                kept += usize::from(x != 0.0);
            }
            add_rows(layer, &rows[..kept], &mut next[..layer.outputs]);
            layer.activation.apply_all(&mut next[..layer.outputs]);
            std::mem::swap(&mut current, &mut next);
        }
        current[0]
    }

    /// The output for a dense input (the reference the sparse path is
    /// tested against, and what training compares with).
    pub fn forward_dense(&self, input: &[f32]) -> f32 {
        let mut current: Vec<f32> = input.to_vec();
        for layer in &self.layers {
            let mut next = vec![0f32; layer.outputs];
            dense_forward(layer, &current, &mut next);
            current = next;
        }
        current[0]
    }

    /// Appends `position`'s active inputs in the network's encoding.
    pub fn encode<G: Encode>(&self, game: &G, position: &G::Position, active: &mut Vec<u16>) {
        game.encode_with(self.encoder, position, active);
    }

    /// The win probability for the side to move of `position`.
    pub fn evaluate<G: Encode>(&self, game: &G, position: &G::Position) -> f64 {
        ACTIVE.with(|active| {
            let mut active = active.borrow_mut();
            active.clear();
            self.encode(game, position, &mut active);
            f64::from(self.forward_active(&active))
        })
    }

    /// The model as SafeTensors bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ModelError> {
        let widths: Vec<String> = self.widths().iter().map(|w| w.to_string()).collect();
        let activations: Vec<&str> = self.layers.iter().map(|l| l.activation.name()).collect();
        // Collected into whichever map type safetensors uses (it differs
        // between its std and alloc builds).
        let metadata = [
            ("format", MODEL_FORMAT.to_string()),
            ("format_version", MODEL_FORMAT_VERSION.to_string()),
            ("rules", self.info.rules.clone()),
            ("rules_digest", self.info.rules_digest.clone()),
            ("encoder", self.info.encoder.clone()),
            ("input_size", self.input_size().to_string()),
            ("layers", widths.join(",")),
            ("activations", activations.join(",")),
            ("info", self.info.info.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let bytes: Vec<(String, Vec<u8>, Vec<usize>)> = self
            .layers
            .iter()
            .enumerate()
            .flat_map(|(k, l)| {
                [
                    (
                        format!("layer{k}.weight"),
                        le_bytes(&l.weight),
                        vec![l.inputs, l.outputs],
                    ),
                    (format!("layer{k}.bias"), le_bytes(&l.bias), vec![l.outputs]),
                ]
            })
            .collect();
        let views = bytes
            .iter()
            .map(|(name, data, shape)| {
                TensorView::new(Dtype::F32, shape.clone(), data)
                    .map(|view| (name.clone(), view))
                    .map_err(|e| format_error(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut bytes = safetensors::tensor::serialize(views, Some(metadata))
            .map_err(|e| format_error(e.to_string()))?;
        sort_metadata(&mut bytes)?;
        Ok(bytes)
    }

    /// Reads a model from SafeTensors bytes, checking everything; a corrupt
    /// or truncated file is an error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<NeuralNet, ModelError> {
        let (_, metadata) =
            SafeTensors::read_metadata(bytes).map_err(|e| format_error(e.to_string()))?;
        let tensors = SafeTensors::deserialize(bytes).map_err(|e| format_error(e.to_string()))?;
        let meta = metadata
            .metadata()
            .clone()
            .ok_or_else(|| format_error("no metadata (is this a sawah model?)"))?;
        let field = |key: &str| {
            meta.get(key)
                .cloned()
                .ok_or_else(|| format_error(format!("metadata has no {key:?}")))
        };
        if field("format")? != MODEL_FORMAT {
            return Err(format_error(format!("format is not {MODEL_FORMAT:?}")));
        }
        let version = field("format_version")?;
        if version != MODEL_FORMAT_VERSION.to_string() {
            return Err(format_error(format!(
                "format version {version}; this build reads version {MODEL_FORMAT_VERSION}"
            )));
        }
        let widths: Vec<usize> = field("layers")?
            .split(',')
            .map(|w| w.trim().parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|_| format_error("layers is not a list of widths"))?;
        let activations: Vec<Activation> = field("activations")?
            .split(',')
            .map(|a| {
                Activation::parse(a.trim())
                    .ok_or_else(|| format_error(format!("unknown activation {a:?}")))
            })
            .collect::<Result<_, _>>()?;
        if widths.len() < 2 || activations.len() != widths.len() - 1 {
            return Err(format_error("layers and activations do not match"));
        }
        let input_size: usize = field("input_size")?
            .parse()
            .map_err(|_| format_error("input_size is not a number"))?;
        if input_size != widths[0] {
            return Err(format_error("input_size does not match the first layer"));
        }
        let read = |name: &str, shape: &[usize]| -> Result<Vec<f32>, ModelError> {
            let view = tensors
                .tensor(name)
                .map_err(|_| format_error(format!("no tensor {name}")))?;
            if view.dtype() != Dtype::F32 || view.shape() != shape {
                return Err(format_error(format!(
                    "{name} is {:?} {:?}, expected F32 {shape:?}",
                    view.dtype(),
                    view.shape()
                )));
            }
            Ok(view
                .data()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect())
        };
        let mut layers = Vec::new();
        for (k, activation) in activations.into_iter().enumerate() {
            let (inputs, outputs) = (widths[k], widths[k + 1]);
            if inputs > u16::MAX as usize || outputs > MAX_WIDTH {
                return Err(format_error(format!("layer {k} is too wide")));
            }
            layers.push(Dense {
                inputs,
                outputs,
                weight: read(&format!("layer{k}.weight"), &[inputs, outputs])?,
                bias: read(&format!("layer{k}.bias"), &[outputs])?,
                activation,
            });
        }
        let info = serde_json::from_str(&field("info")?)
            .map_err(|e| format_error(format!("info: {e}")))?;
        NeuralNet::new(
            ModelInfo {
                rules: field("rules")?,
                rules_digest: field("rules_digest")?,
                encoder: field("encoder")?,
                info,
            },
            layers,
        )
    }

    /// Reads a model file and checks it belongs to `game`.
    pub fn load<G: Encode + Codec>(path: &Path, game: &G) -> Result<NeuralNet, ModelError> {
        let net = NeuralNet::load_file(path)?;
        net.check_for(game)?;
        Ok(net)
    }

    /// Reads a model file (at most [`MAX_MODEL_BYTES`]); format errors name
    /// the file. The caller checks it against its game.
    pub fn load_file(path: &Path) -> Result<NeuralNet, ModelError> {
        let io_error = |source| ModelError::Io {
            path: path.display().to_string(),
            source,
        };
        let bytes = read_bounded(path, MAX_MODEL_BYTES).map_err(io_error)?;
        NeuralNet::from_bytes(&bytes).map_err(|e| match e {
            ModelError::Format(m) => ModelError::Format(format!("{}: {m}", path.display())),
            other => other,
        })
    }
}

/// The largest model file read: shipped models are about 70 KB, and a
/// model file is at most 1 MB by design; 64 MiB leaves room for research
/// models without letting a path such as `/dev/zero` exhaust memory.
pub const MAX_MODEL_BYTES: u64 = 64 << 20;

/// Reads a regular file of at most `limit` bytes: anything else (a device,
/// a folder, a larger file) is refused before reading, and the read itself
/// is bounded in case the file grows meanwhile.
pub fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    sawah_engine::files::read_bounded(path, limit)
}

/// Writes the header's metadata in the order of its keys: safetensors
/// keeps it in a hash map, whose order changes from process to process,
/// and the same network must give the same file. The header keeps its
/// length (the same entries in another order), so the data stays in place.
fn sort_metadata(bytes: &mut [u8]) -> Result<(), ModelError> {
    let broken = || format_error("the header written does not read back");
    let length = bytes
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(broken)?;
    let header = bytes.get(8..8 + length).ok_or_else(broken)?;
    let text = std::str::from_utf8(header)
        .map_err(|_| broken())?
        .trim_end();
    let mut value: serde_json::Value = serde_json::from_str(text).map_err(|_| broken())?;
    if let Some(metadata) = value
        .get_mut("__metadata__")
        .and_then(serde_json::Value::as_object_mut)
    {
        metadata.sort_keys();
    }
    let sorted = serde_json::to_string(&value).map_err(|_| broken())?;
    if sorted.len() != text.len() {
        return Err(broken());
    }
    bytes[8..8 + sorted.len()].copy_from_slice(sorted.as_bytes());
    Ok(())
}

fn le_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// One layer the plain way, input by input (the reference for
/// [`add_rows`]).
fn dense_forward(layer: &Dense, input: &[f32], output: &mut [f32]) {
    output.copy_from_slice(&layer.bias);
    for (x, row) in input.iter().zip(layer.weight.chunks_exact(layer.outputs)) {
        if *x != 0.0 {
            for (o, w) in output.iter_mut().zip(row) {
                *o += x * w;
            }
        }
    }
    layer.activation.apply_all(output);
}

/// Outputs computed together, kept in registers while the rows stream by.
const LANES: usize = 64;

/// `output = bias + Σ scale · weight[row]` over `rows` (row index, scale),
/// before the activation. Each output gets the bias first and then the rows'
/// terms in the order given, exactly as [`dense_forward`] adds them, so the
/// result is the same bit for bit; it is only faster, because a block of
/// [`LANES`] outputs stays in registers instead of going to memory for
/// every row. A row past the weights (a model not checked against its game)
/// adds nothing rather than panicking.
#[inline(always)]
fn add_rows(layer: &Dense, rows: &[(usize, f32)], output: &mut [f32]) {
    let width = layer.outputs;
    let mut start = 0;
    while start + LANES <= width {
        let mut sums = [0f32; LANES];
        sums.copy_from_slice(&layer.bias[start..start + LANES]);
        for &(row, scale) in rows {
            let offset = row * width + start;
            let Some(weights) = layer
                .weight
                .get(offset..offset + LANES)
                .and_then(|w| <&[f32; LANES]>::try_from(w).ok())
            else {
                continue;
            };
            for (sum, w) in sums.iter_mut().zip(weights) {
                *sum += scale * w;
            }
        }
        output[start..start + LANES].copy_from_slice(&sums);
        start += LANES;
    }
    for (j, out) in output.iter_mut().enumerate().skip(start) {
        let mut sum = layer.bias[j];
        for &(row, scale) in rows {
            if let Some(w) = layer.weight.get(row * width + j) {
                sum += scale * w;
            }
        }
        *out = sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX2 path must give the portable path's outputs bit for bit:
    /// the shipped levels play the same moves on every processor.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_forward_pass_is_the_portable_one_bit_for_bit() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let game = sawah_engine::race::preset("masters").unwrap();
        let encoder = game.encoders()[0];
        let net = NeuralNet::with_random_weights_for(&game, encoder, &[256, 128], 11).unwrap();
        let inputs = net.input_size() as u64;
        let (mut a, mut b) = (vec![0f32; MAX_WIDTH], vec![0f32; MAX_WIDTH]);
        let mut rows = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut outputs = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let mut active = Vec::new();
            for _ in 0..24 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                active.push(((state >> 33) % inputs) as u16);
            }
            let portable = net.forward_portable(&active, &mut a, &mut b, &mut rows);
            // SAFETY: AVX2 support was checked above.
            let wide = unsafe { net.forward_avx2(&active, &mut a, &mut b, &mut rows) };
            assert_eq!(portable.to_bits(), wide.to_bits(), "inputs {active:?}");
            outputs.insert(portable.to_bits());
        }
        // The inputs really differ, so the outputs do.
        assert!(outputs.len() > 1000, "{} distinct outputs", outputs.len());
    }
}
