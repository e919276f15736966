import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)
L = 24
N_AA = 20


def helix_with_kinks(seq):
    idx = torch.arange(seq.shape[-1], dtype=torch.float32)
    radius = 2.3 + 0.05 * (seq.float() - 10) / 10
    angle = idx * 1.745 + 0.1 * (seq == 7).float().cumsum(-1)
    return torch.stack([radius * torch.cos(angle), radius * torch.sin(angle), 1.5 * idx.expand_as(angle)], -1)


def make_batch(n):
    seq = torch.randint(0, N_AA, (n, L))
    ca = helix_with_kinks(seq)
    return seq, ca - ca.mean(1, keepdim=True)


def quat_to_rot(q):
    q = F.normalize(q, dim=-1)
    a, b, c, d = q.unbind(-1)
    return torch.stack([
        a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c),
        2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b),
        2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d], -1).unflatten(-1, (3, 3))


class BackboneUpdate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lin = nn.Linear(c, 6)
        nn.init.normal_(self.lin.weight, std=0.02)
        nn.init.zeros_(self.lin.bias)

    def forward(self, s, rot, trans):
        upd = self.lin(s)
        q = torch.cat([torch.ones_like(upd[..., :1]), upd[..., :3]], -1)
        rot_new = rot @ quat_to_rot(q)
        trans_new = trans + (rot @ upd[..., 3:, None]).squeeze(-1) * 4.0
        return rot_new, trans_new


class StructureModule(nn.Module):
    def __init__(self, c=64, n_iter=4):
        super().__init__()
        self.embed = nn.Embedding(N_AA, c)
        self.pos = nn.Parameter(torch.randn(L, c) * 0.1)
        layer = nn.TransformerEncoderLayer(c, 4, 128, dropout=0.0, batch_first=True)
        self.trunk = nn.TransformerEncoder(layer, 2)
        self.transition = nn.Sequential(nn.Linear(c, c), nn.ReLU(), nn.Linear(c, c))
        self.update = BackboneUpdate(c)
        self.n_iter = n_iter
        self.bb_template = torch.tensor([[-0.525, 1.363, 0.0], [0.0, 0.0, 0.0], [1.526, 0.0, 0.0]])

    def forward(self, seq):
        s = self.trunk(self.embed(seq) + self.pos)
        rot = torch.eye(3, dtype=s.dtype).expand(*seq.shape, 3, 3)
        trans = torch.zeros(*seq.shape, 3, dtype=s.dtype)
        for _ in range(self.n_iter):
            s = s + self.transition(s)
            rot, trans = self.update(s, rot, trans)
        return rot, trans

    def backbone_atoms(self, rot, trans):
        return torch.einsum("blij,aj->blai", rot, self.bb_template) + trans[:, :, None, :]


def distance_loss(pred_ca, true_ca, clamp=15.0):
    d_pred = torch.cdist(pred_ca, pred_ca)
    d_true = torch.cdist(true_ca, true_ca)
    return ((d_pred - d_true).abs().clamp(max=clamp)).mean()


def main():
    model = StructureModule().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ckpt = os.path.join(tempfile.mkdtemp(prefix="sm_"), "structure_module.pt")

    for step in range(40):
        seq, ca = make_batch(16)
        rot, trans = model(seq)
        loss = distance_loss(trans.float(), ca)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} distance loss {loss.item():.3f}")

    model.eval()
    seq, ca = make_batch(8)
    with torch.no_grad():
        rot, trans = model(seq)
        atoms = model.backbone_atoms(rot, trans)
        ca_pred = atoms[:, :, 1].float()
        n_ca = (atoms[:, :, 0] - atoms[:, :, 1]).norm(dim=-1).float()
        rmsd = ((ca_pred - ca_pred.mean(1, keepdim=True) - ca) ** 2).sum(-1).mean().sqrt()
    print(f"eval drmsd {distance_loss(ca_pred, ca).item():.3f} rmsd {rmsd.item():.3f} N-CA {n_ca.mean().item():.3f}")
    torch.save(model.state_dict(), ckpt)


if __name__ == "__main__":
    main()
