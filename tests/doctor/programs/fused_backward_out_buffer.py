"""S002: a fused LoRA autograd.Function whose backward writes an fp32 result into a bf16 buffer via out=."""
import torch
from torch import nn
from _tiny import batch, tiny_llama


class FusedLoRAFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, lora_a, lora_b):
        ctx.save_for_backward(x, weight, lora_a, lora_b)
        low = (x.to(lora_a.dtype) @ lora_a.t()) @ lora_b.t()
        return x @ weight.t() + low.to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, lora_a, lora_b = ctx.saved_tensors
        g = grad_out.reshape(-1, grad_out.shape[-1])
        x2 = x.reshape(-1, x.shape[-1])
        grad_x = torch.empty_like(x2)  # buffer in the activation dtype (bf16) ...
        # ... but the fused path computes in fp32 (the adapters' dtype): out= is never cast by anyone
        torch.addmm(g.float() @ weight.float(), (g.float() @ lora_b) , lora_a, out=grad_x)
        grad_a = (g.float() @ lora_b).t() @ x2.float()
        grad_b = g.float().t() @ (x2.float() @ lora_a.t())
        return grad_x.view_as(x), None, grad_a, grad_b


class FusedLoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, r))

    def forward(self, x):
        return FusedLoRAFunction.apply(x, self.base.weight, self.lora_a, self.lora_b)


def main():
    model = tiny_llama(torch.bfloat16).requires_grad_(False)
    mlp = model.model.layers[1].mlp
    mlp.down_proj = FusedLoRALinear(mlp.down_proj)
    ids = batch()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()


if __name__ == "__main__":
    main()
