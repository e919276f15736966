"""A hand-written fp8 linear: weights and activations are quantized to float8_e4m3fn with per-tensor scales taken from
their bf16 amax, so the scales stay bf16, and torch._scaled_mm accepts only float32 scales."""
import torch
from torch import nn

E4M3_MAX = 448.0


class Fp8Linear(nn.Module):
    def __init__(self, base: nn.Linear):
        super().__init__()
        w = base.weight.detach().to(torch.bfloat16)
        self.w_scale = w.abs().amax() / E4M3_MAX          # bf16: the scale keeps the weight's dtype
        self.w_fp8 = (w / self.w_scale).to(torch.float8_e4m3fn)

    def forward(self, x):
        x_scale = x.abs().amax() / E4M3_MAX               # bf16 too
        x_fp8 = (x / x_scale).to(torch.float8_e4m3fn)
        return torch._scaled_mm(x_fp8, self.w_fp8.t(), scale_a=x_scale, scale_b=self.w_scale,
                                out_dtype=torch.bfloat16)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(Fp8Linear(nn.Linear(32, 16)), nn.ReLU())
    print(model(torch.randn(16, 32, dtype=torch.bfloat16)).float().sum())


if __name__ == "__main__":
    main()
