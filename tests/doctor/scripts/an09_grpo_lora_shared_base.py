import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN = 64, 64, 6, 10
N_PROMPTS, GROUP, RANK = 4, 6, 8
BETA, CLIP = 0.04, 0.2


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha=16):
        super().__init__()
        self.base = base
        self.lora_a = nn.Parameter(torch.randn(rank, base.in_features) * 0.01)
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank
        self.enabled = True

    def forward(self, x):
        out = self.base(x)
        if self.enabled:
            out = out + (x @ self.lora_a.t() @ self.lora_b.t()) * self.scale
        return out


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.ff1 = nn.Linear(D, 2 * D)
        self.ff2 = nn.Linear(2 * D, D)
        self.mix = nn.GRU(D, D, batch_first=True)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        h, _ = self.mix(self.emb(ids))
        h = h + self.ff2(F.gelu(self.ff1(h)))
        return self.head(h)


def set_adapters(model, on):
    for m in model.modules():
        if isinstance(m, LoRALinear):
            m.enabled = on


model = TinyLM().to(torch.bfloat16).requires_grad_(False)
model.ff1 = LoRALinear(model.ff1, RANK)
model.ff2 = LoRALinear(model.ff2, RANK)
lora_params = [p for n, p in model.named_parameters() if "lora_" in n]
opt = torch.optim.AdamW(lora_params, lr=5e-3)


def response_logps(ids):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(ids)[:, PROMPT_LEN - 1:-1]
    logp = F.log_softmax(logits.float(), -1)
    return logp.gather(-1, ids[:, PROMPT_LEN:, None]).squeeze(-1)


@torch.no_grad()
def rollout(prompts):
    ids = prompts
    for _ in range(GEN_LEN):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(ids)[:, -1]
        ids = torch.cat([ids, torch.multinomial(F.softmax(logits.float(), -1), 1)], 1)
    return ids


for step in range(4):
    prompts = torch.randint(0, VOCAB, (N_PROMPTS, PROMPT_LEN)).repeat_interleave(GROUP, 0)
    seqs = rollout(prompts)
    rewards = torch.tensor([float(7 in s[PROMPT_LEN:].tolist()) for s in seqs])
    g = rewards.view(N_PROMPTS, GROUP)
    adv = ((g - g.mean(1, keepdim=True)) / (g.std(1, keepdim=True) + 1e-4)).view(-1, 1)
    with torch.no_grad():
        old_logp = response_logps(seqs)
        set_adapters(model, False)
        ref_logp = response_logps(seqs)
        set_adapters(model, True)

    for _ in range(2):
        logp = response_logps(seqs)
        ratio = torch.exp(logp - old_logp)
        surr = torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv)
        log_r = ref_logp - logp
        kl = torch.exp(log_r) - log_r - 1
        loss = -(surr - BETA * kl).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"step {step} reward {rewards.mean():.3f} loss {loss.item():.4f} kl {kl.mean().item():.5f}")

with tempfile.TemporaryDirectory() as d:
    torch.save({n: p for n, p in model.state_dict().items() if "lora_" in n}, f"{d}/adapter.pt")
