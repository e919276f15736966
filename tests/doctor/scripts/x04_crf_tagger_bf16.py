import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)

VOCAB, N_TAGS, SEQ, BATCH = 200, 5, 80, 16


def make_batch():
    tags = torch.zeros(BATCH, SEQ, dtype=torch.long)
    tags[:, 0] = torch.randint(0, N_TAGS, (BATCH,))
    for t in range(1, SEQ):
        stay = torch.rand(BATCH) < 0.8
        tags[:, t] = torch.where(stay, tags[:, t - 1], torch.randint(0, N_TAGS, (BATCH,)))
    tokens = tags * (VOCAB // N_TAGS) + torch.randint(0, VOCAB // N_TAGS, (BATCH, SEQ))
    lengths = torch.randint(SEQ // 2, SEQ + 1, (BATCH,))
    mask = torch.arange(SEQ).unsqueeze(0) < lengths.unsqueeze(1)
    return tokens, tags, mask


class ConvEmitter(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 48)
        self.conv = nn.Conv1d(48, 64, kernel_size=5, padding=2)
        self.proj = nn.Linear(64, N_TAGS)

    def forward(self, tokens):
        h = self.embed(tokens).transpose(1, 2)
        h = F.gelu(self.conv(h)).transpose(1, 2)
        return self.proj(h)


class LinearChainCRF(nn.Module):
    def __init__(self, n_tags):
        super().__init__()
        self.trans = nn.Parameter(torch.zeros(n_tags, n_tags))
        self.start = nn.Parameter(torch.zeros(n_tags))
        self.end = nn.Parameter(torch.zeros(n_tags))

    def log_partition(self, emis, mask):
        alpha = self.start + emis[:, 0]
        for t in range(1, emis.size(1)):
            nxt = torch.logsumexp(alpha.unsqueeze(2) + self.trans.unsqueeze(0), dim=1) + emis[:, t]
            alpha = torch.where(mask[:, t:t + 1], nxt, alpha)
        return torch.logsumexp(alpha + self.end, dim=1)

    def gold_score(self, emis, tags, mask):
        m = mask.float()
        e = emis.gather(2, tags.unsqueeze(2)).squeeze(2)
        tr = self.trans[tags[:, :-1], tags[:, 1:]]
        last = tags.gather(1, (mask.sum(1) - 1).unsqueeze(1)).squeeze(1)
        return self.start[tags[:, 0]] + (e * m).sum(1) + (tr * m[:, 1:]).sum(1) + self.end[last]

    def nll(self, emis, tags, mask):
        emis = emis.float()
        return (self.log_partition(emis, mask) - self.gold_score(emis, tags, mask)).mean()


def main():
    emitter, crf = ConvEmitter(), LinearChainCRF(N_TAGS)
    params = list(emitter.parameters()) + list(crf.parameters())
    opt = torch.optim.Adam(params, lr=3e-3)
    for step in range(60):
        tokens, tags, mask = make_batch()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            emis = emitter(tokens)
        loss = crf.nll(emis, tags, mask)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 5.0)
        opt.step()
        if step % 10 == 0 or step == 59:
            print(f"step {step} nll/seq {loss.item():.3f}")
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        tokens, tags, mask = make_batch()
        pred = emitter(tokens).float().argmax(-1)
    print("token acc", ((pred == tags) & mask).sum().item() / mask.sum().item())


if __name__ == "__main__":
    main()
