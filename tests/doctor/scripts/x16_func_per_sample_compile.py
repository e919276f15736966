import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(16)

IN_DIM, N_CLASSES = 20, 4
CLIP, NOISE = 1.0, 0.8


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN_DIM, 64)
        self.fc2 = nn.Linear(64, 64)
        self.out = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        return self.out(F.gelu(self.fc2(F.gelu(self.fc1(x)))))


def make_data(n, proj):
    x = torch.randn(n, IN_DIM)
    return x, (x @ proj).argmax(1)


def sample_loss(params, buffers, model, x, y):
    logits = functional_call(model, (params, buffers), (x.unsqueeze(0),))
    return F.cross_entropy(logits.float(), y.unsqueeze(0))


def main():
    proj = torch.randn(IN_DIM, N_CLASSES)
    x, y = make_data(4000, proj)
    xv, yv = make_data(1000, proj)
    model = SmallNet()
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    per_sample_grads = vmap(grad(sample_loss), in_dims=(None, None, None, 0, 0))
    lr = 0.5
    for step in range(150):
        idx = torch.randint(0, len(x), (128,))
        g = per_sample_grads(params, buffers, model, x[idx], y[idx])
        norms = torch.sqrt(sum(v.flatten(1).pow(2).sum(1) for v in g.values()))
        factor = (CLIP / (norms + 1e-6)).clamp(max=1.0)
        for k in params:
            clipped = (g[k] * factor.view(-1, *[1] * (g[k].dim() - 1))).sum(0)
            noisy = clipped + NOISE * CLIP * torch.randn_like(clipped)
            params[k] = params[k] - lr * noisy / len(idx)
        if step % 50 == 0:
            print(f"step {step} mean per-sample grad norm {norms.mean().item():.3f}")

    model.load_state_dict(params, strict=False)
    model.eval()
    compiled = torch.compile(model)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        logits = compiled(xv)
    loss = F.cross_entropy(logits.float(), yv)
    acc = (logits.float().argmax(1) == yv).float().mean()
    print(f"val loss {loss.item():.4f} acc {acc.item():.3f} (bf16 compiled)")


if __name__ == "__main__":
    main()
