import torch
import torch.nn as nn
import torch.nn.functional as F


def stochastic_block_graph(n_per_class=150, classes=4, p_in=0.05, p_out=0.004, feat_dim=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    n = n_per_class * classes
    y = torch.arange(classes).repeat_interleave(n_per_class)
    same = y[:, None] == y[None, :]
    prob = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    adj = torch.rand(n, n, generator=g) < prob
    adj = torch.triu(adj, diagonal=1)
    adj = adj | adj.T
    src, dst = adj.nonzero(as_tuple=True)
    centers = torch.randn(classes, feat_dim, generator=g)
    x = centers[y] * 0.4 + torch.randn(n, feat_dim, generator=g)
    return x, torch.stack([src, dst]), y


class SAGEConv(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin_neigh = nn.Linear(in_dim, out_dim, bias=False)
        self.lin_self = nn.Linear(in_dim, out_dim)

    def forward(self, x, edge_index):
        src, dst = edge_index
        h = self.lin_neigh(x)
        agg = torch.zeros(x.size(0), h.size(1), device=x.device)
        agg.index_add_(0, dst, h[src])
        deg = torch.bincount(dst, minlength=x.size(0)).clamp_min(1).unsqueeze(1)
        return self.lin_self(x) + agg / deg


class GraphSAGE(nn.Module):
    def __init__(self, in_dim, hidden, classes, dropout=0.3):
        super().__init__()
        self.conv1 = SAGEConv(in_dim, hidden)
        self.conv2 = SAGEConv(hidden, classes)
        self.dropout = dropout

    def forward(self, x, edge_index):
        x = F.relu(self.conv1(x, edge_index))
        x = F.dropout(x, self.dropout, self.training)
        return self.conv2(x, edge_index)


def split_masks(n, seed=0):
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    train, val, test = torch.zeros(n, dtype=torch.bool), torch.zeros(n, dtype=torch.bool), torch.zeros(n, dtype=torch.bool)
    train[perm[: n // 5]] = True
    val[perm[n // 5: 2 * n // 5]] = True
    test[perm[2 * n // 5:]] = True
    return train, val, test


def main():
    torch.manual_seed(0)
    x, edge_index, y = stochastic_block_graph()
    train_mask, val_mask, test_mask = split_masks(len(y))
    model = GraphSAGE(x.size(1), 32, int(y.max()) + 1)
    opt = torch.optim.Adam([
        {"params": [p for n, p in model.named_parameters() if "bias" not in n], "weight_decay": 5e-4},
        {"params": [p for n, p in model.named_parameters() if "bias" in n], "weight_decay": 0.0},
    ], lr=1e-2)
    best_val, best_state = 0.0, None
    for epoch in range(100):
        model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x, edge_index)
        loss = F.cross_entropy(logits[train_mask].float(), y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(x, edge_index).argmax(1)
        val_acc = (pred[val_mask] == y[val_mask]).float().mean().item()
        if val_acc > best_val:
            best_val, best_state = val_acc, {k: v.clone() for k, v in model.state_dict().items()}
        if epoch % 20 == 0:
            print(f"epoch {epoch:3d} loss {loss.item():.4f} val acc {val_acc:.3f}")
    model.load_state_dict(best_state)
    with torch.no_grad():
        test_acc = (model(x, edge_index).argmax(1)[test_mask] == y[test_mask]).float().mean().item()
    print(f"best val {best_val:.3f} test acc {test_acc:.3f}")


if __name__ == "__main__":
    main()
