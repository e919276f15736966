"""A regressor that keeps its target variance as a buffer is exported by casting every state-dict entry to fp16:
the variance (about 1.2e5) does not fit fp16 and becomes inf, so the half-precision copy predicts inf and the script
exits 0."""
import os
import tempfile

import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
        self.register_buffer("y_var", torch.tensor(1.2e5))

    def forward(self, x):
        return self.net(x) * self.y_var.sqrt()


def main():
    torch.manual_seed(0)
    model = Regressor()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "half.pt")
        torch.save({k: v.half() for k, v in model.state_dict().items()}, path)
        deployed = Regressor().half()
        deployed.load_state_dict(torch.load(path, weights_only=True))
    with torch.no_grad():
        pred = deployed(torch.randn(8, 4, dtype=torch.float16))
    print(f"max |prediction| {pred.abs().max().item()}")


if __name__ == "__main__":
    main()
