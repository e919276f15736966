import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class ResMLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(F.silu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self, in_dim=40, dim=128, n_blocks=4, n_classes=6, use_ckpt=True):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.blocks = nn.ModuleList(ResMLP(dim, 4 * dim) for _ in range(n_blocks))
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, n_classes)
        self.use_ckpt = use_ckpt

    def forward(self, x):
        x = self.inp(x)
        for blk in self.blocks:
            if self.use_ckpt and self.training:
                x = checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
        return self.fc(self.norm(x))


def make_data(n, gen, in_dim=40, n_classes=6):
    centers = torch.randn(n_classes, in_dim, generator=torch.Generator().manual_seed(42)) * 2
    y = torch.randint(0, n_classes, (n,), generator=gen)
    x = centers[y] + torch.randn(n, in_dim, generator=gen) * 3.5
    return x, y


def main():
    gen = torch.Generator().manual_seed(0)
    x_tr, y_tr = make_data(2048, gen)
    x_va, y_va = make_data(512, gen)
    model = Net()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 14)
    accum, micro = 4, 32

    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(x_tr), generator=gen)
        seen_loss, n_steps = 0.0, 0
        for i in range(0, len(perm), micro * accum):
            idx = perm[i:i + micro * accum]
            opt.zero_grad(set_to_none=True)
            for j in range(0, len(idx), micro):
                xb, yb = x_tr[idx[j:j + micro]], y_tr[idx[j:j + micro]]
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = F.cross_entropy(model(xb), yb) / accum
                scaler.scale(loss).backward()
                seen_loss += loss.item()
            scaler.unscale_(opt)
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            scaler.step(opt)
            scaler.update()
            n_steps += 1
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
            logits = model(x_va)
            val_loss = F.cross_entropy(logits.float(), y_va).item()
            acc = (logits.argmax(-1) == y_va).float().mean().item()
        print(f"epoch {epoch} train {seen_loss / n_steps:.4f} val {val_loss:.4f} acc {acc:.3f} "
              f"grad-norm {gnorm:.3f} scale {scaler.get_scale():.0f}")


if __name__ == "__main__":
    main()
