import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class SOAP(torch.optim.Optimizer):
    """Adam run in the eigenbasis of Shampoo's Kronecker factors (power-iteration refresh)."""

    def __init__(self, params, lr=3e-3, betas=(0.95, 0.95), shampoo_beta=0.95, eps=1e-8,
                 precondition_frequency=5):
        defaults = dict(lr=lr, betas=betas, shampoo_beta=shampoo_beta, eps=eps,
                        precondition_frequency=precondition_frequency)
        super().__init__(params, defaults)

    @torch.no_grad()
    def update_eigenbasis(self, state):
        for side in ("L", "R"):
            GG, Q = state[f"GG_{side}"], state[f"Q_{side}"]
            Q_new, _ = torch.linalg.qr(GG @ Q)
            state[f"Q_{side}"] = Q_new

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                state = self.state[p]
                if p.ndim != 2:
                    # plain Adam for biases / norms
                    if not state:
                        state["step"] = 0
                        state["m"] = torch.zeros_like(p)
                        state["v"] = torch.zeros_like(p)
                    state["step"] += 1
                    state["m"].lerp_(g, 1 - b1)
                    state["v"].mul_(b2).addcmul_(g, g, value=1 - b2)
                    p.addcdiv_(state["m"], state["v"].sqrt().add_(group["eps"]), value=-group["lr"])
                    continue
                m, n = p.shape
                if not state:
                    state["step"] = 0
                    state["GG_L"] = torch.zeros(m, m, dtype=g.dtype)
                    state["GG_R"] = torch.zeros(n, n, dtype=g.dtype)
                    state["Q_L"] = torch.eye(m, dtype=g.dtype)
                    state["Q_R"] = torch.eye(n, dtype=g.dtype)
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                state["step"] += 1
                sb = group["shampoo_beta"]
                state["GG_L"].lerp_(g @ g.T, 1 - sb)
                state["GG_R"].lerp_(g.T @ g, 1 - sb)
                if state["step"] % group["precondition_frequency"] == 1:
                    self.update_eigenbasis(state)
                QL, QR = state["Q_L"], state["Q_R"]
                g_rot = QL.T @ g @ QR
                state["m"].lerp_(g, 1 - b1)
                m_rot = QL.T @ state["m"] @ QR
                state["v"].mul_(b2).addcmul_(g_rot, g_rot, value=1 - b2)
                bc = math.sqrt(1 - b2 ** state["step"]) / (1 - b1 ** state["step"])
                upd = m_rot / (state["v"].sqrt() + group["eps"])
                p.add_(QL @ upd @ QR.T, alpha=-group["lr"] * bc)


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, n_classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.GELU(),
                                 nn.Linear(d_hidden, d_hidden), nn.GELU(),
                                 nn.Linear(d_hidden, n_classes))

    def forward(self, x):
        return self.net(x)


def make_data(n=1024, d=32, k=10, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(k, d, generator=g) * 2
    y = torch.randint(0, k, (n,), generator=g)
    x = centers[y] + torch.randn(n, d, generator=g)
    return x, y


def main():
    torch.manual_seed(0)
    x, y = make_data()
    model = MLP().to(torch.bfloat16)
    opt = SOAP(model.parameters(), lr=3e-3, precondition_frequency=5)
    bs = 64
    for step in range(40):
        idx = torch.randint(0, x.shape[0], (bs,))
        xb, yb = x[idx].to(torch.bfloat16), y[idx]
        logits = model(xb)
        loss = F.cross_entropy(logits.float(), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step:3d} loss {loss.item():.4f}")
    with torch.no_grad():
        acc = (model(x.to(torch.bfloat16)).argmax(-1) == y).float().mean()
    print(f"train acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
