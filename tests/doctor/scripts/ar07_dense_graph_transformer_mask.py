import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(5)


def random_graph(num_feats=16):
    n = int(torch.randint(6, 20, (1,)))
    adj = (torch.rand(n, n) < 0.25).float()
    adj = ((adj + adj.t()) > 0).float()
    adj.fill_diagonal_(1.0)
    x = torch.randn(n, num_feats)
    y = int(adj.sum() / n > 4.5)
    return x, adj, y


def collate(graphs):
    max_n = max(g[0].size(0) for g in graphs)
    feats = graphs[0][0].size(1)
    x = torch.zeros(len(graphs), max_n, feats)
    adj = torch.zeros(len(graphs), max_n, max_n)
    node_mask = torch.zeros(len(graphs), max_n)
    y = torch.tensor([g[2] for g in graphs])
    for i, (xi, ai, _) in enumerate(graphs):
        n = xi.size(0)
        x[i, :n], adj[i, :n, :n], node_mask[i, :n] = xi, ai, 1.0
    return x, adj, node_mask, y


class NeighbourAttention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, h, adj):
        b, n, d = h.shape
        q, k, v = self.qkv(h).view(b, n, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dh)
        bias = (1.0 - adj).unsqueeze(1) * -1e9
        attn = torch.softmax(scores + bias, dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, d)
        return self.out(out)


class GraphTransformerLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = NeighbourAttention(dim)
        self.norm1 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, h, adj):
        h = self.norm1(h + self.attn(h, adj))
        return self.norm2(h + self.ff(h))


class GraphClassifier(nn.Module):
    def __init__(self, in_dim, dim=64, layers=2):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.layers = nn.ModuleList([GraphTransformerLayer(dim) for _ in range(layers)])
        self.cls = nn.Linear(dim, 2)

    def forward(self, x, adj, node_mask):
        h = self.inp(x)
        for layer in self.layers:
            h = layer(h, adj)
        m = node_mask.unsqueeze(-1)
        pooled = (h * m).sum(1) / m.sum(1)
        return self.cls(pooled)


def main():
    graphs = [random_graph() for _ in range(256)]
    model = GraphClassifier(16).half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(3):
        total, correct = 0.0, 0
        for i in range(0, len(graphs), 32):
            x, adj, node_mask, y = collate(graphs[i:i + 32])
            logits = model(x.half(), adj.half(), node_mask.half())
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            correct += (logits.argmax(-1) == y).sum().item()
        print(f"epoch {epoch} loss {total / 8:.4f} acc {correct / len(graphs):.3f}")


if __name__ == "__main__":
    main()
