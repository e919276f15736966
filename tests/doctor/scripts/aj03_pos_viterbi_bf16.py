import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, NUM_TAGS, SEQ_LEN = 200, 9, 14


def synthetic_batch(n):
    words = torch.randint(0, VOCAB, (n, SEQ_LEN))
    tags = words % NUM_TAGS
    tags[:, 1:] = (tags[:, 1:] + (tags[:, :-1] == 3).long()) % NUM_TAGS
    return words, tags


class CRFTagger(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.randn(SEQ_LEN, d) * 0.02)
        self.enc = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=128, batch_first=True, dropout=0.0)
        self.emit = nn.Linear(d, NUM_TAGS)
        self.trans = nn.Parameter(torch.zeros(NUM_TAGS, NUM_TAGS))
        self.start = nn.Parameter(torch.zeros(NUM_TAGS))
        self.end = nn.Parameter(torch.zeros(NUM_TAGS))

    def emissions(self, words):
        return self.emit(self.enc(self.emb(words) + self.pos))

    def nll(self, words, tags):
        em = self.emissions(words)
        b = torch.arange(words.size(0))
        gold = self.start[tags[:, 0]] + em[b, 0, tags[:, 0]] + self.end[tags[:, -1]]
        gold = gold + (self.trans[tags[:, :-1], tags[:, 1:]] + em[:, 1:].gather(2, tags[:, 1:, None]).squeeze(2)).sum(1)
        alpha = self.start + em[:, 0]
        for t in range(1, SEQ_LEN):
            alpha = torch.logsumexp(alpha[:, :, None] + self.trans + em[:, t, None, :], dim=1)
        log_z = torch.logsumexp(alpha + self.end, dim=1)
        return (log_z - gold).mean()

    @torch.no_grad()
    def viterbi(self, words):
        em = self.emissions(words)
        score = self.start + em[:, 0]
        backpointers = torch.zeros_like(em)
        for t in range(1, SEQ_LEN):
            cand = score[:, :, None] + self.trans + em[:, t, None, :]
            score, idx = cand.max(dim=1)
            backpointers[:, t] = idx
        best = (score + self.end).argmax(dim=-1)
        path = [best]
        for t in range(SEQ_LEN - 1, 0, -1):
            best = backpointers[:, t].gather(1, best.unsqueeze(1)).squeeze(1)
            path.append(best)
        return torch.stack(path[::-1], dim=1)


model = CRFTagger()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(60):
    words, tags = synthetic_batch(32)
    loss = model.nll(words, tags)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step} nll {loss.item():.4f}")

model = model.to(torch.bfloat16).eval()
correct = total = 0
for _ in range(5):
    words, tags = synthetic_batch(64)
    pred = model.viterbi(words)
    correct += (pred == tags).sum().item()
    total += tags.numel()
print(f"viterbi accuracy {correct / total:.3f}")
print("dev nll", model.nll(words, tags).float().item())
