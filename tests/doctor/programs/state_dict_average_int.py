"""Two checkpoints averaged into one by hand: BatchNorm's `num_batches_tracked` is an int64 entry among the float
weights, and scaling it in place by a Python float cannot store the float result."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    nets = [nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2)) for _ in range(2)]
    avg = {k: v.clone() for k, v in nets[0].state_dict().items()}
    for name, value in nets[1].state_dict().items():
        avg[name].mul_(0.5).add_(value, alpha=0.5)
    nets[0].load_state_dict(avg)


if __name__ == "__main__":
    main()
