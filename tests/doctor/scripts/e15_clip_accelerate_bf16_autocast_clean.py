"""CLIP contrastive fine-tuning with accelerate mixed precision (bf16 autocast, fp32 master weights).
Image preprocessing goes through a NumPy uint8 -> normalised float32 pipeline."""
import numpy as np
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import CLIPConfig, CLIPModel

torch.manual_seed(0)
rng = np.random.default_rng(0)
MEAN = np.array([0.4815, 0.4578, 0.4082], dtype=np.float32)
STD = np.array([0.2686, 0.2613, 0.2758], dtype=np.float32)


class Pairs(Dataset):
    def __init__(self, n=64):
        self.images = rng.integers(0, 256, size=(n, 32, 32, 3), dtype=np.uint8)
        self.captions = rng.integers(3, 1000, size=(n, 16))
        self.captions[:, -1] = 2  # eos

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        pix = (self.images[i].astype(np.float32) / 255.0 - MEAN) / STD
        return {"pixel_values": torch.from_numpy(pix).permute(2, 0, 1).contiguous(),
                "input_ids": torch.from_numpy(self.captions[i]).long()}


config = CLIPConfig(
    text_config=dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, max_position_embeddings=32,
                     pad_token_id=0, bos_token_id=1, eos_token_id=2),
    vision_config=dict(image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
                       num_hidden_layers=2, num_attention_heads=4),
    projection_dim=32,
)
model = CLIPModel(config)
accelerator = Accelerator(cpu=True, mixed_precision="bf16")
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
loader = DataLoader(Pairs(), batch_size=16, shuffle=True)
model, opt, loader = accelerator.prepare(model, opt, loader)

model.train()
for epoch in range(3):
    for batch in loader:
        out = model(**batch, return_loss=True)
        accelerator.backward(out.loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        with torch.no_grad():
            accelerator.unwrap_model(model).logit_scale.clamp_(0, np.log(100))
    accelerator.print(f"epoch {epoch} loss {out.loss.item():.4f}")

model.eval()
with torch.no_grad():
    batch = next(iter(loader))
    logits = model(**batch).logits_per_image
    acc = (logits.argmax(-1) == torch.arange(logits.shape[0])).float().mean().item()
print(f"in-batch retrieval acc {acc:.3f}")
