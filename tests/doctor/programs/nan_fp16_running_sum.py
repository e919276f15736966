"""An fp16 evaluation whose summed losses are added up in an fp16 tensor outside any module: each batch's summed
cross-entropy is finite, the running total passes fp16's 65504 and the perplexity comes out inf; the model's own
outputs stay finite; the script exits 0."""
import math

import torch
import torch.nn.functional as F
from torch import nn


def main():
    torch.manual_seed(0)
    vocab = 64
    model = nn.Sequential(nn.Embedding(vocab, 32), nn.Linear(32, vocab)).half().eval()
    total, tokens = 0.0, 0
    with torch.no_grad():
        for _ in range(20):
            ids = torch.randint(0, vocab, (16, 64))
            logits = model(ids)
            total += F.cross_entropy(logits.reshape(-1, vocab), ids.reshape(-1), reduction="sum")
            tokens += ids.numel()
    print(f"perplexity {math.exp(total / tokens):.2f}")


if __name__ == "__main__":
    main()
