import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, S_LEN, T_LEN, BATCH = 30, 64, 10, 10, 32


def copy_batch(bs):
    src = torch.randint(3, V, (bs, S_LEN))
    tgt_in = torch.cat([torch.ones(bs, 1, dtype=torch.long), src[:, :-1]], dim=1)
    return src, tgt_in, src


def safe_cumprod_exclusive(x):
    logs = torch.log(x)
    return torch.exp(F.pad(logs.cumsum(-1), (1, 0))[..., :-1])


class MonotonicAligner(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, D)
        self.tgt_emb = nn.Embedding(V, D)
        self.src_pos = nn.Parameter(torch.randn(S_LEN, D) * 0.1)
        self.tgt_pos = nn.Parameter(torch.randn(T_LEN, D) * 0.1)
        self.enc = nn.Sequential(nn.Linear(D, D), nn.Tanh())
        self.query = nn.Linear(D, D)
        self.key = nn.Linear(D, D)
        self.energy_scale = nn.Parameter(torch.tensor(10.0))
        self.energy_bias = nn.Parameter(torch.tensor(-2.0))
        self.out = nn.Linear(2 * D, V)

    def forward(self, src, tgt_in):
        h = self.enc(self.src_emb(src) + self.src_pos)
        q = self.query(self.tgt_emb(tgt_in) + self.tgt_pos)
        energy = self.energy_scale * torch.einsum(
            "btd,bsd->bts", F.normalize(q, dim=-1), F.normalize(self.key(h), dim=-1)) + self.energy_bias
        p_choose = torch.sigmoid(energy)
        prev = F.one_hot(torch.zeros(src.size(0), dtype=torch.long), S_LEN).to(p_choose.dtype)
        alphas = []
        for i in range(tgt_in.size(1)):
            p = p_choose[:, i]
            cp = safe_cumprod_exclusive(1 - p)
            alpha = p * cp * torch.cumsum(prev / cp, dim=-1)
            alphas.append(alpha)
            prev = alpha
        alphas = torch.stack(alphas, dim=1)
        context = alphas @ h
        return self.out(torch.cat([q, context], dim=-1)), alphas


model = MonotonicAligner()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(80):
    src, tgt_in, tgt_out = copy_batch(BATCH)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, alphas = model(src, tgt_in)
        loss = F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        diag = alphas.float().diagonal(dim1=1, dim2=2).mean().item()
        print(f"step {step} xent {loss.item():.4f} diag-mass {diag:.3f}")
