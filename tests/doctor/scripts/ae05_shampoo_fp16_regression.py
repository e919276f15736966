import torch
import torch.nn as nn
import torch.nn.functional as F


class Shampoo(torch.optim.Optimizer):
    """Full-matrix Shampoo for 2D weights, diagonal AdaGrad for vectors."""

    def __init__(self, params, lr=1e-2, momentum=0.9, epsilon=1e-4, update_freq=10):
        super().__init__(params, dict(lr=lr, momentum=momentum, epsilon=epsilon, update_freq=update_freq))

    @staticmethod
    def _inv_root(mat, eps, root=4, iters=25):
        """Coupled Newton iteration for mat^(-1/root), done in fp32."""
        mat = mat.float()
        n = mat.shape[0]
        eye = torch.eye(n)
        mat = mat + eps * torch.linalg.matrix_norm(mat) * eye
        alpha = -1.0 / root
        z = (1 + root) / (2 * torch.linalg.matrix_norm(mat))
        mat_m = mat * z
        mat_h = eye * z.pow(1.0 / root)
        for _ in range(iters):
            mat_m_i = (1 - alpha) * eye + alpha * mat_m
            mat_m = torch.linalg.matrix_power(mat_m_i, root) @ mat_m
            mat_h = mat_h @ mat_m_i
        return mat_h

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["buf"] = torch.zeros_like(p)
                    if p.ndim == 2:
                        m, n = p.shape
                        state["L"] = torch.zeros(m, m, dtype=p.dtype)
                        state["R"] = torch.zeros(n, n, dtype=p.dtype)
                        state["L_inv"] = torch.eye(m, dtype=p.dtype)
                        state["R_inv"] = torch.eye(n, dtype=p.dtype)
                    else:
                        state["acc"] = torch.zeros_like(p)
                state["step"] += 1
                if p.ndim == 2:
                    state["L"].add_(g @ g.T)
                    state["R"].add_(g.T @ g)
                    if state["step"] % group["update_freq"] == 1:
                        state["L_inv"] = self._inv_root(state["L"], group["epsilon"]).to(p.dtype)
                        state["R_inv"] = self._inv_root(state["R"], group["epsilon"]).to(p.dtype)
                    pg = state["L_inv"] @ g @ state["R_inv"]
                else:
                    state["acc"].addcmul_(g, g)
                    pg = g / (state["acc"].sqrt() + 1e-6)
                state["buf"].mul_(group["momentum"]).add_(pg)
                p.add_(state["buf"], alpha=-group["lr"])


def make_data(n=4096, d=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, d, generator=g) * 4
    w = torch.rand(d, generator=g)
    y = 4 + (x * w).sum(-1) + 2 * torch.sin(x[:, 0] * 2)
    return x, y[:, None]


def main():
    torch.manual_seed(0)
    x, y = make_data()
    model = nn.Sequential(nn.Linear(24, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 1)).half()
    opt = Shampoo(model.parameters(), lr=3e-3, update_freq=10)
    ds = torch.utils.data.TensorDataset(x.half(), y.half())
    loader = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True)
    step = 0
    for epoch in range(3):
        for xb, yb in loader:
            loss = F.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 16 == 0:
                print(f"epoch {epoch} step {step:4d} mse {loss.item():.4f}")
            step += 1
    with torch.no_grad():
        print(f"final mse {F.mse_loss(model(x.half()).float(), y).item():.4f}")


if __name__ == "__main__":
    main()
