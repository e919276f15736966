import math
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, H, LAYERS, MAX_LEN = 96, 64, 4, 2, 48
PROMPT_LEN, GEN_LEN, BATCH = 8, 16, 8


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)

    def forward(self, x, cache=None, pos=0):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        if cache is not None:
            k_cache, v_cache = cache
            k_cache[:B, :, pos:pos + T] = k
            v_cache[:B, :, pos:pos + T] = v
            k, v = k_cache[:B, :, :pos + T], v_cache[:B, :, :pos + T]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
        if T > 1:
            mask = torch.ones(T, k.size(2), dtype=torch.bool).tril(k.size(2) - T)
            att = att.masked_fill(~mask, float("-inf"))
        y = att.softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = Attention()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, cache=None, pos=0):
        x = x + self.attn(self.ln1(x), cache, pos)
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(MAX_LEN, D)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids, caches=None, pos=0):
        x = self.wte(ids) + self.wpe(torch.arange(pos, pos + ids.size(1)))
        for i, blk in enumerate(self.blocks):
            x = blk(x, None if caches is None else caches[i], pos)
        return self.lm_head(self.ln_f(x))


class RolloutEngine:
    def __init__(self, model, max_batch, max_len):
        self.model = model
        shape = (max_batch, H, max_len, D // H)
        self.caches = [(torch.zeros(shape), torch.zeros(shape)) for _ in range(LAYERS)]

    @torch.no_grad()
    def generate(self, prompts, n_new, temperature=1.0):
        logits = self.model(prompts, self.caches, 0)[:, -1]
        out, logps = [prompts], []
        pos = prompts.size(1)
        for _ in range(n_new):
            lp = F.log_softmax(logits.float() / temperature, -1)
            tok = torch.multinomial(lp.exp(), 1)
            logps.append(lp.gather(-1, tok))
            out.append(tok)
            logits = self.model(tok, self.caches, pos)[:, -1]
            pos += 1
        return torch.cat(out, 1), torch.cat(logps, 1)


policy = TinyGPT()
opt = torch.optim.SGD(policy.parameters(), lr=0.05, momentum=0.9)
engine = RolloutEngine(policy, BATCH, MAX_LEN)
policy.half()

for it in range(3):
    prompts = torch.randint(0, VOCAB, (BATCH, PROMPT_LEN))
    seqs, old_logp = engine.generate(prompts, GEN_LEN)
    resp = seqs[:, PROMPT_LEN:]
    reward = (resp < VOCAB // 2).float().mean(-1)
    adv = (reward - reward.mean()) / (reward.std() + 1e-6)
    logits = policy(seqs)[:, PROMPT_LEN - 1:-1].float()
    logp = F.log_softmax(logits, -1).gather(-1, resp[..., None]).squeeze(-1)
    loss = -(adv[:, None] * logp).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iter {it} reward {reward.mean():.3f} loss {loss.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(policy.state_dict(), f"{d}/policy_fp16.pt")
