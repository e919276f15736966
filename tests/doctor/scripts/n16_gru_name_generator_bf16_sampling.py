"""Character-level GRU that generates product names. Trained in fp32, exported in bf16 for
a lightweight sampling service, then sampled with an explicit initial hidden state."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

NAMES = ["aurora", "borealis", "cascade", "dynamo", "ember", "fjord", "glacier", "harbor",
         "iris", "juniper", "kestrel", "lumen", "meridian", "nimbus", "onyx", "prism",
         "quartz", "ripple", "sierra", "tundra", "umbra", "vertex", "willow", "zephyr"]
CHARS = ["<pad>", "<s>", "</s>"] + sorted(set("".join(NAMES)))
IDX = {c: i for i, c in enumerate(CHARS)}


def encode(name, length=12):
    ids = [IDX["<s>"]] + [IDX[c] for c in name] + [IDX["</s>"]]
    return ids + [0] * (length - len(ids))


class CharGRU(nn.Module):
    def __init__(self, vocab, emb=32, hidden=96, layers=2):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.embed = nn.Embedding(vocab, emb, padding_idx=0)
        self.rnn = nn.GRU(emb, hidden, layers, batch_first=True, dropout=0.1)
        self.proj = nn.Linear(hidden, vocab)

    def init_hidden(self, batch):
        return torch.zeros(self.layers, batch, self.hidden, device=self.embed.weight.device)

    def forward(self, ids, h=None):
        out, h = self.rnn(self.embed(ids), h)
        return self.proj(out), h


@torch.no_grad()
def sample(model, n=5, temperature=0.8, max_len=12):
    model.eval()
    tok = torch.full((n, 1), IDX["<s>"])
    h = model.init_hidden(n)
    out = [[] for _ in range(n)]
    done = torch.zeros(n, dtype=torch.bool)
    for _ in range(max_len):
        logits, h = model(tok, h)
        probs = F.softmax(logits[:, -1].float() / temperature, -1)
        tok = torch.multinomial(probs, 1)
        for i, t in enumerate(tok[:, 0].tolist()):
            if not done[i] and t != IDX["</s>"]:
                out[i].append(CHARS[t])
        done |= tok[:, 0] == IDX["</s>"]
        if done.all():
            break
    return ["".join(c for c in o if len(c) == 1) for o in out]


def main():
    data = torch.tensor([encode(nm) for nm in NAMES])
    model = CharGRU(len(CHARS))
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for step in range(120):
        batch = data[torch.randint(0, len(data), (16,))]
        logits, _ = model(batch[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten(), ignore_index=0)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 40 == 0:
            print(f"step {step} loss {loss.item():.3f}")
    print("fp32 samples:", sample(model))

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chargru_bf16.pt")
        torch.save(model.to(torch.bfloat16).state_dict(), path)

        served = CharGRU(len(CHARS))
        served.load_state_dict(torch.load(path, weights_only=True), assign=True)
        print("served param dtype:", next(served.parameters()).dtype)
        print("bf16 samples:", sample(served))


if __name__ == "__main__":
    main()
