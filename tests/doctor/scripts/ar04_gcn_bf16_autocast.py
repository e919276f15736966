import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)


def sbm_graph(num_nodes=500, num_blocks=5, p_in=0.05, p_out=0.004, num_feats=32):
    y = torch.randint(0, num_blocks, (num_nodes,))
    same = y.unsqueeze(0) == y.unsqueeze(1)
    prob = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    adj = torch.rand(num_nodes, num_nodes) < prob
    adj = torch.triu(adj, diagonal=1)
    adj = adj | adj.t()
    edge_index = adj.nonzero().t().contiguous()
    x = torch.randn(num_nodes, num_feats) * 0.8
    x[:, :num_blocks] += F.one_hot(y, num_blocks).float() * 0.5
    perm = torch.randperm(num_nodes)
    train_mask = torch.zeros(num_nodes, dtype=torch.bool)
    train_mask[perm[:300]] = True
    return x, edge_index, y, train_mask


class GCNConv(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim)

    def forward(self, x, edge_index):
        n = x.size(0)
        loops = torch.arange(n)
        src = torch.cat([edge_index[0], loops])
        dst = torch.cat([edge_index[1], loops])
        deg = torch.bincount(dst, minlength=n).float().clamp(min=1.0)
        dinv = deg.pow(-0.5)
        h = self.lin(x)
        msg = h[src] * (dinv[src] * dinv[dst]).to(h.dtype).unsqueeze(-1)
        out = torch.zeros(n, h.size(1), dtype=msg.dtype).index_add_(0, dst, msg)
        return out


class GCN(nn.Module):
    def __init__(self, in_dim, hidden, num_classes):
        super().__init__()
        self.conv1 = GCNConv(in_dim, hidden)
        self.conv2 = GCNConv(hidden, num_classes)

    def forward(self, x, edge_index):
        h = F.relu(self.conv1(x, edge_index))
        h = F.dropout(h, 0.3, self.training)
        return self.conv2(h, edge_index)


def accuracy(logits, y, mask):
    return (logits[mask].argmax(-1) == y[mask]).float().mean().item()


def main():
    x, edge_index, y, train_mask = sbm_graph()
    model = GCN(x.size(1), 64, 5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    for epoch in range(40):
        model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x, edge_index)
        loss = F.cross_entropy(logits[train_mask].float(), y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 10 == 0 or epoch == 39:
            model.eval()
            with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x, edge_index)
            print(f"epoch {epoch:02d} loss {loss.item():.4f} "
                  f"train_acc {accuracy(logits, y, train_mask):.3f} test_acc {accuracy(logits, y, ~train_mask):.3f}")


if __name__ == "__main__":
    main()
