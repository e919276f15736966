import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(10)


def community_graph(num_nodes=300, num_comm=4):
    y = torch.arange(num_nodes) % num_comm
    p = torch.where(y[:, None] == y[None, :], 0.06, 0.005)
    adj = torch.triu((torch.rand(num_nodes, num_nodes) < p).float(), 1)
    adj = adj + adj.t()
    x = torch.randn(num_nodes, 16)
    train_mask = torch.rand(num_nodes) < 0.3
    return x, adj, y, train_mask


def random_walk_pe(adj, k=8):
    deg = adj.sum(1).clamp(min=1.0)
    P = adj / deg[:, None]
    pe, Pk = [], torch.eye(adj.size(0))
    for _ in range(k):
        Pk = Pk @ P
        pe.append(torch.diagonal(Pk))
    return torch.stack(pe, dim=1)


class SAGELayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin_self = nn.Linear(in_dim, out_dim)
        self.lin_nbr = nn.Linear(in_dim, out_dim, bias=False)

    def forward(self, h, edge_index, inv_deg):
        agg = torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]]) * inv_deg
        return self.lin_self(h) + self.lin_nbr(agg)


class Net(nn.Module):
    def __init__(self, in_dim, pe_dim, hidden, num_classes):
        super().__init__()
        self.pe_enc = nn.Linear(pe_dim, hidden)
        self.inp = nn.Linear(in_dim, hidden)
        self.layers = nn.ModuleList([SAGELayer(hidden, hidden) for _ in range(2)])
        self.cls = nn.Linear(hidden, num_classes)

    def forward(self, x, pe, edge_index, inv_deg):
        h = self.inp(x) + self.pe_enc(pe)
        for layer in self.layers:
            h = F.relu(layer(h, edge_index, inv_deg)) + h
        return self.cls(h)


def main():
    x, adj, y, train_mask = community_graph()
    pe = random_walk_pe(adj)
    edge_index = adj.nonzero().t()
    inv_deg = (1.0 / adj.sum(1).clamp(min=1.0)).unsqueeze(-1)
    model = Net(16, pe.size(1), 64, 4).half()
    x, pe, inv_deg = x.half(), pe.half(), inv_deg.half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_scale = 2.0 ** 16
    for epoch in range(25):
        logits = model(x, pe, edge_index, inv_deg)
        loss = F.cross_entropy(logits[train_mask], y[train_mask])
        opt.zero_grad()
        (loss * loss_scale).backward()
        for p in model.parameters():
            p.grad.div_(loss_scale)
        opt.step()
        if epoch % 5 == 0 or epoch == 24:
            acc = (logits[~train_mask].argmax(-1) == y[~train_mask]).float().mean().item()
            print(f"epoch {epoch:02d} loss {loss.item():.4f} test_acc {acc:.3f}")


if __name__ == "__main__":
    main()
