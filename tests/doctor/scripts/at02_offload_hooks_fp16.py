import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

OFFLOAD_DEVICE = torch.device("cpu")
OFFLOAD_DTYPE = torch.float16


class ActivationOffloader:
    """Moves saved activations off the compute device in a compact dtype."""

    def __init__(self, device, dtype, min_numel=1024):
        self.device = device
        self.dtype = dtype
        self.min_numel = min_numel
        self.bytes_saved = 0

    def pack(self, t):
        if t.numel() < self.min_numel or not t.is_floating_point():
            return t
        packed = t.detach().to(self.device, dtype=self.dtype, copy=True)
        self.bytes_saved += t.numel() * (t.element_size() - packed.element_size())
        return (t.device, packed)

    def unpack(self, packed):
        if isinstance(packed, torch.Tensor):
            return packed
        device, t = packed
        return t.to(device, non_blocking=True)

    def __call__(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)


class MLPBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Mixer(nn.Module):
    def __init__(self, in_dim=32, dim=128, depth=4, n_classes=10):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.blocks = nn.ModuleList([MLPBlock(dim, 4 * dim) for _ in range(depth)])
        self.head = nn.Linear(dim, n_classes)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = blk(h)
        return self.head(h.mean(1))


def make_data(n=2048, seq=16, in_dim=32, n_classes=10):
    protos = torch.randn(n_classes, in_dim)
    y = torch.randint(0, n_classes, (n,))
    x = protos[y].unsqueeze(1) + 0.8 * torch.randn(n, seq, in_dim)
    return x, y


def main():
    x, y = make_data()
    x_tr, y_tr, x_va, y_va = x[:1792], y[:1792], x[1792:], y[1792:]
    model = Mixer()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    offloader = ActivationOffloader(OFFLOAD_DEVICE, OFFLOAD_DTYPE)

    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(x_tr))
        total = 0.0
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            with offloader():
                logits = model(x_tr[idx])
                loss = F.cross_entropy(logits, y_tr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            acc = (model(x_va).argmax(-1) == y_va).float().mean().item()
        print(f"epoch {epoch} train loss {total / len(x_tr):.4f} val acc {acc:.3f} "
              f"offloaded {offloader.bytes_saved / 2**20:.1f} MiB saved")


if __name__ == "__main__":
    main()
