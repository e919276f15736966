"""A custom autograd.Function whose forward is fine and whose backward divides by zero: the loss is finite, the
gradients are NaN/inf, and the script exits 0."""
import torch
from torch import nn
from _tiny import batch, tiny_llama


class ScaledSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return nn.functional.silu(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        norm = (x - x).abs()  # meant to be a running scale; zero here
        return grad * (s * (1 + x * (1 - s))) / norm


class CustomAct(nn.Module):
    def forward(self, x):
        return ScaledSiLU.apply(x)


def main():
    model = tiny_llama(torch.float32)
    model.model.layers[0].mlp.act_fn = CustomAct()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = batch()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
