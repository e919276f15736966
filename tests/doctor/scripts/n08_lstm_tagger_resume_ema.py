"""BiLSTM sequence tagger trained in two sessions and resumed from a checkpoint:
the checkpoint holds compact fp16 model weights, the optimizer state, the RNG states and
an fp32 EMA of the weights."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
VOCAB, N_TAGS, SEQ = 60, 5, 20


def make_data(n, gen):
    x = torch.randint(1, VOCAB, (n, SEQ), generator=gen)
    # tag = word class, with a context rule: a word after token 7 is always tag 4
    tags = x % 4
    tags[:, 1:][x[:, :-1] == 7] = 4
    lengths = torch.randint(SEQ // 2, SEQ + 1, (n,), generator=gen)
    pad = torch.arange(SEQ).unsqueeze(0) >= lengths.unsqueeze(1)
    x[pad] = 0
    tags[pad] = -100
    return x, tags


class Tagger(nn.Module):
    def __init__(self, emb=32, hidden=48):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, N_TAGS)
        # derived constant, rebuilt on every construction, so kept out of the checkpoint
        self.register_buffer("tag_prior", torch.full((N_TAGS,), 1.0 / N_TAGS).log(), persistent=False)

    def forward(self, x):
        h, _ = self.lstm(self.embed(x))
        return self.out(h) + self.tag_prior


class EMA:
    def __init__(self, model, decay=0.98):
        self.decay = decay
        self.params = [p.detach().clone().float() for p in model.parameters()]

    @torch.no_grad()
    def update(self, model):
        cur = [p.detach().float() for p in model.parameters()]
        torch._foreach_lerp_(self.params, cur, 1 - self.decay)

    def copy_to(self, model):
        with torch.no_grad():
            for p, e in zip(model.parameters(), self.params):
                p.copy_(e)


def run(model, opt, ema, loader, epochs, tag):
    for ep in range(epochs):
        model.train()
        for x, y in loader:
            logits = model(x)
            loss = F.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            ema.update(model)
        print(f"[{tag}] epoch {ep} loss {loss.item():.4f}")


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    pred = model(x).argmax(-1)
    mask = y != -100
    return (pred[mask] == y[mask]).float().mean().item()


def main():
    data_gen = torch.Generator().manual_seed(1)
    x, y = make_data(1200, data_gen)
    xva, yva = make_data(200, torch.Generator().manual_seed(2))
    loader_gen = torch.Generator().manual_seed(3)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, generator=loader_gen)

    model = Tagger()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    ema = EMA(model)
    run(model, opt, ema, loader, 2, "session1")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tagger.pt")
        torch.save({
            "model": {k: v.half() for k, v in model.state_dict().items()},  # compact weights
            "optim": opt.state_dict(),                                     # full precision
            "ema": ema.params,
            "loader_rng": loader_gen.get_state(),
            "torch_rng": torch.get_rng_state(),
            "epoch": 2,
        }, path)

        # ---- session 2 ----
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        model2 = Tagger()
        model2.load_state_dict(ckpt["model"])          # copy_ casts fp16 -> fp32 in place
        assert all(p.dtype == torch.float32 for p in model2.parameters())
        opt2 = torch.optim.Adam(model2.parameters(), lr=3e-3)
        opt2.load_state_dict(ckpt["optim"])
        ema2 = EMA(model2)
        ema2.params = [e.float() for e in ckpt["ema"]]
        loader_gen2 = torch.Generator()
        loader_gen2.set_state(ckpt["loader_rng"])
        torch.set_rng_state(ckpt["torch_rng"])
        loader2 = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, generator=loader_gen2)
        run(model2, opt2, ema2, loader2, 2, "session2")

        print(f"val acc (live) {accuracy(model2, xva, yva):.3f}")
        ema2.copy_to(model2)
        print(f"val acc (EMA)  {accuracy(model2, xva, yva):.3f}")


if __name__ == "__main__":
    main()
