import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(14)
L, N_AA = 20, 20
BIN_CENTERS = torch.linspace(2.0, 22.0, 21)
SIGMA = 2.5


def make_batch(bs):
    seq = torch.randint(0, N_AA, (bs, L))
    idx = torch.arange(L, dtype=torch.float32)
    pitch = 1.5 + 0.3 * (seq[:, :1] % 3).float()
    ca = torch.stack([2.3 * torch.cos(1.75 * idx).expand(bs, L), 2.3 * torch.sin(1.75 * idx).expand(bs, L),
                      pitch * idx], -1)
    ca = ca + 0.2 * torch.randn_like(ca)
    d = torch.cdist(ca, ca)
    true_bin = (d[..., None] - BIN_CENTERS).abs().argmin(-1)
    return seq, true_bin


class CATracePredictor(nn.Module):
    def __init__(self, c=64):
        super().__init__()
        self.embed = nn.Embedding(N_AA, c)
        self.pos = nn.Parameter(0.1 * torch.randn(L, c))
        layer = nn.TransformerEncoderLayer(c, 4, 2 * c, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.bond_dir = nn.Linear(c, 3)

    def forward(self, seq):
        s = self.encoder(self.embed(seq) + self.pos)
        bonds = 3.8 * F.normalize(self.bond_dir(s[:, 1:]), dim=-1)
        ca = torch.cat([torch.zeros_like(bonds[:, :1]), bonds.cumsum(1)], 1)
        return ca - ca.mean(1, keepdim=True)


def soft_distogram_nll(ca, true_bin):
    d = torch.sqrt(((ca[:, :, None] - ca[:, None]) ** 2).sum(-1) + 1e-3)
    centers = BIN_CENTERS.to(ca.dtype)
    probs = torch.softmax(-(d[..., None] - centers) ** 2 / (2 * SIGMA ** 2), dim=-1)
    p_true = probs.gather(-1, true_bin[..., None]).squeeze(-1)
    off_diag = 1 - torch.eye(ca.shape[1], dtype=ca.dtype)
    return -(torch.log(p_true) * off_diag).sum() / (off_diag.sum() * ca.shape[0])


def main():
    model = CATracePredictor().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(20):
        seq, true_bin = make_batch(8)
        ca = model(seq)
        loss = soft_distogram_nll(ca, true_bin)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 5 == 0:
            print(f"step {step} soft-distogram nll {loss.item():.4f}")
    seq, true_bin = make_batch(8)
    with torch.no_grad():
        ca = model(seq).float()
    ca_ca = (ca[:, 1:] - ca[:, :-1]).norm(dim=-1).mean()
    print(f"eval nll {soft_distogram_nll(ca, true_bin).item():.4f} mean CA-CA {ca_ca.item():.2f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="catrace_"), "ca_trace.pt"))


if __name__ == "__main__":
    main()
