import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN = 64, 64, 6, 10
N_PROMPTS, GROUP = 4, 4
ANSWER_TOKEN = 7


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(64, D)
        layer = nn.TransformerEncoderLayer(D, 4, 2 * D, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(D, VOCAB)

    @property
    def dtype(self):
        return self.head.weight.dtype

    def forward(self, ids):
        T = ids.size(1)
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        h = self.emb(ids) + self.pos(torch.arange(T))
        return self.head(self.blocks(h, mask=causal))


@torch.no_grad()
def sample(model, prompts, n_new):
    ids = prompts
    for _ in range(n_new):
        logits = model(ids)[:, -1].float()
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        ids = torch.cat([ids, nxt], 1)
    return ids


def token_logps(model, ids):
    logits = model(ids)[:, PROMPT_LEN - 1:-1]
    logp = F.log_softmax(logits, -1)
    return logp.gather(-1, ids[:, PROMPT_LEN:, None]).squeeze(-1)


def exact_match(completion):
    return 1.0 if ANSWER_TOKEN in completion.tolist() else 0.0


policy = TinyLM().half()
ref = TinyLM().half().eval()
ref.load_state_dict(policy.state_dict())
for p in ref.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(policy.parameters(), lr=1e-2)
beta, clip_eps = 0.04, 0.2

prompts = torch.randint(0, VOCAB, (N_PROMPTS, PROMPT_LEN)).repeat_interleave(GROUP, 0)
seqs = sample(policy, prompts, GEN_LEN)
with torch.no_grad():
    old_logp = token_logps(policy, seqs)
    ref_logp = token_logps(ref, seqs)
rewards = torch.tensor([exact_match(s[PROMPT_LEN:]) for s in seqs], dtype=policy.dtype)

grouped = rewards.view(N_PROMPTS, GROUP)
mean = grouped.mean(1, keepdim=True)
std = grouped.std(1, keepdim=True)
adv = ((grouped - mean) / (std + 1e-8)).view(-1, 1)
print(f"mean_reward {rewards.float().mean():.3f}")

for epoch in range(3):
    logp = token_logps(policy, seqs)
    ratio = torch.exp(logp - old_logp)
    surr = torch.min(ratio * adv, ratio.clamp(1 - clip_eps, 1 + clip_eps) * adv)
    log_r = ref_logp - logp
    kl = torch.exp(log_r) - log_r - 1
    loss = -(surr - beta * kl).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f} kl {kl.float().mean().item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(policy.state_dict(), f"{d}/grpo_policy.pt")
