import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN = 64, 64, 6, 12
N_PROMPTS, GROUP, BETA = 6, 8, 0.1


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(32, D)
        self.block = nn.TransformerEncoderLayer(D, 4, 2 * D, dropout=0.0, batch_first=True)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        T = ids.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(T, dtype=self.head.weight.dtype)
        h = self.embed(ids) + self.pos(torch.arange(T))
        return self.head(self.block(h, src_mask=mask, is_causal=True))


class RewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.mlp = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.Linear(D, 1))

    def forward(self, ids):
        return self.mlp(self.embed(ids).mean(1)).squeeze(-1)


policy = TinyLM().half()
reward_model = RewardModel().half().eval()
opt = torch.optim.SGD(policy.parameters(), lr=0.1)

prompts = torch.randint(0, VOCAB, (N_PROMPTS, PROMPT_LEN)).repeat_interleave(GROUP, 0)
with torch.no_grad():
    seqs = prompts
    for _ in range(GEN_LEN):
        probs = F.softmax(policy(seqs)[:, -1].float(), -1)
        seqs = torch.cat([seqs, torch.multinomial(probs, 1)], 1)
    scores = reward_model(seqs[:, PROMPT_LEN:]).view(N_PROMPTS, GROUP)
    adv = (scores - scores.mean(1, keepdim=True)) / (scores.std(1, keepdim=True) + 1e-5)
    w = torch.exp(adv / BETA)
    weights = (w / w.sum(1, keepdim=True)).view(-1)
print(f"mean score {scores.float().mean():.4f} max weight {weights.float().max():.4f}")

for epoch in range(3):
    logits = policy(seqs)[:, PROMPT_LEN - 1:-1]
    logp = F.log_softmax(logits.float(), -1).gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1)
    loss = -(weights[:, None] * logp).sum(0).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} rwr loss {loss.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(policy.state_dict(), f"{d}/rwr_policy.pt")
