"""PPO with a value head on a bf16 GPT-2 policy, with a preallocated rollout buffer.

Rollouts are collected in mini-batches and written into a fixed-size buffer;
afterwards GAE is computed over the buffer and a few PPO epochs are run.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)

VOCAB = 160
PROMPT_LEN = 6
RESP_LEN = 10
ROLLOUT_BS = 4
N_ROLLOUT_BATCHES = 3
CAPACITY = ROLLOUT_BS * N_ROLLOUT_BATCHES
GAMMA, LAM = 1.0, 0.95
KL_COEF = 0.05


class PolicyWithValue(nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm
        self.v_head = nn.Linear(lm.config.n_embd, 1)

    def forward(self, ids):
        out = self.lm(input_ids=ids, output_hidden_states=True)
        values = self.v_head(out.hidden_states[-1]).squeeze(-1)
        return out.logits, values


class RolloutBuffer:
    def __init__(self, capacity, resp_len):
        self.ids = torch.zeros(capacity, PROMPT_LEN + resp_len, dtype=torch.long)
        self.logprobs = torch.zeros(capacity, resp_len)
        self.ref_logprobs = torch.zeros(capacity, resp_len)
        self.values = torch.zeros(capacity, resp_len)
        self.scores = torch.zeros(capacity)
        self.ptr = 0

    def add(self, ids, logprobs, ref_logprobs, values, scores):
        n = ids.size(0)
        idx = torch.arange(self.ptr, self.ptr + n)
        self.ids[idx] = ids
        self.logprobs[idx] = logprobs
        self.ref_logprobs[idx] = ref_logprobs
        self.values[idx] = values
        self.scores[idx] = scores
        self.ptr += n


def response_logprobs(logits, ids):
    logits = logits[:, PROMPT_LEN - 1 : -1]
    tgt = ids[:, PROMPT_LEN:]
    return torch.gather(F.log_softmax(logits, -1), 2, tgt.unsqueeze(-1)).squeeze(-1)


def score_fn(resp):
    # toy reward: fraction of even tokens
    return (resp % 2 == 0).float().mean(-1) * 2 - 1


def gae(rewards, values):
    T = rewards.size(1)
    adv = torch.zeros_like(rewards)
    last = torch.zeros(rewards.size(0))
    for t in reversed(range(T)):
        nv = values[:, t + 1] if t + 1 < T else torch.zeros(rewards.size(0))
        delta = rewards[:, t] + GAMMA * nv - values[:, t]
        last = delta + GAMMA * LAM * last
        adv[:, t] = last
    return adv, adv + values


def main():
    cfg = GPT2Config(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64)
    model = PolicyWithValue(GPT2LMHeadModel(cfg)).to(torch.bfloat16)
    ref = GPT2LMHeadModel(cfg).to(torch.bfloat16)
    ref.load_state_dict(model.lm.state_dict())
    ref.eval()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)

    buf = RolloutBuffer(CAPACITY, RESP_LEN)
    model.eval()
    with torch.no_grad():
        for _ in range(N_ROLLOUT_BATCHES):
            ids = torch.randint(3, VOCAB, (ROLLOUT_BS, PROMPT_LEN))
            for _ in range(RESP_LEN):
                logits, _ = model(ids)
                nxt = torch.multinomial(F.softmax(logits[:, -1].float(), -1), 1)
                ids = torch.cat([ids, nxt], 1)
            logits, values = model(ids)
            logp = response_logprobs(logits, ids)
            ref_logp = response_logprobs(ref(input_ids=ids).logits, ids)
            vals = values[:, PROMPT_LEN - 1 : -1]
            buf.add(ids, logp, ref_logp, vals, score_fn(ids[:, PROMPT_LEN:]))

    rewards = -KL_COEF * (buf.logprobs - buf.ref_logprobs)
    rewards[:, -1] += buf.scores
    adv, returns = gae(rewards, buf.values)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)

    model.train()
    for epoch in range(2):
        logits, values = model(buf.ids)
        logp = response_logprobs(logits, buf.ids).float()
        v = values[:, PROMPT_LEN - 1 : -1].float()
        ratio = torch.exp(logp - buf.logprobs)
        pg = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2)).mean()
        vf = 0.5 * ((v - returns) ** 2).mean()
        loss = pg + 0.1 * vf
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch} pg {pg.item():.4f} vf {vf.item():.4f}")
    print("done")


if __name__ == "__main__":
    main()
