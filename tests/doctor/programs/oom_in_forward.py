"""A layer that asks for far more memory than the machine has (a runaway buffer, an activation of 2**50 bytes):
the allocator's out-of-memory error, in the forward of model.layers.1.mlp.act_fn."""
import torch
from torch import nn
from _tiny import batch, tiny_llama


class GreedyAct(nn.Module):
    def forward(self, x):
        scratch = torch.empty(2**48, dtype=torch.float32)  # 1 PiB: no machine has it
        return nn.functional.silu(x) + scratch[:1]


def main():
    model = tiny_llama(torch.float32)
    model.model.layers[1].mlp.act_fn = GreedyAct()
    ids = batch()
    model(input_ids=ids, labels=ids).loss.backward()


if __name__ == "__main__":
    main()
