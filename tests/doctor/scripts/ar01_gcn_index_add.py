import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_graph(num_nodes=300, num_edges=1500, num_feats=32, num_classes=5):
    src = torch.randint(0, num_nodes, (num_edges,))
    dst = torch.randint(0, num_nodes, (num_edges,))
    edge_index = torch.cat([torch.stack([src, dst]), torch.stack([dst, src])], dim=1)
    loops = torch.arange(num_nodes)
    edge_index = torch.cat([edge_index, torch.stack([loops, loops])], dim=1)
    y = torch.randint(0, num_classes, (num_nodes,))
    x = torch.randn(num_nodes, num_feats) + F.one_hot(y, num_feats).float()
    perm = torch.randperm(num_nodes)
    train_mask = torch.zeros(num_nodes, dtype=torch.bool)
    train_mask[perm[:200]] = True
    return x, edge_index, y, train_mask


class GCNConv(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.out_dim = out_dim
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_dim))

    def forward(self, x, edge_index):
        num_nodes = x.size(0)
        src, dst = edge_index
        deg = torch.bincount(dst, minlength=num_nodes).to(x.dtype)
        norm = deg[src].rsqrt() * deg[dst].rsqrt()
        h = self.lin(x)
        msg = h[src] * norm.unsqueeze(-1)
        out = torch.zeros(num_nodes, self.out_dim)
        out.index_add_(0, dst, msg)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, in_dim, hidden, num_classes, num_layers=2, dropout=0.3):
        super().__init__()
        dims = [in_dim] + [hidden] * (num_layers - 1) + [num_classes]
        self.convs = nn.ModuleList([GCNConv(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.dropout = dropout

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = F.relu(x)
                x = F.dropout(x, self.dropout, self.training)
        return x


def main():
    x, edge_index, y, train_mask = make_graph()
    model = GCN(x.size(1), 64, 5).half()
    x = x.half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(30):
        model.train()
        opt.zero_grad()
        logits = model(x, edge_index)
        loss = F.cross_entropy(logits[train_mask].float(), y[train_mask])
        loss.backward()
        opt.step()
        with torch.no_grad():
            pred = logits.argmax(-1)
            acc = (pred[~train_mask] == y[~train_mask]).float().mean().item()
        if epoch % 5 == 0:
            print(f"epoch {epoch:02d} loss {loss.item():.4f} val_acc {acc:.3f}")


if __name__ == "__main__":
    main()
