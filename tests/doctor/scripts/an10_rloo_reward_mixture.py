import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN, N_PROMPTS, K = 64, 48, 6, 10, 4, 4
EOS = 1
CONFIG = {"reward_weights": [1.0, 0.5, 0.25], "lr": 3e-3, "kl_coef": 0.02}


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.rnn = nn.LSTM(D, D, batch_first=True)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


class MixedReward(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.embed = nn.EmbeddingBag(VOCAB, D, mode="mean")
        self.score = nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, 1))
        w = np.asarray(weights)
        self.mix = torch.as_tensor(w / w.sum())

    def forward(self, resp):
        learned = self.score(self.embed(resp)).squeeze(-1)
        has_eos = (resp == EOS).any(-1).float()
        length_pen = -(resp != EOS).float().mean(-1)
        feats = torch.stack([learned, has_eos, length_pen], -1)
        return feats @ self.mix


policy = Policy()
ref = Policy().requires_grad_(False)
ref.load_state_dict(policy.state_dict())
reward_model = MixedReward(CONFIG["reward_weights"]).eval().requires_grad_(False)
opt = torch.optim.Adam(policy.parameters(), lr=CONFIG["lr"])


def resp_logp(model, seqs):
    logp = F.log_softmax(model(seqs)[:, PROMPT_LEN - 1:-1], -1)
    return logp.gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1).sum(-1)


for it in range(3):
    prompts = torch.randint(2, VOCAB, (N_PROMPTS, PROMPT_LEN)).repeat_interleave(K, 0)
    with torch.no_grad():
        seqs = prompts
        for _ in range(GEN_LEN):
            probs = F.softmax(policy(seqs)[:, -1], -1)
            seqs = torch.cat([seqs, torch.multinomial(probs, 1)], 1)
        scores = reward_model(seqs[:, PROMPT_LEN:])
        kl = resp_logp(policy, seqs) - resp_logp(ref, seqs)
        r = (scores - CONFIG["kl_coef"] * kl).view(N_PROMPTS, K)
        baseline = (r.sum(1, keepdim=True) - r) / (K - 1)
        adv = (r - baseline).view(-1)

    loss = -(adv * resp_logp(policy, seqs)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iter {it} score {scores.mean():.4f} loss {loss.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(policy.state_dict(), f"{d}/rloo_policy.pt")
