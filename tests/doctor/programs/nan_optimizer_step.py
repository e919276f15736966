"""fp16 trainable weights updated without an fp32 master copy: lr x gradient passes 65504, the step writes inf
into the weights, and the next forward is NaN; the script exits 0."""
import torch
from torch.nn import functional as F
from _tiny import batch, tiny_llama


def main():
    model = tiny_llama(torch.float16).requires_grad_(False)
    head = model.lm_head.weight.requires_grad_(True)
    opt = torch.optim.SGD([head], lr=3e4)  # far too large for a summed loss on fp16 weights
    ids = batch()
    for step in range(2):
        logits = model(input_ids=ids).logits.float()
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten(), reduction="sum")
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
