"""Dense-retrieval dual encoder (shared tiny RoBERTa, mean pooling) trained with an
in-batch-negatives InfoNCE loss; fp16 autocast + GradScaler."""
import torch
import torch.nn.functional as F
from transformers import RobertaConfig, RobertaModel

torch.manual_seed(0)
V, QLEN, DLEN, BS, TEMP = 500, 12, 40, 16, 0.05

cfg = RobertaConfig(vocab_size=V, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=80, pad_token_id=1)
encoder = RobertaModel(cfg, add_pooling_layer=False)


def embed(ids):
    mask = (ids != cfg.pad_token_id).long()
    h = encoder(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask.unsqueeze(-1).to(h.dtype)
    return F.normalize((h * m).sum(1) / m.sum(1), dim=-1)


def make_pairs(n):
    docs = torch.randint(3, V, (n, DLEN))
    docs[:, 0] = 0
    start = torch.randint(1, DLEN - QLEN, (n,))
    queries = torch.stack([docs[i, s:s + QLEN] for i, s in enumerate(start.tolist())])
    queries = torch.cat([torch.zeros(n, 1, dtype=torch.long), queries], 1)
    return queries, docs


def info_nce(q, d):
    sim = q @ d.t() / TEMP
    pos = torch.exp(sim.diagonal())
    return -torch.log(pos / torch.exp(sim).sum(dim=-1)).mean()


opt = torch.optim.AdamW(encoder.parameters(), lr=2e-4)
scaler = torch.amp.GradScaler("cpu")
for step in range(30):
    queries, docs = make_pairs(BS)
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        q = embed(queries)
        d = embed(docs)
        loss = info_nce(q, d)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}")

# recall@1 on a fresh batch
with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.float16):
    queries, docs = make_pairs(64)
    r1 = ((embed(queries) @ embed(docs).t()).argmax(1) == torch.arange(64)).float().mean()
print("recall@1", r1.item())
