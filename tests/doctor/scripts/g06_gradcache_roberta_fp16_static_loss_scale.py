"""Gradient caching (GradCache) for large-batch contrastive training of a RoBERTa-style
bi-encoder on a small memory budget: the model runs in fp16, representations are first
computed without grad in chunks, the in-batch loss is back-propagated to the cached
representations, then each chunk is re-encoded and its cached gradient applied.
A static loss scale protects the fp16 gradients from underflow."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import RobertaConfig, RobertaModel

torch.manual_seed(6)
rng = np.random.default_rng(6)
VOCAB, BOS, PAD, EOS = 700, 0, 1, 2
BATCH, CHUNK, TAU = 32, 8, 0.05
LOSS_SCALE = 2.0 ** 16

cfg = RobertaConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=80, pad_token_id=PAD,
                    bos_token_id=BOS, eos_token_id=EOS)
model = RobertaModel(cfg, add_pooling_layer=False).half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def sample_batch(n):
    qs, ps = [], []
    for _ in range(n):
        t = rng.integers(5, VOCAB, size=4).tolist()
        qs.append([BOS, *t[:2], *rng.integers(5, VOCAB, size=3).tolist(), EOS])
        ps.append([BOS, *t, *rng.integers(5, VOCAB, size=int(rng.integers(6, 20))).tolist(), EOS])
    return qs, ps


def collate(seqs):
    L = max(map(len, seqs))
    ids = torch.tensor([s + [PAD] * (L - len(s)) for s in seqs])
    return ids, (ids != PAD).long()


def encode(seqs):
    ids, mask = collate(seqs)
    h = model(input_ids=ids, attention_mask=mask).last_hidden_state
    return F.normalize(h[:, 0], dim=-1)  # <s> token


def chunks(xs):
    return [xs[i:i + CHUNK] for i in range(0, len(xs), CHUNK)]


for step in range(4):
    qs, ps = sample_batch(BATCH)

    # 1) representation pass, no graph
    with torch.no_grad():
        q_reps = torch.cat([encode(c) for c in chunks(qs)])
        p_reps = torch.cat([encode(c) for c in chunks(ps)])

    # 2) loss on the cached representations, gradients w.r.t. the representations
    q_reps.requires_grad_(True)
    p_reps.requires_grad_(True)
    scores = q_reps @ p_reps.T / TAU
    labels = torch.arange(BATCH)
    loss = F.cross_entropy(scores, labels)
    (loss * LOSS_SCALE).backward()
    q_grads, p_grads = q_reps.grad.split(CHUNK), p_reps.grad.split(CHUNK)

    # 3) re-encode each chunk with grad and push the cached gradient through the encoder
    for c, g in zip(chunks(qs), q_grads):
        torch.dot(encode(c).flatten(), g.flatten()).backward()
    for c, g in zip(chunks(ps), p_grads):
        torch.dot(encode(c).flatten(), g.flatten()).backward()

    for p in model.parameters():
        p.grad.div_(LOSS_SCALE)
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
print("training done")
