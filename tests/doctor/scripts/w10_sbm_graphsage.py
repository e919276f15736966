import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def stochastic_block_model(sizes, p_in=0.08, p_out=0.005, feat_dim=32):
    labels = torch.cat([torch.full((s,), i, dtype=torch.long) for i, s in enumerate(sizes)])
    n = labels.numel()
    same = labels[:, None] == labels[None, :]
    probs = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    adj = torch.rand(n, n) < probs
    adj = torch.triu(adj, diagonal=1)
    adj = adj | adj.T
    edge_index = adj.nonzero().T.contiguous()
    centers = torch.randn(len(sizes), feat_dim)
    x = centers[labels] * 0.4 + torch.randn(n, feat_dim)
    return x, edge_index, labels


class SAGEConv(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.root = nn.Linear(in_dim, out_dim)

    def forward(self, x, edge_index):
        src, dst = edge_index
        n = x.shape[0]
        deg = torch.bincount(dst, minlength=n).clamp(min=1).unsqueeze(-1)
        msg = self.lin(x)[src]
        out = torch.zeros(n, msg.shape[-1])
        out.index_add_(0, dst, msg)
        return out / deg + self.root(x)


class GraphSAGE(nn.Module):
    def __init__(self, in_dim, hidden, n_classes, dropout=0.3):
        super().__init__()
        self.conv1 = SAGEConv(in_dim, hidden)
        self.conv2 = SAGEConv(hidden, hidden)
        self.classifier = nn.Linear(hidden, n_classes)
        self.dropout = dropout

    def forward(self, x, edge_index):
        h = F.relu(self.conv1(x, edge_index))
        h = F.dropout(h, self.dropout, self.training)
        h = F.relu(self.conv2(h, edge_index))
        return self.classifier(h)


def main():
    x, edge_index, labels = stochastic_block_model([120, 100, 140, 90])
    n = labels.numel()
    perm = torch.randperm(n)
    train_idx, test_idx = perm[: n // 2], perm[n // 2:]
    model = GraphSAGE(x.shape[1], 64, 4)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=5e-4)
    for epoch in range(60):
        model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x, edge_index)
        loss = F.cross_entropy(logits.float()[train_idx], labels[train_idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 20 == 0:
            model.eval()
            with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
                pred = model(x, edge_index).argmax(-1)
            acc = (pred[test_idx] == labels[test_idx]).float().mean().item()
            print(f"epoch {epoch} loss {loss.item():.4f} test acc {acc:.3f}")
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
