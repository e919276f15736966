import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)


def citation_like_graph(num_nodes=400, num_feats=48, num_classes=6, num_isolated=25):
    y = torch.randint(0, num_classes, (num_nodes,))
    connected = torch.arange(num_isolated, num_nodes)
    src = connected[torch.randint(0, len(connected), (2000,))]
    same = y[src].unsqueeze(1) == y[connected].unsqueeze(0)
    dst = connected[torch.multinomial(same.float() + 0.05, 1).squeeze(1)]
    edge_index = torch.cat([torch.stack([src, dst]), torch.stack([dst, src])], dim=1)
    edge_weight = torch.rand(edge_index.size(1)) * 0.9 + 0.1
    x = torch.randn(num_nodes, num_feats) * 0.5
    x[:, :num_classes] += F.one_hot(y, num_classes).float()
    train_mask = torch.rand(num_nodes) < 0.6
    return x, edge_index, edge_weight, y, train_mask


class WeightedGCNConv(nn.Module):
    def __init__(self, in_dim, out_dim, eps=1e-12):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim)
        self.eps = eps

    def forward(self, x, edge_index, edge_weight):
        src, dst = edge_index
        n = x.size(0)
        deg = torch.zeros(n, dtype=x.dtype).scatter_add_(0, dst, edge_weight.to(x.dtype))
        dinv = (deg + self.eps).pow(-0.5)
        h = self.lin(x) * dinv.unsqueeze(-1)
        agg = torch.zeros_like(h).index_add_(0, dst, h[src] * edge_weight.to(h.dtype).unsqueeze(-1))
        return agg * dinv.unsqueeze(-1)


class GCN(nn.Module):
    def __init__(self, in_dim, hidden, num_classes):
        super().__init__()
        self.convs = nn.ModuleList([WeightedGCNConv(in_dim, hidden), WeightedGCNConv(hidden, num_classes)])
        self.skip = nn.Linear(in_dim, num_classes)

    def forward(self, x, edge_index, edge_weight):
        h = F.relu(self.convs[0](x, edge_index, edge_weight))
        h = F.dropout(h, 0.2, self.training)
        return self.convs[1](h, edge_index, edge_weight) + self.skip(x)


def main():
    x, edge_index, edge_weight, y, train_mask = citation_like_graph()
    model = GCN(x.size(1), 64, 6).half()
    x = x.half()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(20):
        model.train()
        logits = model(x, edge_index, edge_weight)
        loss = F.cross_entropy(logits[train_mask].float(), y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 5 == 0 or epoch == 19:
            model.eval()
            with torch.no_grad():
                pred = model(x, edge_index, edge_weight).argmax(-1)
            acc = (pred[~train_mask] == y[~train_mask]).float().mean().item()
            print(f"epoch {epoch:02d} loss {loss.item():.4f} test_acc {acc:.3f}")


if __name__ == "__main__":
    main()
