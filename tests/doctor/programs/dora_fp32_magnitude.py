"""S000: a DoRA-style layer keeps its magnitude in fp32 and feeds the fp32 rescaled weight to a bf16 matmul."""
import torch
import torch.nn.functional as F
from torch import nn
from _tiny import batch, tiny_llama


class DoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.magnitude = nn.Parameter(base.weight.detach().float().norm(dim=1))  # fp32 master copy

    def forward(self, x):
        w = self.base.weight.float() + self.lora_B @ self.lora_A
        w = (self.magnitude / w.norm(dim=1).detach()).unsqueeze(1) * w  # fp32
        return F.linear(x, w)  # bf16 activations x fp32 weight


def main():
    model = tiny_llama(torch.bfloat16).requires_grad_(False)
    attn = model.model.layers[1].self_attn
    attn.o_proj = DoRALinear(attn.o_proj)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    ids = batch()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()


if __name__ == "__main__":
    main()
