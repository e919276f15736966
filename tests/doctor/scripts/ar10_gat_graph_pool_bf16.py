import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)


def make_graph(num_feats=16):
    n = int(torch.randint(8, 30, (1,)))
    num_edges = int(torch.randint(n, 3 * n, (1,)))
    ei = torch.randint(0, n, (2, num_edges))
    ei = torch.cat([ei, ei.flip(0)], dim=1)
    x = torch.randn(n, num_feats)
    triangles_proxy = float(num_edges) / n
    y = int(triangles_proxy > 2.0)
    return x, ei, y


def collate(graphs):
    xs, eis, batch, ys, offset = [], [], [], [], 0
    for gid, (x, ei, y) in enumerate(graphs):
        xs.append(x)
        eis.append(ei + offset)
        batch.append(torch.full((x.size(0),), gid, dtype=torch.long))
        ys.append(y)
        offset += x.size(0)
    return torch.cat(xs), torch.cat(eis, dim=1), torch.cat(batch), torch.tensor(ys)


def segment_softmax(scores, index, num_segments):
    scores = scores.float()
    seg_max = torch.full((num_segments, scores.size(1)), torch.finfo(scores.dtype).min)
    seg_max = seg_max.scatter_reduce(0, index.unsqueeze(-1).expand_as(scores), scores, "amax", include_self=True)
    e = (scores - seg_max[index]).exp()
    denom = torch.zeros(num_segments, scores.size(1)).index_add_(0, index, e)
    return e / denom[index].clamp(min=torch.finfo(e.dtype).tiny)


class GATLayer(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.lin = nn.Linear(dim, dim, bias=False)
        self.att = nn.Parameter(torch.randn(1, heads, 2 * self.dh) * 0.1)

    def forward(self, x, edge_index):
        src, dst = edge_index
        n = x.size(0)
        h = self.lin(x).view(n, self.heads, self.dh)
        pair = torch.cat([h[src], h[dst]], dim=-1)
        scores = F.leaky_relu((pair * self.att.to(pair.dtype)).sum(-1), 0.2)
        alpha = segment_softmax(scores, dst, n)
        msg = h[src].float() * alpha.unsqueeze(-1)
        out = torch.zeros(n, self.heads, self.dh).index_add_(0, dst, msg)
        return out.flatten(1) + x.float()


class GraphNet(nn.Module):
    def __init__(self, in_dim, dim=64):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.layers = nn.ModuleList([GATLayer(dim) for _ in range(2)])
        self.head = nn.Linear(dim, 2)

    def forward(self, x, edge_index, batch, num_graphs):
        h = self.inp(x)
        for layer in self.layers:
            h = F.elu(layer(h, edge_index))
        counts = torch.bincount(batch, minlength=num_graphs).clamp(min=1).unsqueeze(-1)
        pooled = torch.zeros(num_graphs, h.size(1), dtype=h.dtype).index_add_(0, batch, h) / counts
        return self.head(pooled)


def main():
    graphs = [make_graph() for _ in range(320)]
    train, test = graphs[:256], graphs[256:]
    model = GraphNet(16)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(5):
        model.train()
        total = 0.0
        for i in range(0, len(train), 32):
            x, ei, batch, y = collate(train[i:i + 32])
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x, ei, batch, y.numel())
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        model.eval()
        x, ei, batch, y = collate(test)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            acc = (model(x, ei, batch, y.numel()).argmax(-1) == y).float().mean().item()
        print(f"epoch {epoch} loss {total / 8:.4f} test_acc {acc:.3f}")


if __name__ == "__main__":
    main()
