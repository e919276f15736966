import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM

CHARS = ["<pad>", "<s>", "</s>", " "] + list("abcdefghiklmnorst")
V = len(CHARS)
STOI = {c: i for i, c in enumerate(CHARS)}
SENTS = ["the cat sat", "a dog ran", "this is it", "set the mat", "ask her not", "the rose lit"]


def lm_batch(rnd, n=16):
    lines = [rnd.choice(SENTS) for _ in range(n)]
    ids = [[1] + [STOI[c] for c in s] + [2] for s in lines]
    L = max(map(len, ids))
    return torch.tensor([x + [0] * (L - len(x)) for x in ids])


class SegmentAM(nn.Module):
    """Acoustic model over pre-segmented audio: one posterior per character segment."""

    def __init__(self, feat=32, d=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(feat, d), nn.ReLU(), nn.Linear(d, V))

    def forward(self, segs):
        return self.net(segs)


def segments_for(text, g, feat=32):
    ids = torch.tensor([STOI[c] for c in text])
    x = torch.randn(len(ids), feat, generator=g) * 0.8
    x[torch.arange(len(ids)), ids] += 1.5
    return x, ids


def beam_search(am, lm, segs, beam=4, lm_weight=0.5):
    dtype = next(lm.parameters()).dtype
    am_probs = torch.softmax(am(segs.to(dtype)), -1)
    hyps = torch.ones(1, 1, dtype=torch.long)
    scores = torch.ones(1, dtype=dtype)
    for u in range(am_probs.shape[0]):
        lm_probs = torch.softmax(lm(input_ids=hyps).logits[:, -1], -1)
        cand = scores[:, None] * am_probs[u][None, :] * lm_probs.pow(lm_weight)
        top, idx = cand.flatten().topk(beam)
        hyps = torch.cat([hyps[idx // V], (idx % V)[:, None]], 1)
        scores = top
    log_scores = torch.log(scores.float()) / am_probs.shape[0]
    return hyps[:, 1:], log_scores


def cer(hyp, ref):
    d = list(range(len(ref) + 1))
    for i in range(1, len(hyp) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(ref) + 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (hyp[i - 1] != ref[j - 1]))
    return d[-1] / max(len(ref), 1)


def main():
    torch.manual_seed(0)
    rnd = random.Random(0)
    g = torch.Generator().manual_seed(0)
    cfg = LlamaConfig(vocab_size=V, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                      pad_token_id=0, bos_token_id=1, eos_token_id=2)
    lm = LlamaForCausalLM(cfg)
    am = SegmentAM()
    opt = torch.optim.AdamW(list(lm.parameters()) + list(am.parameters()), lr=3e-3)
    for step in range(30):
        ids = lm_batch(rnd)
        lm_loss = lm(input_ids=ids, labels=ids.masked_fill(ids == 0, -100)).loss
        segs, tgt = segments_for(rnd.choice(SENTS), g)
        am_loss = F.cross_entropy(am(segs), tgt)
        loss = lm_loss + am_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} lm loss {lm_loss.item():.4f} am loss {am_loss.item():.4f}")

    lm, am = lm.half().eval(), am.half().eval()
    total_cer = 0.0
    with torch.no_grad():
        for ref in ["the cat sat on the mat", "this rose is lit", "a dog ran to the cat"]:
            segs, _ = segments_for(ref, g)
            hyps, log_scores = beam_search(am, lm, segs)
            best = log_scores.argmax()
            text = "".join(CHARS[i] for i in hyps[best].tolist())
            total_cer += cer(text, ref)
            print(f"ref '{ref}' hyp '{text}' fused log-score/char {log_scores[best].item():.4f}")
    print(f"mean CER {total_cer / 3:.3f}")


if __name__ == "__main__":
    main()
