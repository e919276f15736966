import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)


def bag_of_words_graph(num_nodes=350, vocab=64, num_classes=4):
    y = torch.randint(0, num_classes, (num_nodes,))
    topic = torch.rand(num_classes, vocab).pow(3)
    x = torch.poisson(topic[y] * 40.0)
    src = torch.randint(0, num_nodes, (1800,))
    dst = torch.randint(0, num_nodes, (1800,))
    loops = torch.arange(num_nodes)
    edge_index = torch.stack([torch.cat([src, dst, loops]), torch.cat([dst, src, loops])])
    train_mask = torch.rand(num_nodes) < 0.5
    return x, edge_index, y, train_mask


def segment_softmax(scores, index, num_segments):
    e = scores.exp()
    denom = torch.zeros(num_segments, scores.size(1), dtype=e.dtype).index_add_(0, index, e)
    return e / denom[index]


class GATLayer(nn.Module):
    def __init__(self, in_dim, out_dim, heads=4, concat=True):
        super().__init__()
        self.heads, self.out_dim, self.concat = heads, out_dim, concat
        self.lin = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, heads, out_dim))
        self.att_dst = nn.Parameter(torch.empty(1, heads, out_dim))
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)

    def forward(self, x, edge_index):
        src, dst = edge_index
        n = x.size(0)
        h = self.lin(x).view(n, self.heads, self.out_dim)
        a_src = (h * self.att_src).sum(-1)
        a_dst = (h * self.att_dst).sum(-1)
        scores = F.leaky_relu(a_src[src] + a_dst[dst], 0.2)
        alpha = segment_softmax(scores, dst, n)
        alpha = F.dropout(alpha, 0.1, self.training)
        out = torch.zeros_like(h).index_add_(0, dst, h[src] * alpha.unsqueeze(-1))
        return out.flatten(1) if self.concat else out.mean(1)


class GAT(nn.Module):
    def __init__(self, in_dim, hidden, num_classes):
        super().__init__()
        self.layers = nn.ModuleList([GATLayer(in_dim, hidden, 4), GATLayer(hidden * 4, num_classes, 1, concat=False)])

    def forward(self, x, edge_index):
        x = F.elu(self.layers[0](x, edge_index))
        return self.layers[1](x, edge_index)


def main():
    x, edge_index, y, train_mask = bag_of_words_graph()
    model = GAT(x.size(1), 16, 4).half()
    x = x.half()
    opt = torch.optim.SGD(model.parameters(), lr=0.002, momentum=0.9)
    for epoch in range(15):
        model.train()
        logits = model(x, edge_index)
        loss = F.cross_entropy(logits[train_mask].float(), y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = (logits[~train_mask].argmax(-1) == y[~train_mask]).float().mean().item()
        if epoch % 3 == 0 or epoch == 14:
            print(f"epoch {epoch:02d} loss {loss.item():.4f} test_acc {acc:.3f}")


if __name__ == "__main__":
    main()
