"""Frame-level sensor features (NumPy) -> small T5 encoder -> activity class.
Trained with accelerate bf16 mixed precision; validation at the end of every epoch."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import T5Config, T5EncoderModel

rng = np.random.default_rng(0)
torch.manual_seed(0)

N_FEAT, T, N_CLASSES = 20, 30, 5


def synth(n):
    y = rng.integers(0, N_CLASSES, size=n)
    t = np.linspace(0, 1, T)[None, :, None]
    freq = (1 + y)[:, None, None]
    X = np.sin(2 * np.pi * freq * t + rng.normal(size=(n, 1, N_FEAT))) + 0.3 * rng.normal(size=(n, T, N_FEAT))
    return X, y                      # X is float64


X_train, y_train = synth(256)
X_val, y_val = synth(64)
mean, std = X_train.mean((0, 1)), X_train.std((0, 1))
X_train, X_val = (X_train - mean) / std, (X_val - mean) / std


class FrameDataset(Dataset):
    def __init__(self, X, y):
        self.X = torch.tensor(X, dtype=torch.float32)
        self.y = torch.tensor(y, dtype=torch.long)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.X[i], self.y[i]


class SensorT5(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = T5Config(vocab_size=8, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                       relative_attention_num_buckets=16, dropout_rate=0.1)
        self.feature_proj = nn.Linear(N_FEAT, cfg.d_model)
        self.encoder = T5EncoderModel(cfg)
        self.head = nn.Linear(cfg.d_model, N_CLASSES)

    def forward(self, frames):
        h = self.encoder(inputs_embeds=self.feature_proj(frames)).last_hidden_state
        return self.head(h.mean(1))


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = SensorT5()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
train_loader = DataLoader(FrameDataset(X_train, y_train), batch_size=32, shuffle=True)
model, opt, train_loader = accelerator.prepare(model, opt, train_loader)


def evaluate(model, bs=32):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(X_val), bs):
            frames = torch.from_numpy(X_val[i:i + bs])
            labels = torch.from_numpy(y_val[i:i + bs])
            correct += (model(frames).argmax(-1) == labels).sum().item()
    model.train()
    return correct / len(X_val)


for epoch in range(2):
    for frames, labels in train_loader:
        loss = F.cross_entropy(model(frames).float(), labels)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
    acc = evaluate(model)
    accelerator.print(f"epoch {epoch} train loss {loss.item():.4f} val acc {acc:.3f}")
