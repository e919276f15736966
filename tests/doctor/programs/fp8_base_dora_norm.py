"""A DoRA-style weight norm on a base weight stored in float8 (to save memory) added to an fp16 LoRA update:
PyTorch does not promote float8, so the add fails."""
import torch
from torch import nn


class Fp8DoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4):
        super().__init__()
        self.weight_fp8 = base.weight.detach().to(torch.float8_e4m3fn)  # storage dtype
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features, dtype=torch.float16) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r, dtype=torch.float16))

    def forward(self, x):
        w = self.weight_fp8 + self.lora_B @ self.lora_A  # float8 + fp16: no promotion
        return nn.functional.linear(x, w / w.norm(dim=1, keepdim=True))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(Fp8DoRALinear(nn.Linear(16, 16)), nn.ReLU(), nn.Linear(16, 4).half())
    model(torch.randn(2, 16, dtype=torch.float16)).float().sum().backward()


if __name__ == "__main__":
    main()
