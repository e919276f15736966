import math
import torch
import torch.nn as nn

torch.manual_seed(0)

N_USERS, N_ITEMS, DIM = 400, 600, 24
N_RATINGS = 12000


def make_ratings():
    true_u = torch.randn(N_USERS, 6)
    true_i = torch.randn(N_ITEMS, 6)
    users = torch.randint(0, N_USERS, (N_RATINGS,))
    items = torch.randint(0, N_ITEMS, (N_RATINGS,))
    raw = (true_u[users] * true_i[items]).sum(1) / math.sqrt(6)
    ratings = (3.0 + raw + 0.1 * torch.randn(N_RATINGS)).clamp(1.0, 5.0)
    return users, items, ratings


class MatrixFactorization(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim)
        self.item_emb = nn.Embedding(n_items, dim)
        self.user_bias = nn.Embedding(n_users, 1)
        self.item_bias = nn.Embedding(n_items, 1)
        self.global_bias = nn.Parameter(torch.tensor(3.0))
        nn.init.normal_(self.user_emb.weight, std=0.05)
        nn.init.normal_(self.item_emb.weight, std=0.05)
        nn.init.zeros_(self.user_bias.weight)
        nn.init.zeros_(self.item_bias.weight)

    def forward(self, u, i):
        dot = (self.user_emb(u) * self.item_emb(i)).sum(-1)
        return dot + self.user_bias(u).squeeze(-1) + self.item_bias(i).squeeze(-1) + self.global_bias


class CompactAdam:
    def __init__(self, params, lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps, self.wd = lr, betas, eps, weight_decay
        self.t = 0
        self.state = {}
        for p in self.params:
            self.state[p] = {
                "m": torch.zeros_like(p, dtype=torch.float16),
                "v": torch.zeros_like(p, dtype=torch.float16),
            }

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2 = self.betas
        bc1 = 1 - b1 ** self.t
        bc2 = 1 - b2 ** self.t
        for p in self.params:
            if p.grad is None:
                continue
            g = p.grad
            if self.wd:
                p.mul_(1 - self.lr * self.wd)
            st = self.state[p]
            st["m"].mul_(b1).add_(g, alpha=1 - b1)
            st["v"].mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (st["v"] / bc2).sqrt() + self.eps
            p.add_(-self.lr * (st["m"] / bc1) / denom)


def main():
    users, items, ratings = make_ratings()
    n_train = int(0.9 * N_RATINGS)
    model = MatrixFactorization(N_USERS, N_ITEMS, DIM)
    opt = CompactAdam(model.parameters(), lr=5e-3, weight_decay=1e-4)
    batch = 256
    for epoch in range(4):
        perm = torch.randperm(n_train)
        total, count = 0.0, 0
        for s in range(0, n_train, batch):
            idx = perm[s:s + batch]
            pred = model(users[idx], items[idx])
            loss = nn.functional.mse_loss(pred, ratings[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
            count += len(idx)
        with torch.no_grad():
            val_pred = model(users[n_train:], items[n_train:])
            rmse = torch.sqrt(((val_pred - ratings[n_train:]) ** 2).mean())
        print(f"epoch {epoch} train_mse {total / count:.4f} val_rmse {rmse.item():.4f}")


if __name__ == "__main__":
    main()
