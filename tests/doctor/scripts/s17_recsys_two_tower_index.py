import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_USERS, N_ITEMS, N_GENRES, D = 300, 1500, 12, 64

item_genre = torch.randint(0, N_GENRES, (N_ITEMS,))
user_taste = torch.softmax(torch.randn(N_USERS, N_GENRES) * 2.0, dim=1)


def sample_interactions(n):
    users = torch.randint(0, N_USERS, (n,))
    genres = torch.multinomial(user_taste[users], 1).squeeze(1)
    items = torch.stack([torch.nonzero(item_genre == g).squeeze(1)[torch.randint(0, int((item_genre == g).sum()), (1,))]
                         for g in genres.tolist()]).squeeze(1)
    return users, items


class Tower(nn.Module):
    def __init__(self, n, side=None, d=D):
        super().__init__()
        self.emb = nn.Embedding(n, d)
        self.side = side
        self.side_emb = nn.Embedding(int(side.max()) + 1, d) if side is not None else None
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, ids):
        e = self.emb(ids)
        if self.side_emb is not None:
            e = e + self.side_emb(self.side[ids])
        return e + self.mlp(e)


user_tower, item_tower = Tower(N_USERS), Tower(N_ITEMS, side=item_genre)
params = list(user_tower.parameters()) + list(item_tower.parameters())
opt = torch.optim.Adam(params, lr=5e-3)
for step in range(300):
    u, i = sample_interactions(256)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        qu, qi = user_tower(u), item_tower(i)
    logits = F.normalize(qu.float(), dim=-1) @ F.normalize(qi.float(), dim=-1).t() / 0.07
    loss = F.cross_entropy(logits, torch.arange(len(u)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 99:
        print(f"step {step + 1} in-batch softmax loss {loss.item():.4f}")

user_tower.to(torch.bfloat16).eval()
item_tower.to(torch.bfloat16).eval()


@torch.inference_mode()
def build_int8_index(tower, batch=512):
    chunks = []
    for s in range(0, N_ITEMS, batch):
        chunks.append(F.normalize(tower(torch.arange(s, min(s + batch, N_ITEMS))).float(), dim=-1))
    emb = torch.cat(chunks)
    scale = emb.abs().amax(dim=1, keepdim=True) / 127.0
    codes = torch.round(emb / scale).clamp(-127, 127).to(torch.int8)
    return codes, scale


@torch.inference_mode()
def search(user_ids, codes, scale, k=20):
    q = F.normalize(user_tower(user_ids).float(), dim=-1)
    items = codes.float() * scale
    sims = q @ items.t()
    return sims.topk(k, dim=1)


codes, scale = build_int8_index(item_tower)
print(f"index: {codes.numel()} int8 codes ({codes.element_size() * codes.numel() / 1e3:.0f} kB), scales {scale.dtype}")

test_u, test_i = sample_interactions(1000)
top_scores, top_items = search(test_u, codes, scale)
recall = (top_items == test_i[:, None]).any(1).float().mean().item()
genre_hit = (item_genre[top_items] == item_genre[test_i][:, None]).float().mean().item()
print(f"recall@20 {recall:.3f}  genre precision@20 {genre_hit:.3f}  "
      f"score range [{top_scores.min().item():.3f}, {top_scores.max().item():.3f}]  "
      f"finite={bool(torch.isfinite(top_scores).all())}")
