import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, EOS = 700, 128, 4, 2, 1


class DecoderLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(128, D)
        layer = nn.TransformerEncoderLayer(D, HEADS, 4 * D, dropout=0.0, batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.final_norm = nn.LayerNorm(D)
        nn.init.normal_(self.embed.weight, std=0.3)
        nn.init.normal_(self.pos.weight, std=0.02)

    def forward(self, ids):
        t = ids.shape[1]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
        h = self.layers(self.embed(ids) + self.pos(torch.arange(t)), mask=mask)
        return self.final_norm(h) @ self.embed.weight.T


def log_softmax(logits):
    return logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))


@torch.no_grad()
def beam_search(model, prompt, num_beams=4, max_new=20, length_penalty=1.0, no_repeat=True):
    plen = prompt.shape[-1]
    beams = prompt.repeat(num_beams, 1)
    scores = torch.zeros(num_beams, dtype=torch.float32)
    scores[1:] = float("-inf")
    finished = []
    for step in range(max_new):
        logits = model(beams)[:, -1]
        logp = log_softmax(logits).float()
        if no_repeat and step > 0:
            logp.scatter_(1, beams[:, plen:], float("-inf"))
        cand = (scores[:, None] + logp).view(-1)
        top_scores, top_idx = cand.topk(2 * num_beams)
        beam_idx, tok_idx = top_idx // VOCAB, top_idx % VOCAB
        next_beams, next_scores = [], []
        for s, b, t in zip(top_scores.tolist(), beam_idx.tolist(), tok_idx.tolist()):
            seq = torch.cat([beams[b], torch.tensor([t])])
            if t == EOS:
                finished.append((s / (len(seq) - plen) ** length_penalty, seq))
            else:
                next_beams.append(seq)
                next_scores.append(s)
            if len(next_beams) == num_beams:
                break
        beams = torch.stack(next_beams)
        scores = torch.tensor(next_scores)
    for s, seq in zip(scores.tolist(), beams):
        finished.append((s / (len(seq) - plen) ** length_penalty, seq))
    finished.sort(key=lambda x: x[0], reverse=True)
    return finished[:num_beams]


model = DecoderLM().half().eval()
prompts = [torch.randint(2, VOCAB, (n,)) for n in (6, 10, 8)]
for i, prompt in enumerate(prompts):
    hyps = beam_search(model, prompt)
    best_score, best_seq = hyps[0]
    print(f"prompt {i}: best continuation {best_seq[len(prompt):].tolist()[:10]}")
    print(f"  normalized beam scores: {[round(s, 4) for s, _ in hyps]}")
    with torch.no_grad():
        logits = model(best_seq[None])[0, len(prompt) - 1:-1]
        lp = log_softmax(logits).float().gather(-1, best_seq[len(prompt):, None]).sum()
    print(f"  rescored logprob of best hypothesis: {lp.item():.4f}")
