import torch
import torch.nn as nn

torch.manual_seed(0)
N_ITEMS, FEAT, TAU = 12, 10, 1.0


def neural_sort(scores, tau):
    n = scores.size(-1)
    s = scores.unsqueeze(-1)
    pairwise = torch.cdist(s, s, p=1)
    b = pairwise.sum(-1, keepdim=True).transpose(1, 2)
    scaling = (n + 1 - 2 * torch.arange(1, n + 1, dtype=scores.dtype)).unsqueeze(-1)
    logits = (scaling * s.transpose(1, 2) - b) / tau
    return torch.softmax(logits, dim=-1)


def make_batch(bs):
    feats = torch.randn(bs, N_ITEMS, FEAT)
    relevance = feats @ torch.linspace(1.0, -1.0, FEAT) + 0.1 * torch.randn(bs, N_ITEMS)
    order = relevance.argsort(dim=-1, descending=True)
    perm = torch.zeros(bs, N_ITEMS, N_ITEMS).scatter_(2, order.unsqueeze(-1), 1.0)
    return feats, perm, order


class ListwiseRanker(nn.Module):
    def __init__(self):
        super().__init__()
        self.item = nn.Sequential(nn.Linear(FEAT, 64), nn.SiLU(), nn.Linear(64, 64))
        self.attn = nn.MultiheadAttention(64, 4, batch_first=True)
        self.score = nn.Linear(64, 1)

    def forward(self, feats):
        h = self.item(feats)
        h = h + self.attn(h, h, h, need_weights=False)[0]
        return self.score(h).squeeze(-1)


def ndcg_at_k(scores, order, k=5):
    pred = scores.argsort(-1, descending=True)[:, :k]
    gains = torch.zeros_like(scores, dtype=torch.float32)
    gains.scatter_(1, order, torch.linspace(1.0, 0.0, scores.size(-1)).expand_as(gains).contiguous())
    disc = 1.0 / torch.log2(torch.arange(2, k + 2, dtype=torch.float32))
    dcg = (gains.gather(1, pred) * disc).sum(-1)
    ideal = (gains.sort(-1, descending=True).values[:, :k] * disc).sum(-1)
    return (dcg / ideal).mean().item()


model = ListwiseRanker().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(4):
    for _ in range(10):
        feats, perm, order = make_batch(32)
        p_hat = neural_sort(model(feats.half()), TAU)
        loss = -(perm.half() * torch.log(p_hat + 1e-3)).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        feats, perm, order = make_batch(128)
        print(f"epoch {epoch} loss {loss.item():.4f} ndcg@5 {ndcg_at_k(model(feats.half()).float(), order):.3f}")
