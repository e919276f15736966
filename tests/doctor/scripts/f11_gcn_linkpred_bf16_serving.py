"""GCN link prediction (friend recommendation): train in fp32, export a bf16
safetensors checkpoint for serving, then reload it in the serving process and
score candidate edges."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
rng = np.random.default_rng(11)

N, F_IN = 1200, 16
community = rng.integers(0, 10, N)
x = (np.eye(10)[community] @ rng.normal(0, 1, (10, F_IN)) + rng.normal(0, 1, (N, F_IN))).astype(np.float32)
edges = set()
while len(edges) < 5000:
    a = int(rng.integers(N))
    b = int(rng.choice(np.flatnonzero(community == community[a]))) if rng.random() < 0.9 else int(rng.integers(N))
    if a != b:
        edges.add((min(a, b), max(a, b)))
edges = np.array(sorted(edges))
rng.shuffle(edges)
test_pos, train_pos = edges[:500], edges[500:]
edge_index = torch.from_numpy(np.concatenate([train_pos, train_pos[:, ::-1]]).T.copy())
self_loops = np.repeat(np.arange(N)[None], 2, 0)
edge_index = torch.cat([edge_index, torch.from_numpy(self_loops)], 1)


class GCNEncoder(nn.Module):
    def __init__(self, edge_index, num_nodes, d_in, d_hidden=64):
        super().__init__()
        ei = edge_index  # already contains self loops
        deg = torch.zeros(num_nodes).index_add_(0, ei[1], torch.ones(ei.size(1)))
        dinv = deg.pow(-0.5)
        self.register_buffer("ei", ei, persistent=False)
        self.register_buffer("edge_norm", dinv[ei[0]] * dinv[ei[1]], persistent=False)
        self.lin1 = nn.Linear(d_in, d_hidden)
        self.lin2 = nn.Linear(d_hidden, d_hidden)

    def propagate(self, h):
        msg = h[self.ei[0]] * self.edge_norm.to(h.dtype).unsqueeze(1)
        return torch.zeros_like(h).index_add_(0, self.ei[1], msg)

    def forward(self, x):
        h = F.relu(self.propagate(self.lin1(x)))
        return self.propagate(self.lin2(h))


def score(z, pairs):
    return (z[pairs[:, 0]] * z[pairs[:, 1]]).sum(-1)


def auc(pos, neg):
    s = np.concatenate([pos, neg])
    ranks = np.argsort(np.argsort(s)) + 1
    return (ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


X = torch.from_numpy(x)
model = GCNEncoder(edge_index, N, F_IN)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(60):
    z = model(X)
    pos = torch.from_numpy(train_pos[rng.integers(0, len(train_pos), 1024)])
    neg = torch.from_numpy(rng.integers(0, N, (1024, 2)))
    logits = torch.cat([score(z, pos), score(z, neg)])
    labels = torch.cat([torch.ones(1024), torch.zeros(1024)])
    loss = F.binary_cross_entropy_with_logits(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"final train loss {loss.item():.4f}")

# ---- export for serving ----
export_dir = tempfile.mkdtemp(prefix="linkpred_export_")
path = os.path.join(export_dir, "gcn_bf16.safetensors")
save_file({k: v.to(torch.bfloat16).contiguous() for k, v in model.state_dict().items()}, path)
print("exported", sorted(load_file(path).keys()))

# ---- serving process: fast construction without random init ----
with torch.device("meta"):
    served = GCNEncoder(edge_index, N, F_IN)
served.load_state_dict(load_file(path), assign=True)
served.eval()
with torch.no_grad():
    z = served(X.to(served.lin1.weight.dtype)).float()
    neg_test = rng.integers(0, N, (500, 2))
    s_pos = score(z, torch.from_numpy(test_pos)).numpy()
    s_neg = score(z, torch.from_numpy(neg_test)).numpy()
print(f"served model test AUC {auc(s_pos, s_neg):.4f}")
