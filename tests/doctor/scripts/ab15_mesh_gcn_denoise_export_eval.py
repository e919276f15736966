"""Mesh denoising with a vertex graph-convolution network (GCN on the mesh 1-ring graph).

train(): fits the GCN on noisy height-field meshes and exports a compact bf16 safetensors checkpoint.
evaluate(): rebuilds the model and loads the exported weights (assign=True avoids an extra copy),
then reports the vertex error on held-out meshes.
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
G = 14  # grid resolution


def grid_faces(g):
    f = []
    for i in range(g - 1):
        for j in range(g - 1):
            a, b, c, d = i * g + j, i * g + j + 1, (i + 1) * g + j, (i + 1) * g + j + 1
            f += [(a, b, c), (b, d, c)]
    return np.array(f)


def normalized_adjacency(faces, n):
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    edges = np.concatenate([edges, edges[:, ::-1], np.stack([np.arange(n)] * 2, 1)])
    edges = np.unique(edges, axis=0)
    deg = np.bincount(edges[:, 0], minlength=n).astype(np.float32)
    vals = 1.0 / np.sqrt(deg[edges[:, 0]] * deg[edges[:, 1]])
    return torch.sparse_coo_tensor(torch.from_numpy(edges.T.copy()), torch.from_numpy(vals.astype(np.float32)), (n, n)).coalesce()


def clean_surface():
    x, y = np.meshgrid(np.linspace(-1, 1, G), np.linspace(-1, 1, G))
    a, b, c = rng.uniform(0.5, 2.0, 3)
    z = 0.3 * np.sin(a * x) * np.cos(b * y) + 0.1 * c * x * y
    return np.stack([x, y, z], -1).reshape(-1, 3).astype(np.float32)


class GraphConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout)
        self.self_lin = nn.Linear(cin, cout, bias=False)

    def forward(self, x, adj):
        return torch.sparse.mm(adj, self.lin(x)) + self.self_lin(x)


class DenoiseGCN(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.gc1 = GraphConv(3, hidden)
        self.gc2 = GraphConv(hidden, hidden)
        self.gc3 = GraphConv(hidden, hidden)
        self.out = nn.Linear(hidden, 3)

    def forward(self, verts, adj):
        h = F.relu(self.gc1(verts, adj))
        h = F.relu(self.gc2(h, adj))
        h = F.relu(self.gc3(h, adj))
        return verts + self.out(h)


def make_sample(sigma=0.02):
    v = clean_surface()
    return torch.from_numpy(v + sigma * rng.normal(size=v.shape).astype(np.float32)), torch.from_numpy(v)


def train(adj, path):
    model = DenoiseGCN()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(60):
        noisy, clean = make_sample()
        loss = F.mse_loss(model(noisy, adj), clean)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"train step {step:3d} mse {loss.item():.6f}")
    save_file({k: v.detach().to(torch.bfloat16).contiguous() for k, v in model.state_dict().items()}, path)
    print("exported", os.path.getsize(path), "bytes")


@torch.no_grad()
def evaluate(adj, path):
    model = DenoiseGCN()
    model.load_state_dict(load_file(path), assign=True)
    model.eval()
    errs = []
    for _ in range(8):
        noisy, clean = make_sample()
        errs.append((model(noisy, adj) - clean).norm(dim=-1).mean().item())
    print(f"eval mean vertex error {np.mean(errs):.5f}")


def main():
    adj = normalized_adjacency(grid_faces(G), G * G)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gcn_bf16.safetensors")
        train(adj, path)
        evaluate(adj, path)


if __name__ == "__main__":
    main()
