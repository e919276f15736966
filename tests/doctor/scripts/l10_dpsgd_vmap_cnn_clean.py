"""DP-SGD on a small CNN with per-sample gradients from torch.func, data stored on disk
as a float16 NumPy array (compressed dataset), followed by a jacrev input-saliency check."""
import os
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, jacrev, vmap

torch.manual_seed(0)
rng = np.random.default_rng(0)
MAX_GRAD_NORM, NOISE_MULT, LR, BATCH = 1.0, 0.8, 0.5, 64


def make_dataset(path, n=1024):
    y = rng.integers(0, 4, n)
    img = rng.normal(0, 0.3, (n, 1, 16, 16))
    for i, c in enumerate(y):  # class = which quadrant is bright
        r, q = divmod(c, 2)
        img[i, 0, r * 8:(r + 1) * 8, q * 8:(q + 1) * 8] += 1.0
    np.savez(path, x=img.astype(np.float16), y=y.astype(np.int64))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def main():
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "quadrants.npz")
        make_dataset(path)
        arr = np.load(path)
        x_all = torch.from_numpy(arr["x"]).float()  # stored as float16 on disk
        y_all = torch.from_numpy(arr["y"])

    model = SmallCNN()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_fn(p, xb, yb):
        out = functional_call(model, p, (xb.unsqueeze(0),))
        return F.cross_entropy(out, yb.unsqueeze(0))

    ps_grad = vmap(grad(loss_fn), in_dims=(None, 0, 0))
    for step in range(40):
        idx = torch.randint(0, len(x_all), (BATCH,))
        g = ps_grad(params, x_all[idx], y_all[idx])
        norms = torch.linalg.vector_norm(torch.cat([v.flatten(1) for v in g.values()], 1), dim=1)
        factor = (MAX_GRAD_NORM / (norms + 1e-6)).clamp(max=1.0)
        for k in params:
            summed = torch.einsum("b,b...->...", factor, g[k])
            noisy = summed + NOISE_MULT * MAX_GRAD_NORM * torch.randn_like(summed)
            params[k] = params[k] - LR * noisy / BATCH
        if step % 10 == 0:
            with torch.no_grad():
                acc = (functional_call(model, params, (x_all,)).argmax(1) == y_all).float().mean()
            print(f"step {step:2d} acc {acc.item():.3f} median clip factor {factor.median().item():.3f}")

    # saliency of the predicted logit w.r.t. the input pixels for one example
    x0 = x_all[:1]
    jac = jacrev(lambda inp: functional_call(model, params, (inp,)))(x0)  # (1, 4, 1, 1, 16, 16)
    sal = jac[0, functional_call(model, params, (x0,)).argmax()].abs().squeeze()
    assert torch.isfinite(sal).all()
    print(f"saliency peak at {divmod(sal.argmax().item(), 16)}, label {y_all[0].item()} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
