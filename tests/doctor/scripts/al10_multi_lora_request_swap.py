import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, RANK = 512, 128, 4, 2, 8


class LoRALinear(nn.Module):
    def __init__(self, d_in, d_out, rank=RANK, alpha=16):
        super().__init__()
        self.base = nn.Linear(d_in, d_out, bias=False)
        self.lora_A = nn.Parameter(torch.zeros(rank, d_in))
        self.lora_B = nn.Parameter(torch.zeros(d_out, rank))
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scaling


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.q_proj, self.v_proj = LoRALinear(D, D), LoRALinear(D, D)
        self.k_proj, self.o_proj = nn.Linear(D, D, bias=False), nn.Linear(D, D, bias=False)
        self.ffn = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        b, t, _ = x.shape
        h = self.norm1(x)
        q, k, v = (p(h).view(b, t, HEADS, -1).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, t, D))
        return x + self.ffn(self.norm2(x))


class AdapterLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        x = self.embed(ids)
        for blk in self.blocks:
            x = blk(x)
        return self.lm_head(self.norm(x))


def lora_state(model):
    return {k: v for k, v in model.state_dict().items() if "lora_" in k}


adapter_dir = tempfile.mkdtemp(prefix="adapters_")
for name in ("support-bot", "sql-writer", "poet"):
    sd = {k: torch.randn_like(v) * 0.02 for k, v in lora_state(AdapterLM()).items()}
    torch.save(sd, os.path.join(adapter_dir, f"{name}.pt"))


class AdapterServer:
    def __init__(self, model, adapter_dir):
        self.model, self.dir, self.active = model, adapter_dir, None
        self.zero = {k: torch.zeros_like(v) for k, v in lora_state(model).items()}

    def activate(self, name):
        if name == self.active:
            return
        sd = self.zero if name is None else torch.load(os.path.join(self.dir, f"{name}.pt"))
        self.model.load_state_dict(sd, strict=False, assign=True)
        self.active = name

    @torch.no_grad()
    def generate(self, ids, max_new=16, temperature=0.7):
        for _ in range(max_new):
            logits = self.model(ids)[:, -1].float() / temperature
            nxt = torch.multinomial(torch.softmax(logits, -1), 1)
            ids = torch.cat([ids, nxt], dim=1)
        return ids


model = AdapterLM().half().eval()
server = AdapterServer(model, adapter_dir)
requests = [("support-bot", 10), (None, 6), ("sql-writer", 8), ("poet", 12), ("support-bot", 5)]
for i, (adapter, plen) in enumerate(requests):
    server.activate(adapter)
    prompt = torch.randint(0, VOCAB, (1, plen))
    out = server.generate(prompt)
    with torch.no_grad():
        logp = F.log_softmax(model(out)[:, :-1].float(), -1).gather(-1, out[:, 1:, None]).squeeze(-1)
    print(f"request {i} [{adapter}]: {out[0, plen:].tolist()} mean logprob {logp[:, plen - 1:].mean().item():.4f}")
