"""A sequence's likelihood taken as the product of its tokens' probabilities in fp16: twelve probabilities near 1/64
multiply to about 1e-22, far below fp16's smallest value, so the product is 0 and its log -inf; the loss is NaN and
the script exits 0."""
import torch
from torch import nn


def sequence_log_likelihood(logits, tokens):
    tok_probs = logits.softmax(-1).gather(-1, tokens[..., None]).squeeze(-1)
    seq_prob = tok_probs.prod(dim=-1)
    return torch.log(seq_prob)


def main():
    torch.manual_seed(0)
    head = nn.Linear(16, 64).half()
    hidden = torch.randn(4, 12, 16, dtype=torch.float16)
    tokens = torch.randint(0, 64, (4, 12))
    chosen = sequence_log_likelihood(head(hidden), tokens)
    loss = -(chosen - chosen.detach().mean()).mean()
    print(f"loss {loss.item()}")


if __name__ == "__main__":
    main()
