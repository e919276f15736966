"""A hand-written Adam-like optimizer keeps its moments in fp32 while the model was cast to bf16: the bf16 gradient
statistic meets the fp32 state in lerp_."""
import torch
from torch import nn


class TinyAdam(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999)):
        super().__init__(params, dict(lr=lr, betas=betas))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["m"] = torch.zeros_like(p, dtype=torch.float32)  # fp32 moments
                    state["v"] = torch.zeros_like(p, dtype=torch.float32)
                state["m"].lerp_(p.grad, 1 - beta1)  # bf16 gradient into fp32 state
                state["v"].lerp_(p.grad * p.grad, 1 - beta2)
                p.add_((state["m"] / (state["v"].sqrt() + 1e-8)).to(p.dtype), alpha=-group["lr"])


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1)).to(torch.bfloat16)
    optimizer = TinyAdam(model.parameters())
    loss = model(torch.randn(4, 8, dtype=torch.bfloat16)).float().pow(2).mean()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    main()
