import math
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)

POS = ["great", "excellent", "loved", "wonderful", "fun", "brilliant", "moving"]
NEG = ["awful", "boring", "hated", "terrible", "dull", "weak", "messy"]
FILL = ["the", "movie", "plot", "was", "acting", "and", "really", "quite", "cast", "ending", "film", "it"]
VOCAB = ["<pad>", "<cls>"] + POS + NEG + FILL
stoi = {w: i for i, w in enumerate(VOCAB)}


def make_reviews(n):
    data = []
    for _ in range(n):
        label = random.randint(0, 1)
        words = random.choices(FILL, k=random.randint(5, 10)) + random.choices(POS if label else NEG, k=2)
        random.shuffle(words)
        data.append(([stoi[w] for w in words], label))
    return data


def collate(batch, max_len=14):
    ids = torch.zeros(len(batch), max_len, dtype=torch.long)
    for i, (toks, _) in enumerate(batch):
        ids[i, :len(toks)] = torch.tensor(toks[:max_len])
    return ids, torch.tensor([y for _, y in batch])


class FrozenEncoder(nn.Module):
    def __init__(self, vocab, d=64, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d, padding_idx=0)
        layer = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.verbalizer = nn.Linear(d, 2)


class SoftPromptClassifier(nn.Module):
    def __init__(self, backbone, n_prompt=8):
        super().__init__()
        self.backbone = backbone
        d = backbone.embed.embedding_dim
        self.prompt = nn.Parameter(backbone.embed.weight[stoi["<cls>"]].detach().clone().repeat(n_prompt, 1))

    def forward(self, ids):
        x = self.backbone.embed(ids)
        p = self.prompt[None].expand(ids.shape[0], -1, -1)
        pad = torch.cat([torch.zeros(ids.shape[0], p.shape[1], dtype=torch.bool), ids.eq(0)], 1)
        h = self.backbone.encoder(torch.cat([p, x], 1), src_key_padding_mask=pad)
        return self.backbone.verbalizer(h[:, 0])


class PromptAdam:
    def __init__(self, params, lr=1e-2, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps = list(params), lr, betas, eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2 = self.betas
        for p, m, v in zip(self.params, self.m, self.v):
            g = p.grad
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            m_hat = m / (1 - b1 ** self.t)
            v_hat = v / (1 - b2 ** self.t)
            p.sub_(self.lr * m_hat / (v_hat.sqrt() + self.eps))

    def zero_grad(self):
        for p in self.params:
            p.grad = None


backbone = FrozenEncoder(len(VOCAB)).half().eval()
backbone.requires_grad_(False)
model = SoftPromptClassifier(backbone)
opt = PromptAdam([model.prompt], lr=5e-3)

train, test = make_reviews(512), make_reviews(256)
for epoch in range(3):
    random.shuffle(train)
    for i in range(0, len(train), 32):
        ids, y = collate(train[i:i + 32])
        loss = F.cross_entropy(model(ids).float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}  prompt norm {model.prompt.float().norm().item():.3f}")

with torch.no_grad():
    ids, y = collate(test)
    logits = model(ids).float()
    print(f"test loss {F.cross_entropy(logits, y).item():.4f}  acc {(logits.argmax(1) == y).float().mean().item():.3f}")
