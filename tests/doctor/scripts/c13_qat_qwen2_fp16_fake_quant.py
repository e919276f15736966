"""Int8 weight QAT for a tiny Qwen2: every nn.Linear in the decoder is swapped for a fake-quantized
linear (per-output-channel symmetric scales, torch.fake_quantize_per_channel_affine) and the model is
fine-tuned in fp16."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)


class FakeQuantLinear(nn.Module):
    def __init__(self, linear: nn.Linear, bits=8):
        super().__init__()
        self.weight = linear.weight
        self.bias = linear.bias
        self.qmin, self.qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        self.register_buffer("zero_point", torch.zeros(linear.out_features, dtype=torch.int32))

    def forward(self, x):
        scale = self.weight.detach().abs().amax(dim=1).clamp(min=1e-5) / self.qmax
        w_q = torch.fake_quantize_per_channel_affine(
            self.weight, scale, self.zero_point, 0, self.qmin, self.qmax)
        return F.linear(x, w_q, self.bias)


def prepare_qat(model):
    for layer in model.model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name, child in list(parent.named_children()):
                if isinstance(child, nn.Linear):
                    setattr(parent, name, FakeQuantLinear(child))
    return model


config = Qwen2Config(vocab_size=3000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                     tie_word_embeddings=True)
model = Qwen2ForCausalLM(config)
model = prepare_qat(model).half()
print(model.model.layers[0].self_attn)

opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
for step in range(10):
    ids = torch.randint(0, 3000, (4, 32))
    out = model(input_ids=ids, labels=ids)
    opt.zero_grad()
    out.loss.backward()
    opt.step()
    print(f"step {step} loss {out.loss.item():.4f}")
