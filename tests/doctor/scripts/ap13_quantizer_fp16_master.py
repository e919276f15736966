import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N_MELS = 40


class Quantizer(nn.Module):
    def __init__(self, dim, groups=2, entries=32, code_dim=32):
        super().__init__()
        self.groups, self.entries = groups, entries
        self.proj = nn.Linear(dim, groups * entries)
        self.codebook = nn.Parameter(torch.randn(groups, entries, code_dim // groups) * 0.5)
        self.tau = 2.0

    def forward(self, z):
        B, T, _ = z.shape
        logits = self.proj(z).float().view(B * T, self.groups, self.entries)
        onehot = F.gumbel_softmax(logits, tau=self.tau, hard=True, dim=-1)
        avg = torch.softmax(logits, dim=-1).mean(0)
        ppl = torch.exp(-(avg * torch.log(avg.clamp_min(1e-7))).sum(-1)).sum()
        codes = torch.einsum("ngv,gvd->ngd", onehot, self.codebook.float())
        return codes.reshape(B, T, -1).to(z.dtype), ppl


class PretrainModel(nn.Module):
    def __init__(self, dim=64, code_dim=32):
        super().__init__()
        self.feature_proj = nn.Linear(N_MELS, dim)
        self.quantizer = Quantizer(dim, code_dim=code_dim)
        self.mask_emb = nn.Parameter(torch.zeros(dim))
        self.context = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, 4, 128, dropout=0.0, batch_first=True), 2)
        self.final = nn.Linear(dim, code_dim)

    def forward(self, feats, mask):
        z = self.feature_proj(feats)
        q, ppl = self.quantizer(z)
        x = torch.where(mask.unsqueeze(-1), self.mask_emb.to(z.dtype), z)
        return self.final(self.context(x)), q, ppl


def info_nce(c, q, mask, n_neg=6, temp=0.1):
    c, q = c.float(), q.float()
    B, T, D = q.shape
    idx = torch.randint(0, T, (B, T, n_neg))
    negs = q[torch.arange(B).view(B, 1, 1), idx]
    cands = torch.cat([q.unsqueeze(2), negs], 2)
    logits = F.cosine_similarity(c.unsqueeze(2), cands, dim=-1) / temp
    return F.cross_entropy(logits[mask], torch.zeros(int(mask.sum()), dtype=torch.long))


class LossScaler:
    def __init__(self, scale=2.0 ** 12):
        self.scale = scale

    def step(self, params, master, opt):
        grads = [p.grad.float() / self.scale if p.grad is not None else None for p in params]
        if any(g is not None and not torch.isfinite(g).all() for g in grads):
            self.scale /= 2
            return False
        for m, g in zip(master, grads):
            m.grad = g
        opt.step()
        with torch.no_grad():
            for p, m in zip(params, master):
                p.copy_(m)
        return True


def main():
    torch.manual_seed(0)
    model = PretrainModel().half()
    params = list(model.parameters())
    master = [p.detach().float().clone().requires_grad_(True) for p in params]
    opt = torch.optim.AdamW(master, lr=1e-3)
    scaler = LossScaler()
    n_codes = model.quantizer.groups * model.quantizer.entries
    for step in range(10):
        feats = torch.randn(4, 60, N_MELS).cumsum(1) * 0.1
        feats = ((feats - feats.mean(1, keepdim=True)) / feats.std(1, keepdim=True)).half()
        mask = torch.rand(4, 60) < 0.4
        mask[:, 0] = True
        c, q, ppl = model(feats, mask)
        loss = info_nce(c, q, mask) + 0.1 * (n_codes - ppl) / n_codes
        model.zero_grad(set_to_none=True)
        (loss * scaler.scale).backward()
        applied = scaler.step(params, master, opt)
        opt.zero_grad(set_to_none=True)
        model.quantizer.tau = max(0.5, model.quantizer.tau * 0.95)
        print(f"step {step} loss {loss.item():.4f} ppl {ppl.item():.1f} scale {scaler.scale:.0f} applied {applied}")
        assert math.isfinite(loss.item())


if __name__ == "__main__":
    main()
