"""A graph convolution with symmetric degree normalisation D^-1/2 A D^-1/2, written by hand: nodes that no edge
reaches (new items) and no self loops give degree 0, and 0 ** -0.5 is inf in any dtype; inf times the zeros around it
is NaN, and the loss goes NaN while the script exits 0."""
import torch
from torch import nn


class GCN(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)
        self.lin = nn.Linear(dim, dim)

    def forward(self, edge_index):
        n = self.emb.num_embeddings
        deg = torch.zeros(n).index_add_(0, edge_index[1], torch.ones(edge_index.shape[1]))
        norm = deg.pow(-0.5)[:, None]
        h = self.emb.weight * norm
        agg = torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]])
        return self.lin(agg * norm)


def main():
    torch.manual_seed(0)
    n = 40
    edge_index = torch.randint(0, 30, (2, 120))  # nodes 30-39 have no edges
    model = GCN(n, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        out = model(edge_index)
        loss = out.pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
