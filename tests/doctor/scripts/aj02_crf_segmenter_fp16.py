import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, NUM_TAGS, SEQ_LEN, BATCH = 120, 4, 12, 32  # tags: B, M, E, S


def make_batch(n):
    chars = torch.randint(1, VOCAB, (n, SEQ_LEN))
    tags = torch.full((n, SEQ_LEN), 3, dtype=torch.long)
    for i in range(n):
        pos = 0
        while pos < SEQ_LEN:
            w = int(torch.randint(1, 4, ()).item())
            w = min(w, SEQ_LEN - pos)
            if w == 1:
                tags[i, pos] = 3
            else:
                tags[i, pos] = 0
                tags[i, pos + 1:pos + w - 1] = 1
                tags[i, pos + w - 1] = 2
            pos += w
    return chars, tags


class LinearChainCRF(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.transitions = nn.Parameter(torch.randn(k, k) * 0.5)
        self.start = nn.Parameter(torch.zeros(k))

    def log_partition(self, emissions):
        alpha = self.start + emissions[:, 0]
        for t in range(1, emissions.size(1)):
            scores = alpha.unsqueeze(2) + self.transitions.unsqueeze(0) + emissions[:, t].unsqueeze(1)
            alpha = torch.log(torch.exp(scores).sum(dim=1))
        return torch.log(torch.exp(alpha).sum(dim=1))

    def gold_score(self, emissions, tags):
        b = torch.arange(emissions.size(0))
        score = self.start[tags[:, 0]] + emissions[b, 0, tags[:, 0]]
        for t in range(1, emissions.size(1)):
            score = score + self.transitions[tags[:, t - 1], tags[:, t]] + emissions[b, t, tags[:, t]]
        return score

    def forward(self, emissions, tags):
        return (self.log_partition(emissions) - self.gold_score(emissions, tags)).mean()


class Segmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 48)
        self.conv = nn.Conv1d(48, 64, kernel_size=5, padding=2)
        self.out = nn.Linear(64, NUM_TAGS)
        self.crf = LinearChainCRF(NUM_TAGS)

    def forward(self, chars, tags):
        h = torch.tanh(self.conv(self.emb(chars).transpose(1, 2))).transpose(1, 2)
        emissions = self.out(h) * 2.0
        return self.crf(emissions, tags)


model = Segmenter().half()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train = [make_batch(BATCH) for _ in range(8)]

for epoch in range(4):
    running = 0.0
    for chars, tags in train:
        loss = model(chars, tags)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.float().item()
    print(f"epoch {epoch} crf nll {running / len(train):.4f}")

model.eval()
with torch.no_grad():
    chars, tags = make_batch(64)
    print("held-out nll", model(chars, tags).float().item())
