//! The value network in burn: a multilayer perceptron (ReLU hidden layers,
//! one sigmoid output: the win probability for the side to move), and its
//! copy into the framework-free [`NeuralNet`] the agents run.

use burn::module::Param;
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

    /// A network with the weights of `net` (a model file's network), to
    /// train further: same widths, ReLU hidden layers and a sigmoid output,
    /// as [`ValueNet::to_inference`] writes them.
    pub fn from_inference(net: &NeuralNet, device: &Device) -> ValueNet {
        ValueNet {
            layers: net
                .layers
                .iter()
                .map(|dense| Linear {
                    weight: Param::from_data(
                        TensorData::new(dense.weight.clone(), [dense.inputs, dense.outputs]),
                        device,
                    ),
                    bias: Some(Param::from_data(
                        TensorData::new(dense.bias.clone(), [dense.outputs]),
                        device,
                    )),
                })
                .collect(),
            activation: Relu::new(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_agents::neural::ModelInfo;

    fn info() -> ModelInfo {
        ModelInfo {
            rules: "ur".into(),
            rules_digest: "0".into(),
            encoder: "race-onehot-v1".into(),
            info: serde_json::Value::Null,
        }
    }

    #[test]
    fn a_model_files_network_loads_back_with_the_same_weights_and_outputs() {
        let device = Device::flex().autodiff();
        device.seed(7);
        let trained = ValueNet::new(&[6, 4, 3, 1], &device);
        let net = trained.to_inference(info()).unwrap();
        let loaded = ValueNet::from_inference(&net, &device);
        let again = loaded.to_inference(info()).unwrap();
        assert_eq!(again.layers, net.layers);
        // And the loaded module computes what the model file does.
        let input = vec![1.0, 0.0, 1.0, 1.0, 0.0, 0.0];
        let x = Tensor::<2>::from_data(TensorData::new(input.clone(), [1, 6]), &device);
        let out: Vec<f32> = loaded
            .forward(x)
            .into_data()
            .convert::<f32>()
            .try_to_vec()
            .unwrap();
        assert!((out[0] - net.forward_dense(&input)).abs() < 1e-5);
        // A fresh network with another seed differs (the test can fail).
        device.seed(8);
        let other = ValueNet::new(&[6, 4, 3, 1], &device)
            .to_inference(info())
            .unwrap();
        assert_ne!(other.layers, net.layers);
    }
}
