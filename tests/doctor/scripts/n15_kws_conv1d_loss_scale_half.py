"""Keyword-spotting 1D CNN. Stage 1 trains with CPU fp16 autocast and a static loss scale
(kept on the model so it is checkpointed with it). Stage 2 reloads the checkpoint and
continues in plain half precision, which is faster than autocast on this box."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_MEL, FRAMES, N_WORDS = 20, 48, 6


class LossScaler(nn.Module):
    def __init__(self, init_scale=2.0**16):
        super().__init__()
        self.register_buffer("scale", torch.tensor(init_scale))

    def scale_loss(self, loss):
        return loss * self.scale

    @torch.no_grad()
    def unscale_(self, params):
        for p in params:
            if p.grad is not None:
                p.grad.div_(self.scale)


class KWSNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(N_MEL, 48, 5, padding=2), nn.GroupNorm(4, 48), nn.ReLU(),
            nn.Conv1d(48, 48, 5, padding=2, dilation=1), nn.GroupNorm(4, 48), nn.ReLU(),
            nn.Conv1d(48, 64, 3, padding=2, dilation=2), nn.GroupNorm(4, 64), nn.ReLU(),
        )
        self.fc = nn.Linear(64, N_WORDS)
        self.scaler = LossScaler()

    def forward(self, mel):
        return self.fc(self.conv(mel).mean(-1))


def fake_mels(n):
    y = torch.randint(0, N_WORDS, (n,))
    t = torch.arange(FRAMES).float()
    band = torch.arange(N_MEL).float().view(1, -1, 1)
    centre = (3 * y + 2).float().view(-1, 1, 1)
    x = torch.exp(-((band - centre) ** 2) / 4) * torch.sin(t * (y.float().view(-1, 1, 1) + 1) / 6)
    return x + 0.2 * torch.randn(n, N_MEL, FRAMES), y


def train(model, opt, x, y, steps, autocast):
    dtype = next(model.parameters()).dtype
    for step in range(steps):
        idx = torch.randint(0, len(x), (32,))
        xb = x[idx].to(dtype)
        with torch.autocast("cpu", dtype=torch.float16, enabled=autocast):
            logits = model(xb)
            loss = F.cross_entropy(logits.float(), y[idx])
        opt.zero_grad()
        model.scaler.scale_loss(loss).backward()
        model.scaler.unscale_(model.parameters())
        opt.step()
        if step % 10 == 0:
            print(f"  step {step} loss {loss.item():.4f}")


def main():
    x, y = fake_mels(1024)
    model = KWSNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    print("stage 1 (fp16 autocast)")
    train(model, opt, x, y, 30, autocast=True)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kws.pt")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)

        print("stage 2 (half)")
        model2 = KWSNet()
        ckpt = torch.load(path, weights_only=True)
        model2.load_state_dict(ckpt["model"])
        model2.half()
        opt2 = torch.optim.SGD(model2.parameters(), lr=0.02, momentum=0.9)
        train(model2, opt2, x, y, 30, autocast=False)

        model2.eval()
        with torch.no_grad():
            acc = (model2(x[:256].half()).argmax(1) == y[:256]).float().mean()
        print(f"accuracy after stage 2: {acc.item():.3f}")


if __name__ == "__main__":
    main()
