import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, DIM, SEQ = 384, 128, 48


class TinyLM(nn.Module):
    def __init__(self, vocab=VOCAB, dim=DIM, depth=2, heads=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(SEQ, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.register_buffer("causal", torch.triu(torch.full((SEQ, SEQ), float("-inf")), 1), persistent=False)

    def forward(self, ids):
        h = self.tok(ids) + self.pos[: ids.size(1)]
        h = self.blocks(h, mask=self.causal[: ids.size(1), : ids.size(1)], is_causal=True)
        return self.norm(h) @ self.tok.weight.t()


def make_sequences(n, rng):
    starts = torch.randint(0, VOCAB, (n, 1), generator=rng)
    steps = torch.randint(1, 7, (n, 1), generator=rng)
    seq = (starts + steps * torch.arange(SEQ + 1)) % VOCAB
    noise = torch.rand(seq.shape, generator=rng) < 0.1
    return torch.where(noise, torch.randint(0, VOCAB, seq.shape, generator=rng), seq)


@torch.no_grad()
def evaluate(model, data):
    model.eval().half()
    nll, conf, correct, count = 0.0, 0.0, 0, 0
    for i in range(0, len(data), 64):
        batch = data[i:i + 64]
        logits = model(batch[:, :-1])
        probs = logits.softmax(-1)
        tgt = batch[:, 1:]
        p_tgt = probs.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
        nll += -torch.log(p_tgt).float().sum().item()
        top_p, top_i = probs.max(-1)
        conf += top_p.float().sum().item()
        correct += (top_i == tgt).sum().item()
        count += tgt.numel()
    model.float()
    return nll / count, conf / count, correct / count


def main():
    rng = torch.Generator().manual_seed(0)
    train, val = make_sequences(768, rng), make_sequences(256, rng)
    model = TinyLM()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.0)

    for epoch in range(2):
        model.train()
        for i in range(0, len(train), 32):
            batch = train[i:i + 32]
            with torch.autograd.graph.save_on_cpu(pin_memory=False):
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    logits = model(batch[:, :-1])
                loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        val_nll, val_conf, val_acc = evaluate(model, val)
        print(f"epoch {epoch} train loss {loss.item():.3f} | val nll {val_nll:.3f} "
              f"ppl {math.exp(val_nll):.1f} conf {val_conf:.3f} acc {val_acc:.3f}")


if __name__ == "__main__":
    main()
