import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(13)
MAX_N = 14


def make_padded_batch(bs):
    n_atoms = torch.randint(7, MAX_N + 1, (bs,))
    mask = (torch.arange(MAX_N)[None] < n_atoms[:, None]).float()
    z = torch.randint(1, 6, (bs, MAX_N)) * mask.long()
    pos = torch.randn(bs, MAX_N, 3) * 1.5 * mask[..., None]
    d = torch.cdist(pos, pos)
    pair = mask[:, :, None] * mask[:, None] * (1 - torch.eye(MAX_N))
    energy = (torch.exp(-d) * pair).sum((1, 2)) - 0.3 * z.float().sum(1)
    return z, pos, mask, energy


class EGNNLayer(nn.Module):
    def __init__(self, h, eps=1e-8):
        super().__init__()
        self.edge_mlp = nn.Sequential(nn.Linear(2 * h + 1, h), nn.SiLU(), nn.Linear(h, h), nn.SiLU())
        self.coord_mlp = nn.Sequential(nn.Linear(h, h), nn.SiLU(), nn.Linear(h, 1, bias=False))
        self.node_mlp = nn.Sequential(nn.Linear(2 * h, h), nn.SiLU(), nn.Linear(h, h))
        self.eps = eps

    def forward(self, h, x, edge_mask):
        n = h.shape[1]
        diff = x[:, :, None] - x[:, None]
        d2 = (diff ** 2).sum(-1, keepdim=True)
        hi = h[:, :, None].expand(-1, -1, n, -1)
        hj = h[:, None].expand(-1, n, -1, -1)
        m = self.edge_mlp(torch.cat([hi, hj, d2], -1)) * edge_mask[..., None]
        unit = diff / torch.sqrt(d2 + self.eps)
        x = x + (unit * self.coord_mlp(m) * edge_mask[..., None]).sum(2) / (n - 1)
        h = h + self.node_mlp(torch.cat([h, m.sum(2)], -1))
        return h, x


class EGNN(nn.Module):
    def __init__(self, h=32, layers=3):
        super().__init__()
        self.embed = nn.Embedding(6, h)
        self.layers = nn.ModuleList([EGNNLayer(h) for _ in range(layers)])
        self.head = nn.Sequential(nn.Linear(h, h), nn.SiLU(), nn.Linear(h, 1))

    def forward(self, z, pos, mask):
        eye = torch.eye(z.shape[1], dtype=pos.dtype)
        edge_mask = mask[:, :, None] * mask[:, None] * (1 - eye)
        h = self.embed(z) * mask[..., None]
        x = pos
        for layer in self.layers:
            h, x = layer(h, x, edge_mask)
        return (self.head(h).squeeze(-1) * mask).sum(1), x


def main():
    model = EGNN().half()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4, eps=1e-4)
    z_val, pos_val, mask_val, e_val = make_padded_batch(32)
    for step in range(24):
        z, pos, mask, energy = make_padded_batch(16)
        pred, _ = model(z, pos.half(), mask.half())
        loss = F.smooth_l1_loss(pred.float(), energy)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 6 == 0:
            print(f"step {step} energy loss {loss.item():.4f}")
    with torch.no_grad():
        pred, _ = model(z_val, pos_val.half(), mask_val.half())
        mae = (pred.float() - e_val).abs().mean()
    print(f"validation MAE {mae.item():.4f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="egnn_"), "egnn.pt"))


if __name__ == "__main__":
    main()
