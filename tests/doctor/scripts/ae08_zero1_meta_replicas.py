import math
import torch
import torch.nn as nn
import torch.nn.functional as F

WORLD_SIZE = 2


class SeqClassifier(nn.Module):
    def __init__(self, vocab=100, d=48, max_len=40, n_classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        pe = torch.zeros(max_len, d)
        pos = torch.arange(max_len)[:, None]
        div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
        self.register_buffer("pe", pe, persistent=False)
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=96, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(d, n_classes)

    def forward(self, ids):
        x = self.embed(ids) + self.pe[: ids.shape[1]][None]
        return self.head(self.encoder(x).mean(dim=1))


class ShardedAdam:
    """ZeRO-1 style: each rank owns a contiguous slice of the flat fp32 parameter vector."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.params = list(params)
        self.lr, self.betas, self.eps, self.t = lr, betas, eps, 0
        numel = sum(p.numel() for p in self.params)
        self.bounds = [(r * numel // WORLD_SIZE, (r + 1) * numel // WORLD_SIZE) for r in range(WORLD_SIZE)]
        self.m = [torch.zeros(hi - lo) for lo, hi in self.bounds]
        self.v = [torch.zeros(hi - lo) for lo, hi in self.bounds]

    @torch.no_grad()
    def step(self, flat_grad):
        self.t += 1
        b1, b2 = self.betas
        flat = torch.cat([p.detach().reshape(-1) for p in self.params])
        for r, (lo, hi) in enumerate(self.bounds):
            g = flat_grad[lo:hi]
            self.m[r].mul_(b1).add_(g, alpha=1 - b1)
            self.v[r].mul_(b2).addcmul_(g, g, value=1 - b2)
            m_hat = self.m[r] / (1 - b1 ** self.t)
            v_hat = self.v[r] / (1 - b2 ** self.t)
            flat[lo:hi] -= self.lr * m_hat / (v_hat.sqrt() + self.eps)
        offset = 0
        for p in self.params:
            p.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()


def make_batch(bs, T=24, vocab=100, seed=None):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 3, (bs,), generator=g)
    ids = torch.randint(3, vocab, (bs, T), generator=g)
    ids[:, ::4] = y[:, None]
    return ids, y


def main():
    torch.manual_seed(0)
    master = SeqClassifier()
    replicas = []
    for _ in range(WORLD_SIZE):
        with torch.device("meta"):
            replica = SeqClassifier()
        replica.load_state_dict(master.state_dict(), assign=True)
        replicas.append(replica)
    opt = ShardedAdam(master.parameters(), lr=2e-3)
    for step in range(30):
        grads, losses = [], []
        for rank, replica in enumerate(replicas):
            ids, y = make_batch(16, seed=step * WORLD_SIZE + rank)
            loss = F.cross_entropy(replica(ids), y)
            replica.zero_grad(set_to_none=True)
            loss.backward()
            grads.append(torch.cat([p.grad.reshape(-1) for p in replica.parameters()]))
            losses.append(loss.item())
        opt.step(torch.stack(grads).mean(0))
        if step % 5 == 0:
            print(f"step {step:3d} loss {sum(losses) / len(losses):.4f}")
    ids, y = make_batch(128, seed=12345)
    with torch.no_grad():
        acc = (master(ids).argmax(-1) == y).float().mean().item()
    print(f"held-out acc {acc:.3f}")


if __name__ == "__main__":
    main()
