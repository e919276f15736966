"""An fp16 model whose MLP activations pass 65504: inf in the forward, then a NaN loss; the script exits 0."""
import torch
from _tiny import batch, tiny_llama


def main():
    model = tiny_llama(torch.float16)
    mlp = model.model.layers[1].mlp
    with torch.no_grad():  # weights grown large (up to ~1e5, still fp16): the up projection's outputs are not
        mlp.up_proj.weight.mul_(5e5)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    ids = batch()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    print(f"loss {loss.item()}")  # nan, and the script goes on as if nothing happened


if __name__ == "__main__":
    main()
