import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)


def random_graph(label):
    n = torch.randint(8, 20, (1,)).item()
    if label == 0:
        src = torch.arange(n)
        dst = (src + 1) % n
    else:
        src = torch.randint(0, n, (2 * n,))
        dst = torch.randint(0, n, (2 * n,))
    edges = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
    deg = torch.bincount(edges[0], minlength=n).float()
    x = torch.stack([deg / 4, torch.randn(n), torch.ones(n)], dim=-1)
    return x, edges, label


def collate_graphs(batch):
    xs, edge_list, batch_vec, labels, offset = [], [], [], [], 0
    for i, (x, edges, y) in enumerate(batch):
        xs.append(x)
        edge_list.append(edges + offset)
        batch_vec.append(torch.full((x.shape[0],), i, dtype=torch.long))
        labels.append(y)
        offset += x.shape[0]
    return torch.cat(xs), torch.cat(edge_list, dim=1), torch.cat(batch_vec), torch.tensor(labels)


class GINLayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.eps = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(in_dim, out_dim), nn.ReLU(), nn.Linear(out_dim, out_dim))

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        return self.mlp((1 + self.eps) * x + agg)


class GIN(nn.Module):
    def __init__(self, in_dim=3, hidden=64, n_layers=3, n_classes=2):
        super().__init__()
        dims = [in_dim] + [hidden] * n_layers
        self.layers = nn.ModuleList([GINLayer(dims[i], dims[i + 1]) for i in range(n_layers)])
        self.readout = nn.Linear(hidden, n_classes)

    def forward(self, x, edge_index, batch, n_graphs):
        for layer in self.layers:
            x = F.relu(layer(x, edge_index))
        pooled = torch.zeros(n_graphs, x.shape[-1], dtype=x.dtype).index_add_(0, batch, x)
        counts = torch.bincount(batch, minlength=n_graphs).clamp(min=1).to(x.dtype)
        return self.readout(pooled / counts[:, None])


def evaluate(model, loader):
    model.eval()
    total, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, ei, b, y in loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x, ei, b, y.numel())
            total += F.cross_entropy(logits.float(), y, reduction="sum").item()
            correct += (logits.argmax(-1) == y).sum().item()
            n += y.numel()
    model.train()
    return total / n, correct / n


def main():
    graphs = [random_graph(i % 2) for i in range(400)]
    train_loader = DataLoader(graphs[:320], batch_size=32, shuffle=True, collate_fn=collate_graphs)
    test_loader = DataLoader(graphs[320:], batch_size=40, collate_fn=collate_graphs)
    model = GIN()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 30))
    for epoch in range(6):
        for x, ei, b, y in train_loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x, ei, b, y.numel())
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
        test_loss, acc = evaluate(model, test_loader)
        print(f"epoch {epoch} train loss {loss.item():.4f} test loss {test_loss:.4f} acc {acc:.3f}")

    path = os.path.join(tempfile.mkdtemp(), "gin.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
    restored = GIN()
    restored.load_state_dict(torch.load(path, weights_only=True)["model"])
    print("reloaded test loss/acc", evaluate(restored, test_loader))


if __name__ == "__main__":
    main()
