//! The value network in burn: a multilayer perceptron (ReLU hidden layers,
//! one sigmoid output: the win probability for the side to move), and its
//! copy into the framework-free [`NeuralNet`] the agents run.

use burn::nn::{Linear, LinearConfig, Relu};
use burn::prelude::*;
use sawah_agents::neural::{Activation, Dense, ModelError, ModelInfo, NeuralNet};

/// A multilayer perceptron value network.
#[derive(Module, Debug)]
pub struct ValueNet {
    layers: Vec<Linear>,
    activation: Relu,
}

impl ValueNet {
    /// A network with layer widths `widths` (inputs first, the last must
    /// be 1), weights drawn by burn's default initialiser on `device`.
    pub fn new(widths: &[usize], device: &Device) -> ValueNet {
        ValueNet {
            layers: widths
                .windows(2)
                .map(|w| LinearConfig::new(w[0], w[1]).init(device))
                .collect(),
            activation: Relu::new(),
        }
    }

    /// Win probabilities for a batch of encoded positions `[batch, inputs]`
    /// → `[batch, 1]`.
    pub fn forward(&self, input: Tensor<2>) -> Tensor<2> {
        let last = self.layers.len() - 1;
        let mut x = input;
        for (k, layer) in self.layers.iter().enumerate() {
            x = layer.forward(x);
            x = if k == last {
                burn::tensor::activation::sigmoid(x)
            } else {
                self.activation.forward(x)
            };
        }
        x
    }

    /// Trainable parameters.
    pub fn parameters(&self) -> usize {
        self.num_params()
    }

    /// The same network for inference without burn.
    pub fn to_inference(&self, info: ModelInfo) -> Result<NeuralNet, ModelError> {
        let last = self.layers.len() - 1;
        let layers = self
            .layers
            .iter()
            .enumerate()
            .map(|(k, layer)| {
                let weight = layer.weight.val();
                let [inputs, outputs] = weight.dims();
                let weight: Vec<f32> = weight
                    .into_data()
                    .convert::<f32>()
                    .try_to_vec::<f32>()
                    .map_err(|e| ModelError::Format(format!("{e:?}")))?;
                let bias: Vec<f32> = match &layer.bias {
                    Some(b) => b
                        .val()
                        .into_data()
                        .convert::<f32>()
                        .try_to_vec::<f32>()
                        .map_err(|e| ModelError::Format(format!("{e:?}")))?,
                    None => vec![0.0; outputs],
                };
                Ok(Dense {
                    inputs,
                    outputs,
                    weight,
                    bias,
                    activation: if k == last {
                        Activation::Sigmoid
                    } else {
                        Activation::Relu
                    },
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        NeuralNet::new(info, layers)
    }
}
