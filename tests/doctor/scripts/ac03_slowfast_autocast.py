import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

NUM_CLASSES = 4
T, H, W = 8, 24, 24


def synthetic_batch(bs):
    """Class = (direction of a moving bar) x (blinking or not)."""
    y = torch.randint(0, NUM_CLASSES, (bs,))
    x = torch.randn(bs, 3, T, H, W) * 0.1
    for i, c in enumerate(y.tolist()):
        direction, blink = divmod(c, 2)
        for t in range(T):
            if blink and t % 2:
                continue
            pos = (4 + 2 * t) if direction == 0 else (H - 6 - 2 * t)
            x[i, :, t, :, pos:pos + 3] += 1.5
    return x, y


class Pathway(nn.Module):
    def __init__(self, cin, width, t_kernel):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv3d(cin, width, (t_kernel, 3, 3), stride=(1, 2, 2), padding=(t_kernel // 2, 1, 1), bias=False),
            nn.BatchNorm3d(width),
            nn.ReLU(inplace=True),
            nn.Conv3d(width, width * 2, (t_kernel, 3, 3), stride=(1, 2, 2), padding=(t_kernel // 2, 1, 1), bias=False),
            nn.BatchNorm3d(width * 2),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.net(x)


class SlowFastLite(nn.Module):
    def __init__(self, num_classes, alpha=4):
        super().__init__()
        self.alpha = alpha
        self.slow = Pathway(3, 16, 1)
        self.fast = Pathway(3, 4, 3)
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(32 + 8, num_classes))

    def forward(self, x):
        slow = self.slow(x[:, :, ::self.alpha])
        fast = self.fast(x)
        feats = torch.cat([slow.mean(dim=(2, 3, 4)), fast.mean(dim=(2, 3, 4))], dim=1)
        return self.head(feats)


def main():
    model = SlowFastLite(NUM_CLASSES)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    amp = dict(device_type="cpu", dtype=torch.bfloat16)

    for step in range(30):
        model.train()
        x, y = synthetic_batch(16)
        with torch.autocast(**amp):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 5 == 0:
            print(f"step {step:2d} loss {loss.item():.4f} grad_norm {grad_norm.item():.3f}")

    model.eval()
    x, y = synthetic_batch(32)
    with torch.no_grad(), torch.autocast(**amp):
        logits = model(x)
    val_loss = F.cross_entropy(logits.float(), y).item()
    acc = (logits.argmax(1) == y).float().mean().item()
    print(f"val loss {val_loss:.4f} acc {acc:.3f}")

    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "slowfast_lite.pt")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, ckpt)
        state = torch.load(ckpt)["model"]
        print("checkpoint dtypes:", sorted({str(v.dtype) for v in state.values()}))


if __name__ == "__main__":
    main()
