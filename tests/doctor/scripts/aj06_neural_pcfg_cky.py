import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, NT, T, D = 50, 6, 8, 32


def toy_corpus(n):
    base = torch.randint(0, VOCAB // 2, (n, 1))
    steps = torch.randint(1, 3, (n, T))
    return (base + steps.cumsum(1)) % VOCAB


class NeuralPCFG(nn.Module):
    def __init__(self):
        super().__init__()
        self.nt_emb = nn.Parameter(torch.randn(NT, D) * 0.1)
        self.word_mlp = nn.Sequential(nn.Linear(D, D), nn.ReLU(), nn.Linear(D, VOCAB))
        self.rule_mlp = nn.Sequential(nn.Linear(D, D), nn.ReLU(), nn.Linear(D, NT * NT))
        self.root = nn.Parameter(torch.zeros(NT))

    def terminal_logprobs(self, words):
        emit = self.word_mlp(self.nt_emb).log_softmax(-1)
        return emit[:, words].permute(1, 2, 0)

    def rule_probs(self):
        return self.rule_mlp(self.nt_emb).softmax(-1).view(NT, NT, NT)

    def inside(self, unary):
        B = unary.size(0)
        rules = self.rule_probs()
        chart = {}
        for i in range(T):
            chart[(i, i + 1)] = unary[:, i]
        for width in range(2, T + 1):
            for i in range(T - width + 1):
                j = i + width
                parts = []
                for k in range(i + 1, j):
                    left, right = chart[(i, k)], chart[(k, j)]
                    lmax = left.max(-1, keepdim=True).values
                    rmax = right.max(-1, keepdim=True).values
                    prob = torch.einsum("bl,br,plr->bp", (left - lmax).exp(), (right - rmax).exp(), rules)
                    parts.append(prob.clamp_min(1e-30).log() + lmax + rmax)
                chart[(i, j)] = torch.logsumexp(torch.stack(parts), dim=0)
        return torch.logsumexp(chart[(0, T)] + self.root.log_softmax(-1), dim=-1)


model = NeuralPCFG()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
train = [toy_corpus(32) for _ in range(6)]

for epoch in range(3):
    total = 0.0
    for words in train:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            unary = model.terminal_logprobs(words)
        log_z = model.inside(unary)
        loss = -log_z.mean() / T
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} per-token nll {total / len(train):.4f}")

with torch.no_grad():
    test = toy_corpus(64)
    ppl = torch.exp(-model.inside(model.terminal_logprobs(test)).mean() / T)
    print("test perplexity", ppl.item())
