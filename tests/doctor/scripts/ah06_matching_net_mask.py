import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_WAY, MAX_SHOT, N_QUERY, DIM = 5, 5, 4, 20


def sample_episode(batch=4):
    sup_x = torch.zeros(batch, N_WAY * MAX_SHOT, DIM)
    sup_y = torch.zeros(batch, N_WAY * MAX_SHOT, dtype=torch.long)
    sup_mask = torch.zeros(batch, N_WAY * MAX_SHOT)
    qry_x, qry_y = [], []
    for b in range(batch):
        centers = torch.randn(N_WAY, DIM) * 2
        shots = torch.randint(1, MAX_SHOT + 1, (N_WAY,))
        pos = 0
        for c in range(N_WAY):
            k = int(shots[c])
            sup_x[b, pos:pos + k] = centers[c] + 0.7 * torch.randn(k, DIM)
            sup_y[b, pos:pos + k] = c
            sup_mask[b, pos:pos + k] = 1
            pos += k
        yq = torch.arange(N_WAY).repeat_interleave(N_QUERY)
        qry_x.append(centers[yq] + 0.7 * torch.randn(len(yq), DIM))
        qry_y.append(yq)
    return sup_x, sup_y, sup_mask, torch.stack(qry_x), torch.stack(qry_y)


class MatchingNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(DIM, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.attn = SupportAttention(hidden)

    def forward(self, sup_x, sup_y, sup_mask, qry_x):
        s = self.encoder(sup_x)
        q = self.encoder(qry_x)
        return self.attn(q, s, sup_y, sup_mask)


class SupportAttention(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.temperature = nn.Parameter(torch.tensor(10.0))
        self.register_buffer("mask_value", torch.tensor(-1e9))

    def forward(self, q, s, sup_y, sup_mask):
        sims = torch.einsum("bqd,bsd->bqs", F.normalize(q, dim=-1), F.normalize(s, dim=-1))
        sims = self.temperature * sims + (1 - sup_mask[:, None, :]) * self.mask_value
        attn = sims.softmax(-1)
        onehot = F.one_hot(sup_y, N_WAY).to(attn.dtype)
        return attn @ onehot


model = MatchingNet().half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)

for step in range(50):
    sup_x, sup_y, sup_mask, qry_x, qry_y = sample_episode()
    probs = model(sup_x.half(), sup_y, sup_mask.half(), qry_x.half())
    loss = F.nll_loss(probs.float().clamp_min(1e-6).log().flatten(0, 1), qry_y.flatten())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        acc = (probs.argmax(-1) == qry_y).float().mean().item()
        print(f"step {step:3d}  loss {loss.item():.4f}  acc {acc:.3f}")

model.eval()
with torch.no_grad():
    sup_x, sup_y, sup_mask, qry_x, qry_y = sample_episode(batch=16)
    probs = model(sup_x.half(), sup_y, sup_mask.half(), qry_x.half())
    acc = (probs.argmax(-1) == qry_y).float().mean().item()
    print(f"eval acc {acc:.3f}  mean max prob {probs.max(-1).values.float().mean().item():.4f}")
