import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import init_empty_weights

torch.manual_seed(0)
N_MEMBERS, D, K = 5, 12, 4


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(D, K, generator=torch.Generator().manual_seed(99))
    x = torch.randn(n, D, generator=g)
    y = (x @ w + 0.8 * torch.randn(n, K, generator=g)).argmax(-1)
    return x, y


class Member(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(D, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, K)

    def forward(self, x):
        return self.out(F.silu(self.fc2(F.silu(self.fc1(x)))))


class CalibratedMember(Member):
    def __init__(self, hidden=64):
        super().__init__(hidden)
        self.log_temperature = nn.Parameter(torch.zeros(()))

    def forward(self, x):
        return super().forward(x) / self.log_temperature.exp()


def train_member(seed, x, y, epochs=40):
    torch.manual_seed(seed)
    m = Member()
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    for _ in range(epochs):
        perm = torch.randperm(x.shape[0])
        for i in range(0, x.shape[0], 250):
            idx = perm[i:i + 250]
            loss = F.cross_entropy(m(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return m, loss.item()


def load_ensemble(ckpt_dir):
    members = nn.ModuleList()
    for i in range(N_MEMBERS):
        with init_empty_weights():
            m = CalibratedMember()
        state = torch.load(os.path.join(ckpt_dir, f"member_{i}.pt"), weights_only=True)
        missing, unexpected = m.load_state_dict(state, strict=False, assign=True)
        print(f"member {i}: loaded ({len(missing)} missing, {len(unexpected)} unexpected keys)")
        members.append(m)
    return members


@torch.no_grad()
def evaluate(members, x, y):
    probs = torch.stack([m(x).softmax(-1) for m in members]).mean(0)
    nll = F.nll_loss(probs.clamp_min(1e-12).log(), y)
    acc = (probs.argmax(-1) == y).float().mean()
    mutual_info = (torch.special.entr(probs).sum(-1)
                   - torch.stack([torch.special.entr(m(x).softmax(-1)).sum(-1) for m in members]).mean(0))
    return nll.item(), acc.item(), mutual_info.mean().item()


def main():
    x_tr, y_tr = make_data(3000, seed=1)
    x_te, y_te = make_data(1000, seed=2)
    with tempfile.TemporaryDirectory() as ckpt_dir:
        for i in range(N_MEMBERS):
            m, last = train_member(i, x_tr, y_tr)
            torch.save(m.state_dict(), os.path.join(ckpt_dir, f"member_{i}.pt"))
            print(f"member {i} final train loss {last:.4f}")

        ensemble = load_ensemble(ckpt_dir)
        ensemble.eval()
        nll, acc, mi = evaluate(ensemble, x_te, y_te)
        print(f"ensemble test nll {nll:.4f}  acc {acc:.3f}  mean mutual information {mi:.4f}")


if __name__ == "__main__":
    main()
