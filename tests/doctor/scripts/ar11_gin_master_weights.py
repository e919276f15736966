import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(9)


def make_graph():
    n = int(torch.randint(10, 40, (1,)))
    ei = torch.randint(0, n, (2, 2 * n))
    ei = torch.cat([ei, ei.flip(0)], dim=1)
    x = torch.randn(n, 8)
    deg = torch.bincount(ei[1], minlength=n).float()
    y = torch.tensor([deg.max().item() / 10.0, x[:, 0].max().item()])
    return x, ei, y


def collate(graphs):
    xs, eis, batch, ys, off = [], [], [], [], 0
    for gid, (x, ei, y) in enumerate(graphs):
        xs.append(x); eis.append(ei + off); ys.append(y)
        batch.append(torch.full((x.size(0),), gid))
        off += x.size(0)
    return torch.cat(xs), torch.cat(eis, 1), torch.cat(batch), torch.stack(ys)


class GINConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.BatchNorm1d(dim), nn.ReLU(), nn.Linear(dim, dim))
        self.eps = nn.Parameter(torch.zeros(1))

    def forward(self, h, edge_index):
        agg = torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]])
        return self.mlp((1 + self.eps) * h + agg)


class GIN(nn.Module):
    def __init__(self, in_dim, dim=64, layers=3):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.convs = nn.ModuleList([GINConv(dim) for _ in range(layers)])
        self.head = nn.Linear(dim, 2)

    def forward(self, x, edge_index, batch, num_graphs):
        h = self.inp(x)
        for conv in self.convs:
            h = F.relu(conv(h, edge_index)) + h
        idx = batch.unsqueeze(-1).expand_as(h)
        pooled = torch.zeros(num_graphs, h.size(1), dtype=h.dtype).scatter_reduce(0, idx, h, "amax", include_self=False)
        return self.head(pooled)


def main():
    graphs = [make_graph() for _ in range(256)]
    model = GIN(8).half()
    master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
    opt = torch.optim.AdamW(master, lr=1e-3)
    loss_scale = 1024.0
    for epoch in range(3):
        total = 0.0
        for i in range(0, len(graphs), 32):
            x, ei, batch, y = collate(graphs[i:i + 32])
            pred = model(x.half(), ei, batch, y.size(0))
            loss = F.mse_loss(pred.float(), y)
            model.zero_grad(set_to_none=True)
            (loss * loss_scale).backward()
            for p, m in zip(model.parameters(), master):
                m.grad = p.grad / loss_scale
            opt.step()
            opt.zero_grad(set_to_none=True)
            with torch.no_grad():
                for p, m in zip(model.parameters(), master):
                    p.copy_(m)
            total += loss.item()
        print(f"epoch {epoch} mse {total / 8:.4f}")


if __name__ == "__main__":
    main()
