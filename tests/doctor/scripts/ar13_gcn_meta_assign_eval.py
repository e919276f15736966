import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(11)


def make_graph(num_nodes=400, num_classes=5):
    y = torch.randint(0, num_classes, (num_nodes,))
    src = torch.randint(0, num_nodes, (3000,))
    same = torch.nonzero(y[src, None] == y[None, :])
    dst = same[torch.randperm(same.size(0))[:3000]]
    edge_index = torch.stack([src[dst[:, 0]], dst[:, 1]])
    edge_index = torch.cat([edge_index, edge_index.flip(0)], 1)
    x = torch.randn(num_nodes, 24) + F.one_hot(y, 24).float()
    train_mask = torch.rand(num_nodes) < 0.5
    return x, edge_index, y, train_mask


class StaticGCN(nn.Module):
    def __init__(self, edge_index, num_nodes, in_dim, hidden, num_classes):
        super().__init__()
        src, dst = edge_index
        deg = torch.bincount(dst, minlength=num_nodes).float() + 1.0
        self.register_buffer("edge_index", edge_index, persistent=False)
        self.register_buffer("edge_norm", deg[src].rsqrt() * deg[dst].rsqrt(), persistent=False)
        self.register_buffer("self_norm", deg.reciprocal(), persistent=False)
        self.register_buffer("loop_index", torch.arange(num_nodes), persistent=False)
        self.lin1 = nn.Linear(in_dim, hidden)
        self.lin2 = nn.Linear(hidden, num_classes)

    def propagate(self, h):
        src, dst = self.edge_index
        out = torch.zeros_like(h).index_add_(0, dst, h[src] * self.edge_norm.unsqueeze(-1))
        return out.index_add_(0, self.loop_index, h * self.self_norm.unsqueeze(-1))

    def forward(self, x):
        h = F.relu(self.propagate(self.lin1(x)))
        h = F.dropout(h, 0.3, self.training)
        return self.propagate(self.lin2(h))


def main():
    x, edge_index, y, train_mask = make_graph()
    n = x.size(0)
    model = StaticGCN(edge_index, n, 24, 64, 5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(30):
        model.train()
        loss = F.cross_entropy(model(x)[train_mask], y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 10 == 0:
            print(f"epoch {epoch:02d} loss {loss.item():.4f}")

    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "gcn.pt")
        torch.save(model.state_dict(), ckpt)
        with torch.device("meta"):
            served = StaticGCN(edge_index, n, 24, 64, 5)
        served.load_state_dict(torch.load(ckpt, map_location="cpu"), assign=True)
        served.eval()
        with torch.no_grad():
            logits = served(x)
        test_loss = F.cross_entropy(logits[~train_mask], y[~train_mask])
        acc = (logits[~train_mask].argmax(-1) == y[~train_mask]).float().mean()
        print(f"served model test loss {test_loss.item():.4f} acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
