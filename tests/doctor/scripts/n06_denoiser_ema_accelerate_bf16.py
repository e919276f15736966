"""Conv denoising autoencoder trained with Accelerate in pure bf16, with an EMA of the
weights (kept in fp32 for accuracy) that starts after a short warmup."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Denoiser(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(1, ch, 3, padding=1), nn.SiLU(),
            nn.Conv2d(ch, 2 * ch, 3, stride=2, padding=1), nn.SiLU(),
        )
        self.mid = nn.Sequential(nn.Conv2d(2 * ch, 2 * ch, 3, padding=1), nn.SiLU())
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(2 * ch, ch, 4, stride=2, padding=1), nn.SiLU(),
            nn.Conv2d(ch, 1, 3, padding=1),
        )

    def forward(self, x):
        return self.dec(self.mid(self.enc(x)))


class EMA:
    def __init__(self, model, decay=0.99):
        self.decay = decay
        self.shadow = copy.deepcopy(model).eval().requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        ema_params = list(self.shadow.parameters())
        cur_params = [p.detach() for p in model.parameters()]
        torch._foreach_lerp_(ema_params, cur_params, 1.0 - self.decay)


def blobs(n, size=16):
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    cy, cx = torch.randint(3, size - 3, (2, n, 1, 1))
    r = torch.randint(2, 5, (n, 1, 1)).float()
    img = (((yy - cy) ** 2 + (xx - cx) ** 2).float() < r**2).float()
    return img.unsqueeze(1)


def main():
    accelerator = Accelerator(cpu=True)
    clean = blobs(512)
    loader = DataLoader(TensorDataset(clean), batch_size=32, shuffle=True)

    model = Denoiser()
    ema = EMA(model, decay=0.99)
    model = model.to(torch.bfloat16)  # pure bf16 training: halves activation memory
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    model, opt, loader = accelerator.prepare(model, opt, loader)

    ema_start = 20
    step = 0
    for epoch in range(3):
        for (x,) in loader:
            x = x.to(torch.bfloat16)
            noisy = x + 0.3 * torch.randn_like(x)
            loss = F.mse_loss(model(noisy).float(), x.float())
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            step += 1
            if step >= ema_start:
                ema.update(accelerator.unwrap_model(model))
            if step % 10 == 0:
                accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")

    with torch.no_grad():
        x = clean[:64]
        err = F.mse_loss(ema.shadow(x + 0.3 * torch.randn_like(x)), x)
    accelerator.print("EMA denoise mse:", err.item())


if __name__ == "__main__":
    main()
