import math
import os
import tempfile

import torch
from torch import nn
from transformers import PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import SequenceClassifierOutput

torch.manual_seed(0)
workdir = tempfile.mkdtemp()


class SensorConfig(PretrainedConfig):
    model_type = "sensor-encoder"

    def __init__(self, n_channels=6, d_model=64, n_heads=4, n_layers=2, max_len=256, num_labels=4, **kwargs):
        self.n_channels = n_channels
        self.d_model = d_model
        self.n_heads = n_heads
        self.n_layers = n_layers
        self.max_len = max_len
        super().__init__(num_labels=num_labels, **kwargs)


def sinusoid_table(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    table = torch.zeros(max_len, d_model, dtype=torch.float32)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)
    return table


class SensorEncoderForClassification(PreTrainedModel):
    config_class = SensorConfig
    base_model_prefix = "sensor"

    def __init__(self, config):
        super().__init__(config)
        self.input_proj = nn.Linear(config.n_channels, config.d_model)
        self.register_buffer("pos_table", sinusoid_table(config.max_len, config.d_model), persistent=False)
        layer = nn.TransformerEncoderLayer(config.d_model, config.n_heads, 2 * config.d_model,
                                           dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, config.n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.num_labels)
        self.post_init()

    def forward(self, signals, labels=None):
        h = self.input_proj(signals) + self.pos_table[: signals.shape[1]]
        h = self.norm(self.encoder(h))
        logits = self.head(h.mean(dim=1))
        loss = nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return SequenceClassifierOutput(loss=loss, logits=logits)


def make_batch(n, length=128):
    labels = torch.randint(0, 4, (n,))
    t = torch.linspace(0, 1, length)
    freq = (labels.float() + 1.0).view(-1, 1, 1) * 3.0
    signals = torch.sin(2 * math.pi * freq * t.view(1, -1, 1)) + 0.3 * torch.randn(n, length, 6)
    return signals, labels


model = SensorEncoderForClassification(SensorConfig())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
model.train()
for step in range(20):
    x, y = make_batch(32)
    loss = model(x, labels=y).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")

export_dir = os.path.join(workdir, "sensor-encoder")
model.save_pretrained(export_dir)

edge_model = SensorEncoderForClassification.from_pretrained(export_dir, dtype=torch.bfloat16).eval()
x, y = make_batch(64)
with torch.no_grad():
    logits = edge_model(x.to(torch.bfloat16)).logits
print(f"bf16 export accuracy: {(logits.argmax(-1) == y).float().mean().item():.3f}")
