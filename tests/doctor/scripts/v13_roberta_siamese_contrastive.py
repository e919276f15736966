import random

import torch
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import RobertaConfig, RobertaModel

random.seed(0)
torch.manual_seed(0)
VOCAB, PAD = 600, 1


class PairwiseL2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        diff = a - b
        dist = diff.pow(2).sum(dim=-1).sqrt()
        ctx.save_for_backward(diff, dist)
        return dist

    @staticmethod
    def backward(ctx, grad_out):
        diff, dist = ctx.saved_tensors
        grad = grad_out.unsqueeze(-1) * diff / dist.unsqueeze(-1)
        return grad, -grad


def contrastive_loss(dist, label, margin=1.0):
    pos = label * dist.pow(2)
    neg = (1 - label) * torch.clamp(margin - dist, min=0).pow(2)
    return 0.5 * (pos + neg).mean()


def noisy_copy(ids):
    ids = list(ids)
    for _ in range(random.randint(0, 2)):
        ids[random.randrange(len(ids))] = random.randint(3, VOCAB - 1)
    return ids


def make_pairs(n):
    rows = []
    for i in range(n):
        a = [0] + [random.randint(3, VOCAB - 1) for _ in range(14)] + [2]
        if i % 3 == 0:
            rows.append({"a": a, "b": a if random.random() < 0.5 else noisy_copy(a), "label": 1.0})
        else:
            rows.append({"a": a, "b": [0] + [random.randint(3, VOCAB - 1) for _ in range(14)] + [2], "label": 0.0})
    return rows


ds = Dataset.from_list(make_pairs(192)).with_format("torch")
loader = DataLoader(ds, batch_size=32, shuffle=True)

config = RobertaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                       num_attention_heads=4, max_position_embeddings=40, pad_token_id=PAD,
                       hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
encoder = RobertaModel(config, add_pooling_layer=False)


def embed(ids):
    mask = (ids != PAD).long()
    hidden = encoder(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1)


opt = torch.optim.AdamW(encoder.parameters(), lr=5e-4)
for epoch in range(2):
    encoder.train()
    losses = []
    for batch in loader:
        dist = PairwiseL2.apply(embed(batch["a"]), embed(batch["b"]))
        loss = contrastive_loss(dist, batch["label"])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    print(f"epoch {epoch}: mean loss {sum(losses) / len(losses):.4f}  last {losses[-1]:.4f}")

encoder.eval()
with torch.no_grad():
    batch = ds[:64]
    dist = PairwiseL2.apply(embed(batch["a"]), embed(batch["b"]))
    pos = dist[batch["label"] == 1].mean().item()
    neg = dist[batch["label"] == 0].mean().item()
print(f"mean distance  positives {pos:.4f}  negatives {neg:.4f}")
