"""Clean: per-sample gradients with torch.func (vmap over grad of functional_call), then a bf16-autocast evaluation.
The doctor's module hooks run inside the transforms and must leave the wrapped tensors alone."""
import torch
from torch import nn
from torch.func import functional_call, grad, vmap


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = torch.randn(12, 8), torch.randint(0, 3, (12,))

    def sample_loss(p, xi, yi):
        logits = functional_call(model, p, (xi.unsqueeze(0),))
        return nn.functional.cross_entropy(logits, yi.unsqueeze(0))

    grads = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, x, y)
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads.values()]).sum(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p -= 0.1 * grads[name].mean(0)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x).float(), y)
    assert torch.isfinite(norms).all() and torch.isfinite(loss)
    print("clean run ok", tuple(norms.shape), f"{loss.item():.3f}")


if __name__ == "__main__":
    main()
