import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, SEQ = 96, 128, 48
LOSS_SCALE = 2.0 ** 16


class CharMLPLM(nn.Module):
    """Fixed-context MLP language model (Bengio-style)."""

    def __init__(self, ctx=8):
        super().__init__()
        self.ctx = ctx
        self.emb = nn.Embedding(VOCAB, 32)
        self.net = nn.Sequential(nn.Linear(ctx * 32, D), nn.LayerNorm(D), nn.GELU(),
                                 nn.Linear(D, D), nn.GELU(), nn.Linear(D, VOCAB))

    def forward(self, ids):
        windows = ids.unfold(1, self.ctx, 1)
        e = self.emb(windows).flatten(2)
        return self.net(e)


text = ("the quick brown fox jumps over the lazy dog while the five boxing wizards jump quickly "
        "and a pack of my box with five dozen liquor jugs sits by the sphinx of black quartz ") * 200
data = torch.tensor([ord(c) - 32 for c in text])


def batch(bs=32):
    starts = torch.randint(0, len(data) - SEQ - 1, (bs,))
    return torch.stack([data[s:s + SEQ + 1] for s in starts])


master = CharMLPLM()
model = copy.deepcopy(master).half()
opt = torch.optim.AdamW(master.parameters(), lr=2e-3, weight_decay=0.01)


def sync_to_half():
    with torch.no_grad():
        for p16, p32 in zip(model.parameters(), master.parameters()):
            p16.copy_(p32)


def grads_to_master(n_tokens):
    for p16, p32 in zip(model.parameters(), master.parameters()):
        p32.grad = None if p16.grad is None else p16.grad.float() / (LOSS_SCALE * n_tokens)
        p16.grad = None


for step in range(100):
    seq = batch()
    ctx = model.ctx
    logits = model(seq[:, :-1])
    targets = seq[:, ctx:]
    loss_sum = F.cross_entropy(logits.float().reshape(-1, VOCAB), targets.reshape(-1), reduction="sum")
    (loss_sum * LOSS_SCALE).backward()
    grads_to_master(targets.numel())
    torch.nn.utils.clip_grad_norm_(master.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    sync_to_half()
    if step % 20 == 0:
        print(f"step {step:3d} loss {loss_sum.item() / targets.numel():.4f}")

with torch.no_grad():
    seq = batch(256)
    logits = model(seq[:, :-1])
    val = F.cross_entropy(logits.float().reshape(-1, VOCAB), seq[:, model.ctx:].reshape(-1)).item()
print(f"val loss {val:.4f}")
