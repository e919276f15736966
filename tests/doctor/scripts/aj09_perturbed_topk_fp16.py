import torch
import torch.nn as nn

torch.manual_seed(0)
N_ITEMS, FEAT, K, N_SAMPLES, SIGMA = 20, 16, 5, 32, 0.5
LOSS_SCALE = 65536.0


class PerturbedTopK(torch.autograd.Function):
    @staticmethod
    def forward(ctx, theta, k, n_samples, sigma):
        noise = torch.randn(n_samples, *theta.shape, dtype=theta.dtype)
        perturbed = theta.unsqueeze(0) + sigma * noise
        idx = perturbed.topk(k, dim=-1).indices
        onehot = torch.zeros_like(perturbed).scatter_(-1, idx, 1.0)
        ctx.save_for_backward(onehot, noise)
        ctx.sigma = sigma
        return onehot.mean(0)

    @staticmethod
    def backward(ctx, grad_out):
        onehot, noise = ctx.saved_tensors
        jac = torch.einsum("sbn,sbm->bnm", onehot, noise) / (onehot.size(0) * ctx.sigma)
        return torch.einsum("bn,bnm->bm", grad_out, jac), None, None, None


class ItemScorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(FEAT, 64), nn.GELU(), nn.Linear(64, 1))

    def forward(self, feats):
        return self.net(feats).squeeze(-1)


def make_batch(bs):
    feats = torch.randn(bs, N_ITEMS, FEAT)
    utility = feats[..., :4].sum(-1) + 0.1 * torch.randn(bs, N_ITEMS)
    target = torch.zeros(bs, N_ITEMS).scatter_(-1, utility.topk(K, dim=-1).indices, 1.0)
    return feats, target


model = ItemScorer().half()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

for step in range(30):
    feats, target = make_batch(32)
    feats, target = feats.half(), target.half()
    theta = model(feats)
    soft_sel = PerturbedTopK.apply(theta, K, N_SAMPLES, SIGMA)
    loss = ((soft_sel - target) ** 2).sum(-1).mean() + 1e-3 * theta.pow(2).mean()
    opt.zero_grad()
    (loss * LOSS_SCALE).backward()
    for p in model.parameters():
        p.grad.div_(LOSS_SCALE)
    opt.step()
    if step % 5 == 0:
        with torch.no_grad():
            hits = (model(feats).topk(K, -1).indices.unsqueeze(-1) == target.topk(K, -1).indices.unsqueeze(-2)).any(-1)
        print(f"step {step} loss {loss.item():.4f} recall@{K} {hits.float().mean().item():.3f}")
