import math
import torch
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator
from transformers import PatchTSTConfig, PatchTSTForPrediction

torch.manual_seed(0)

C, CONTEXT, HORIZON = 3, 96, 24


def make_dataset(n):
    t = torch.arange(CONTEXT + HORIZON, dtype=torch.float32)
    phase = torch.rand(n, 1, C) * 2 * math.pi
    amp = torch.tensor([1.0, 5.0, 40.0])
    level = torch.tensor([0.0, 20.0, 500.0])
    x = level + amp * torch.sin(2 * math.pi * t[None, :, None] / 24 + phase)
    x = x + 0.05 * amp * torch.randn(n, CONTEXT + HORIZON, C)
    return TensorDataset(x[:, :CONTEXT], x[:, CONTEXT:])


config = PatchTSTConfig(
    num_input_channels=C, context_length=CONTEXT, prediction_length=HORIZON,
    patch_length=12, patch_stride=12, d_model=32, num_attention_heads=4,
    num_hidden_layers=2, ffn_dim=64, dropout=0.0, head_dropout=0.0,
    scaling="std", loss="mse",
)
model = PatchTSTForPrediction(config)

accelerator = Accelerator(cpu=True, mixed_precision="bf16")
train_loader = DataLoader(make_dataset(256), batch_size=32, shuffle=True)
test_loader = DataLoader(make_dataset(64), batch_size=64)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
model, optimizer, train_loader, test_loader = accelerator.prepare(model, optimizer, train_loader, test_loader)

for epoch in range(4):
    model.train()
    total = 0.0
    for past, future in train_loader:
        out = model(past_values=past, future_values=future)
        accelerator.backward(out.loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        total += out.loss.item()
    print(f"epoch {epoch} loss {total / len(train_loader):.4f} (param dtype {next(model.parameters()).dtype})")

model.eval()
with torch.no_grad():
    for past, future in test_loader:
        pred = model(past_values=past).prediction_outputs.float()
        scale = past.std(1, keepdim=True)
        nmae = ((pred - future).abs() / scale).mean(dim=(0, 1))
        naive = (past[:, 24:] - past[:, :-24]).abs().mean(1, keepdim=True)
        mase = ((pred - future).abs() / naive).mean()
print("normalised MAE per channel:", [round(v, 4) for v in nmae.tolist()])
print(f"seasonal MASE {mase.item():.3f}")
