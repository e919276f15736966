import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T, C, D, GAMMA = 16, 3, 24, 0.1


class SoftDTW(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, gamma):
        dist = (x * x).sum(-1).unsqueeze(2) + (y * y).sum(-1).unsqueeze(1) - 2 * torch.bmm(x, y.transpose(1, 2))
        dist = dist.float()
        B, N, M = dist.shape
        R = torch.full((B, N + 2, M + 2), float("inf"))
        R[:, 0, 0] = 0.0
        for i in range(1, N + 1):
            for j in range(1, M + 1):
                prev = torch.stack([R[:, i - 1, j - 1], R[:, i - 1, j], R[:, i, j - 1]], dim=-1)
                R[:, i, j] = dist[:, i - 1, j - 1] - gamma * torch.logsumexp(-prev / gamma, dim=-1)
        ctx.save_for_backward(x, y, dist, R)
        ctx.gamma = gamma
        return R[:, N, M]

    @staticmethod
    def backward(ctx, grad_out):
        x, y, dist, R = ctx.saved_tensors
        gamma = ctx.gamma
        B, N, M = dist.shape
        Dp = F.pad(dist, (1, 1, 1, 1))
        R = R.clone()
        R[:, :, M + 1] = -float("inf")
        R[:, N + 1, :] = -float("inf")
        R[:, N + 1, M + 1] = R[:, N, M]
        E = torch.zeros(B, N + 2, M + 2)
        E[:, N + 1, M + 1] = 1.0
        for j in range(M, 0, -1):
            for i in range(N, 0, -1):
                a = torch.exp((R[:, i + 1, j] - R[:, i, j] - Dp[:, i + 1, j]) / gamma)
                b = torch.exp((R[:, i, j + 1] - R[:, i, j] - Dp[:, i, j + 1]) / gamma)
                c = torch.exp((R[:, i + 1, j + 1] - R[:, i, j] - Dp[:, i + 1, j + 1]) / gamma)
                E[:, i, j] = E[:, i + 1, j] * a + E[:, i, j + 1] * b + E[:, i + 1, j + 1] * c
        E = E[:, 1:N + 1, 1:M + 1] * grad_out.view(-1, 1, 1)
        grad_x = 2 * (E.sum(2, keepdim=True) * x - torch.bmm(E, y))
        grad_y = 2 * (E.sum(1).unsqueeze(-1) * y - torch.bmm(E.transpose(1, 2), x))
        return grad_x, grad_y, None


class SeriesEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(C, D, kernel_size=5, padding=2)
        self.proj = nn.Linear(D, D)

    def forward(self, s):
        h = F.gelu(self.conv(s.transpose(1, 2))).transpose(1, 2)
        return F.normalize(self.proj(h), dim=-1)


def make_triplets(bs):
    t = torch.linspace(0, 1, T)
    freq = torch.randint(1, 4, (bs, 1)).float()
    warp = lambda: (t + 0.1 * torch.sin(6.28 * torch.rand(bs, 1) + 3 * t)).clamp(0, 1)
    sig = lambda f, tt: torch.stack([torch.sin(6.28 * f * tt), torch.cos(6.28 * f * tt), tt.expand_as(f * tt)], -1)
    anchor, pos = sig(freq, warp()), sig(freq, warp())
    neg = sig(freq % 3 + 1, warp())
    return anchor, pos, neg


model = SeriesEncoder()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(12):
    a, p, n = make_triplets(16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        za, zp, zn = model(a), model(p), model(n)
        d_pos = SoftDTW.apply(za, zp, GAMMA)
        d_neg = SoftDTW.apply(za, zn, GAMMA)
    loss = F.relu(d_pos - d_neg + 1.0).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} triplet loss {loss.item():.4f} d+ {d_pos.mean().item():.3f} d- {d_neg.mean().item():.3f}")
