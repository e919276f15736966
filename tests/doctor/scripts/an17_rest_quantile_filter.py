import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN, N_PROMPTS, K = 80, 64, 6, 12, 8, 8
KEEP_TOP = 0.25


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(32, D)
        layer = nn.TransformerEncoderLayer(D, 4, 4 * D, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        T = ids.size(1)
        h = self.embed(ids) + self.pos(torch.arange(T))
        h = self.blocks(h, mask=nn.Transformer.generate_square_subsequent_mask(T), is_causal=True)
        return self.head(h)


class RewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.rnn = nn.GRU(D, D, batch_first=True)
        self.score = nn.Linear(D, 1)

    def forward(self, ids):
        h, _ = self.rnn(self.embed(ids))
        return self.score(h[:, -1]).squeeze(-1)


policy = TinyLM()
reward_model = RewardModel().eval()
opt = torch.optim.AdamW(policy.parameters(), lr=1e-3)


@torch.no_grad()
def sample(prompts):
    ids = prompts
    for _ in range(GEN_LEN):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = policy(ids)[:, -1]
        ids = torch.cat([ids, torch.multinomial(F.softmax(logits.float(), -1), 1)], 1)
    return ids


for rnd in range(3):
    prompts = torch.randint(0, VOCAB, (N_PROMPTS, PROMPT_LEN)).repeat_interleave(K, 0)
    seqs = sample(prompts)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        scores = reward_model(seqs)
    threshold = torch.quantile(scores, 1 - KEEP_TOP)
    keep = seqs[scores >= threshold]

    for _ in range(2):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = policy(keep[:, :-1])
        loss = F.cross_entropy(logits[:, PROMPT_LEN - 1:].float().reshape(-1, VOCAB),
                               keep[:, PROMPT_LEN:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"round {rnd} mean score {scores.float().mean():.4f} kept {len(keep)} sft loss {loss.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(policy.state_dict(), f"{d}/rest_policy.pt")
