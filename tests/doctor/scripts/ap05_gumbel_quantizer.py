import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureEncoder(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv1d(1, dim, 10, stride=5), nn.GELU(),
            nn.Conv1d(dim, dim, 3, stride=2), nn.GELU(),
            nn.Conv1d(dim, dim, 3, stride=2), nn.GELU(),
        )
        self.norm = nn.LayerNorm(dim)

    def forward(self, wav):
        return self.norm(self.layers(wav.unsqueeze(1)).transpose(1, 2))


class GumbelQuantizer(nn.Module):
    def __init__(self, dim, groups=2, entries=64, code_dim=32):
        super().__init__()
        self.groups, self.entries = groups, entries
        self.weight_proj = nn.Linear(dim, groups * entries)
        self.codebook = nn.Parameter(torch.randn(groups * entries, code_dim // groups))
        nn.init.normal_(self.weight_proj.weight, std=1.0)
        self.tau = 0.5

    def forward(self, z):
        B, T, _ = z.shape
        logits = self.weight_proj(z).view(B * T, self.groups, self.entries)
        u = torch.rand(logits.shape).clamp(1e-6, 1 - 1e-6)
        g = (-torch.log(-torch.log(u))).to(logits.dtype)
        y = torch.exp((logits + g) / self.tau)
        soft = y / y.sum(-1, keepdim=True)
        hard = F.one_hot(soft.argmax(-1), self.entries).to(soft.dtype)
        probs = hard - soft.detach() + soft
        avg_probs = torch.softmax(logits.float(), -1).mean(0)
        perplexity = torch.exp(-(avg_probs * torch.log(avg_probs + 1e-7)).sum(-1)).sum()
        codes = probs.view(B * T, -1, 1) * self.codebook.view(1, -1, self.codebook.shape[-1])
        codes = codes.view(B * T, self.groups, self.entries, -1).sum(2).reshape(B, T, -1)
        return codes, perplexity


class ContextNet(nn.Module):
    def __init__(self, dim=64, code_dim=32):
        super().__init__()
        self.encoder = FeatureEncoder(dim)
        self.quantizer = GumbelQuantizer(dim, code_dim=code_dim)
        self.mask_emb = nn.Parameter(torch.zeros(dim))
        layer = nn.TransformerEncoderLayer(dim, 4, 128, dropout=0.0, batch_first=True)
        self.context = nn.TransformerEncoder(layer, 2)
        self.final_proj = nn.Linear(dim, code_dim)

    def forward(self, wav, mask):
        z = self.encoder(wav)
        q, ppl = self.quantizer(z)
        x = torch.where(mask.unsqueeze(-1), self.mask_emb.to(z.dtype), z)
        c = self.final_proj(self.context(x))
        return c, q, ppl


def contrastive_loss(c, q, mask, n_neg=8, temp=0.1):
    B, T, D = q.shape
    neg_idx = torch.randint(0, T, (B, T, n_neg))
    negs = torch.gather(q.unsqueeze(1).expand(B, T, T, D), 2, neg_idx.unsqueeze(-1).expand(-1, -1, -1, D))
    cands = torch.cat([q.unsqueeze(2), negs], dim=2)
    sims = F.cosine_similarity(c.unsqueeze(2).float(), cands.float(), dim=-1) / temp
    target = torch.zeros(B, T, dtype=torch.long)
    return F.cross_entropy(sims[mask], target[mask])


def make_mask(B, T, p=0.3, span=3):
    mask = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        starts = torch.nonzero(torch.rand(T - span) < p / span).flatten()
        for s in starts.tolist():
            mask[b, s:s + span] = True
        mask[b, 0] = True
    return mask


def main():
    torch.manual_seed(0)
    model = ContextNet().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    n_codes = model.quantizer.groups * model.quantizer.entries
    for step in range(6):
        wav = torch.randn(4, 3200)
        wav = (wav / wav.std(dim=-1, keepdim=True)).half()
        with torch.no_grad():
            T = model.encoder(wav).shape[1]
        mask = make_mask(4, T)
        c, q, ppl = model(wav, mask)
        loss_c = contrastive_loss(c, q, mask)
        loss_d = (n_codes - ppl) / n_codes
        loss = loss_c + 0.1 * loss_d
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f} contrastive {loss_c.item():.4f} perplexity {ppl.item():.1f}")


if __name__ == "__main__":
    main()
