import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(15)


def road_network(side=20):
    n = side * side
    idx = torch.arange(n).view(side, side)
    right = torch.stack([idx[:, :-1].reshape(-1), idx[:, 1:].reshape(-1)])
    down = torch.stack([idx[:-1, :].reshape(-1), idx[1:, :].reshape(-1)])
    ei = torch.cat([right, down], 1)
    ei = torch.cat([ei, ei.flip(0), torch.arange(n).repeat(2, 1)], 1)
    return ei, n


def normalized_adjacency(edge_index, n):
    deg = torch.bincount(edge_index[0], minlength=n).float()
    w = deg[edge_index[0]].rsqrt() * deg[edge_index[1]].rsqrt()
    return torch.sparse_coo_tensor(edge_index, w, (n, n)).coalesce()


class SparseGCN(nn.Module):
    def __init__(self, adj, in_dim, hidden, out_dim):
        super().__init__()
        self.adj = adj
        self.lin1 = nn.Linear(in_dim, hidden)
        self.lin2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, out_dim)

    def forward(self, x):
        h = F.relu(torch.sparse.mm(self.adj, self.lin1(x)))
        h = F.relu(torch.sparse.mm(self.adj, self.lin2(h))) + h
        return self.out(h)


def main():
    edge_index, n = road_network()
    adj = normalized_adjacency(edge_index, n)
    x = torch.randn(n, 6)
    speed = (torch.sparse.mm(adj, x[:, :1]) * 3 + 40).squeeze(-1)
    model = SparseGCN(adj, 6, 32, 1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(60):
        pred = model(x).squeeze(-1)
        loss = F.mse_loss(pred, speed)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 15 == 0:
            print(f"epoch {epoch:02d} mse {loss.item():.3f}")

    model.eval()
    with torch.no_grad():
        ref = model(x).squeeze(-1)
    model.half()
    example = x.half()
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        drift = (model(example).float().squeeze(-1) - ref).abs().max().item()
        print(f"fp16 vs fp32 max abs drift {drift:.4f}")
        traced = torch.jit.trace(model, example)
        path = os.path.join(tmp, "traffic_gcn_fp16.pt")
        traced.save(path)
        reloaded = torch.jit.load(path)
        out = reloaded(example).float().squeeze(-1)
        print(f"exported {os.path.getsize(path)} bytes, fp16 mse {F.mse_loss(out, speed).item():.3f}")


if __name__ == "__main__":
    main()
