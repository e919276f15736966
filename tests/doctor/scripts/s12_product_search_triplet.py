import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
N_PRODUCTS, VOCAB, TITLE_LEN = 300, 1000, 8

titles = torch.randint(1, VOCAB, (N_PRODUCTS, TITLE_LEN))


def make_query(pid):
    toks = titles[pid][torch.randperm(TITLE_LEN)[:4]].clone()
    noise = torch.rand(4) < 0.25
    toks[noise] = torch.randint(1, VOCAB, (int(noise.sum()),))
    return toks


class SafeSqrt(torch.autograd.Function):
    eps = 1e-12

    @staticmethod
    def forward(ctx, x):
        out = x.clamp_min(0).sqrt()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        return grad_out / (2 * out + SafeSqrt.eps)


def pairwise_distances(emb):
    sq = 2 - 2 * emb @ emb.t()
    return SafeSqrt.apply(sq)


def batch_hard_triplet(emb, labels, margin=0.3):
    d = pairwise_distances(emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    hardest_pos = (d * (same & ~eye)).max(1).values
    hardest_neg = d.masked_fill(same, float("inf")).min(1).values
    return F.relu(hardest_pos - hardest_neg + margin).mean()


class TitleEncoder(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d, padding_idx=0)
        self.proj = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).to(self.tok.weight.dtype)
        pooled = (self.tok(ids) * mask).sum(1) / mask.sum(1).clamp_min(1)
        return F.normalize(self.proj(pooled), dim=-1)


@torch.no_grad()
def recall_at_k(model, queries, qids, k=5):
    p_emb = model(titles).float()
    q_emb = model(queries).float()
    topk = (q_emb @ p_emb.t()).topk(k, dim=1).indices
    return (topk == qids[:, None]).any(1).float().mean().item()


eval_ids = torch.randint(0, N_PRODUCTS, (400,))
eval_q = torch.stack([make_query(int(p)) for p in eval_ids])

model = TitleEncoder().half()
opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
print(f"recall@5 before: {recall_at_k(model, eval_q, eval_ids):.3f}")

for step in range(60):
    pids = torch.tensor(random.sample(range(N_PRODUCTS), 32))
    queries = torch.stack([make_query(int(p)) for p in pids])
    batch = torch.cat([queries, titles[pids][:, :4], titles[pids][:, 4:]])
    labels = torch.cat([pids, pids, pids])
    emb = model(batch)
    loss = batch_hard_triplet(emb, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 19:
        print(f"step {step + 1} triplet loss {loss.item():.4f}")

print(f"recall@5 after: {recall_at_k(model, eval_q, eval_ids):.3f}")
