"""An HMM's forward algorithm scored in fp16 without rescaling: the emission probabilities come from a small fp16
model, alpha is multiplied by them at each of 40 steps and falls below fp16's smallest value, so it is 0; the log
is taken after widening to fp32, which keeps the 0: every log-likelihood is -inf and the script exits 0."""
import torch
from torch import nn


def forward_log_likelihood(emit, trans, start):
    alpha = start * emit[:, 0]
    for t in range(1, emit.shape[1]):
        alpha = (alpha @ trans) * emit[:, t]
    return torch.log(alpha.sum(-1).float())


def main():
    torch.manual_seed(0)
    states, symbols = 6, 32
    emitter = nn.Sequential(nn.Embedding(symbols, 16), nn.Linear(16, states)).half().eval()
    trans = torch.softmax(torch.randn(states, states), -1).half()
    start = torch.full((states,), 1.0 / states, dtype=torch.float16)
    with torch.no_grad():
        obs = torch.randint(0, symbols, (4, 40))
        emit = torch.softmax(emitter(obs), -1) / symbols  # p(symbol | state), spread over the symbols
        loglik = forward_log_likelihood(emit, trans, start)
    print(f"log-likelihood per sequence {loglik.tolist()}")


if __name__ == "__main__":
    main()
