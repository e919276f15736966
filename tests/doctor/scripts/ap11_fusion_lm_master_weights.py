import random

import torch
import torch.nn as nn
import torch.nn.functional as F

WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "to", "park", "we", "see", "it"]
CHARS = ["<pad>", "<s>", "</s>", " "] + sorted(set("".join(WORDS)))
STOI = {c: i for i, c in enumerate(CHARS)}


def make_transcripts(n, seed=0):
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 7))) for _ in range(n)]


def encode_batch(lines):
    seqs = [[STOI["<s>"]] + [STOI[c] for c in line] + [STOI["</s>"]] for line in lines]
    L = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), L, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
    return ids


class CharLM(nn.Module):
    """Character LM used for shallow fusion in the CTC beam search."""

    def __init__(self, d=128):
        super().__init__()
        self.embed = nn.Embedding(len(CHARS), d, padding_idx=0)
        self.rnn = nn.LSTM(d, d, num_layers=2, batch_first=True)
        self.proj = nn.Linear(d, len(CHARS))

    def forward(self, ids):
        h, _ = self.rnn(self.embed(ids))
        return self.proj(h)


class DynamicScaler:
    def __init__(self, init_scale=2.0 ** 10, growth_interval=50):
        self.scale = init_scale
        self.growth_interval = growth_interval
        self.good_steps = 0

    def unscale_to_master(self, model_params, master_params):
        overflow = False
        for p, m in zip(model_params, master_params):
            if p.grad is None:
                continue
            g = p.grad / self.scale
            if not torch.isfinite(g).all():
                overflow = True
            m.grad = g
        return overflow

    def update(self, overflow):
        if overflow:
            self.scale /= 2
            self.good_steps = 0
        else:
            self.good_steps += 1
            if self.good_steps % self.growth_interval == 0:
                self.scale *= 2


def main():
    torch.manual_seed(0)
    lines = make_transcripts(256)
    model = CharLM().half()
    params = list(model.parameters())
    master = [p.detach().float().clone().requires_grad_(True) for p in params]
    opt = torch.optim.Adam(master, lr=2e-3)
    scaler = DynamicScaler()

    for step in range(20):
        batch = encode_batch(random.Random(step).sample(lines, 16))
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, len(CHARS)), batch[:, 1:].reshape(-1),
                               ignore_index=0)
        model.zero_grad(set_to_none=True)
        (loss.half() * scaler.scale).backward()
        overflow = scaler.unscale_to_master(params, master)
        if not overflow:
            opt.step()
            with torch.no_grad():
                for p, m in zip(params, master):
                    p.copy_(m)
        opt.zero_grad(set_to_none=True)
        scaler.update(overflow)
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f} scale {scaler.scale:.0f}")

    with torch.no_grad():
        ids = encode_batch(["the cat sat on the mat"])
        lp = model(ids[:, :-1]).float().log_softmax(-1)
        score = lp.gather(-1, ids[:, 1:].unsqueeze(-1)).sum().item()
    print(f"lm log-prob of a test sentence {score:.3f}")


if __name__ == "__main__":
    main()
