import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, DIM = 1500, 96


class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.rnn = nn.GRU(DIM, DIM, num_layers=2, batch_first=True)

    def forward(self, ids):
        return self.rnn(self.embed(ids))[0]


class LMHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM)
        self.proj = nn.Linear(DIM, VOCAB)

    def forward(self, h):
        return self.proj(self.norm(h))


def batches(n, gen, bsz=16, seq=32):
    for _ in range(n):
        start = torch.randint(0, VOCAB, (bsz, 1), generator=gen)
        stride = torch.randint(1, 9, (bsz, 1), generator=gen)
        yield (start + stride * torch.arange(seq + 1)) % VOCAB


def train(trunk, head, steps, gen, tag):
    params = list(trunk.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=3e-3)
    for step, ids in enumerate(batches(steps, gen)):
        logits = head(trunk(ids[:, :-1]))
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"[{tag}] step {step} loss {loss.item():.4f}")
    return loss.item()


@torch.no_grad()
def evaluate(trunk, head, gen):
    losses = [F.cross_entropy(head(trunk(ids[:, :-1])).reshape(-1, VOCAB), ids[:, 1:].reshape(-1)).item()
              for ids in batches(4, gen)]
    return sum(losses) / len(losses)


def main():
    gen = torch.Generator().manual_seed(0)
    ckpt_dir = tempfile.mkdtemp(prefix="lmhead_")
    trunk, head = Trunk(), LMHead()
    train(trunk, head, 30, gen, "stage1")
    torch.save(trunk.state_dict(), os.path.join(ckpt_dir, "trunk.pt"))
    torch.save(head.state_dict(), os.path.join(ckpt_dir, "head.pt"))
    print(f"stage1 eval {evaluate(trunk, head, gen):.4f}")
    del trunk, head

    trunk = Trunk()
    trunk.load_state_dict(torch.load(os.path.join(ckpt_dir, "trunk.pt")))
    with torch.device("meta"):
        head = LMHead()
    head.load_state_dict(torch.load(os.path.join(ckpt_dir, "head.pt"), map_location="cpu"))
    print(f"resumed head with {sum(p.numel() for p in head.parameters())} params")
    train(trunk, head, 30, gen, "stage2")
    print(f"stage2 eval {evaluate(trunk, head, gen):.4f}")


if __name__ == "__main__":
    main()
