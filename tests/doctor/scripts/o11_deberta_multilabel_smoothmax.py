import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
from transformers import DebertaV2Config, DebertaV2Model

torch.manual_seed(0)

VOCAB, SEQ, N_TAGS = 400, 32, 6
TAG_TRIGGERS = [list(range(10 + 5 * t, 15 + 5 * t)) for t in range(N_TAGS)]


def make_data(n):
    ids = torch.randint(50, VOCAB, (n, SEQ))
    lengths = torch.randint(SEQ // 2, SEQ + 1, (n,))
    tags = (torch.rand(n, N_TAGS) < 0.25).float()
    for i in range(n):
        for t in tags[i].nonzero().flatten().tolist():
            pos = torch.randint(1, int(lengths[i]), (2,))
            ids[i, pos] = torch.tensor(TAG_TRIGGERS[t])[torch.randint(0, 5, (2,))]
    mask = (torch.arange(SEQ)[None] < lengths[:, None]).long()
    ids = ids.masked_fill(mask == 0, 0)
    ids[:, 0] = 1
    return ids, mask, tags


class SmoothMaxPool(torch.autograd.Function):
    """tau * logsumexp(x / tau) over the valid tokens (a soft max-pool)."""

    @staticmethod
    def forward(ctx, x, mask, tau):
        z = (x / tau).masked_fill(~mask[..., None], float("-inf"))
        out = tau * torch.logsumexp(z, dim=1)
        ctx.save_for_backward(x, mask, out)
        ctx.tau = tau
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, mask, out = ctx.saved_tensors
        weights = torch.exp(x / ctx.tau) / torch.exp(out / ctx.tau)[:, None, :]
        weights = weights * mask[..., None]
        return grad_out[:, None, :] * weights, None, None


class TopicTagger(nn.Module):
    def __init__(self, config, n_tags, tau=0.05):
        super().__init__()
        self.encoder = DebertaV2Model(config)
        self.token_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.classifier = nn.Linear(config.hidden_size, n_tags)
        self.tau = tau

    def pool_block(self, hidden, mask):
        feats = F.gelu(self.token_proj(hidden))
        return SmoothMaxPool.apply(feats, mask.bool(), self.tau)

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        pooled = checkpoint(self.pool_block, hidden, attention_mask, use_reentrant=False)
        return self.classifier(pooled)


config = DebertaV2Config(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=SEQ, relative_attention=True,
    position_buckets=16, pos_att_type=["p2c", "c2p"], max_relative_positions=SEQ,
)
model = TopicTagger(config, N_TAGS)
model.encoder.activation_checkpointing_enable()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

train = make_data(192)
test = make_data(64)
for epoch in range(3):
    model.train()
    perm = torch.randperm(len(train[0]))
    total = 0.0
    for i in range(0, len(perm), 32):
        idx = perm[i:i + 32]
        ids, mask, tags = (t[idx] for t in train)
        with torch.autocast("cpu", dtype=torch.float16):
            logits = model(ids, mask)
        loss = F.binary_cross_entropy_with_logits(logits.float(), tags)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item()
    print(f"epoch {epoch}: bce {total / 6:.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
    logits = model(test[0], test[1]).float()
pred = (logits > 0).float()
tp = (pred * test[2]).sum()
f1 = 2 * tp / (pred.sum() + test[2].sum()).clamp_min(1)
print(f"test bce {F.binary_cross_entropy_with_logits(logits, test[2]).item():.4f}  micro-F1 {f1.item():.3f}")
