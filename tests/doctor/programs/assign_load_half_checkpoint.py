"""An fp32 model reloads a checkpoint exported in bf16 with `load_state_dict(assign=True)`: assign keeps the
checkpoint's tensors, so the parameters become bf16 and the fp32 inputs meet them in the first layer."""
import torch
from torch import nn


def build():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))


def main():
    torch.manual_seed(0)
    exported = {k: v.to(torch.bfloat16) for k, v in build().state_dict().items()}
    model = build()
    model.load_state_dict(exported, assign=True)
    model(torch.randn(4, 8))


if __name__ == "__main__":
    main()
