import numpy as np
import torch
import torch.nn.functional as F
from transformers import AlbertConfig, AlbertForSequenceClassification

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB, SEQ = 300, 32
AMENITY_TOKENS = np.arange(10, 20)   # "pool", "garage", "view", ...
AMENITY_VALUE = np.linspace(20, 120, 10)


def make_listings(n):
    ids = rng.integers(30, VOCAB, size=(n, SEQ))
    prices = np.full(n, 180.0)
    for i in range(n):
        k = rng.integers(0, 6)
        pos = rng.choice(np.arange(1, SEQ), size=k, replace=False)
        which = rng.integers(0, 10, size=k)
        ids[i, pos] = AMENITY_TOKENS[which]
        prices[i] += AMENITY_VALUE[which].sum() + rng.normal(0, 15)
    ids[:, 0] = 2
    return torch.tensor(ids), torch.tensor(prices, dtype=torch.float32)  # price in $1000s


train_ids, train_price = make_listings(384)
test_ids, test_price = make_listings(256)
mu, sigma = train_price.mean(), train_price.std()
print(f"price mean {mu:.1f}k, std {sigma:.1f}k")

config = AlbertConfig(
    vocab_size=VOCAB, embedding_size=32, hidden_size=64, num_hidden_layers=2,
    num_attention_heads=4, intermediate_size=128, max_position_embeddings=SEQ,
    num_labels=1, problem_type="regression", classifier_dropout_prob=0.0,
)
model = AlbertForSequenceClassification(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=2e-3, total_steps=4 * 12)

for epoch in range(4):
    model.train()
    perm = torch.randperm(len(train_ids))
    losses = []
    for i in range(0, len(perm), 32):
        idx = perm[i:i + 32]
        target = (train_price[idx] - mu) / sigma
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(input_ids=train_ids[idx], labels=target)
        out.loss.backward()
        optimizer.step()
        sched.step()
        optimizer.zero_grad()
        losses.append(out.loss.item())
    print(f"epoch {epoch}: standardized mse {np.mean(losses):.4f}")


def regression_report(pred, true):
    err = pred - true
    sse = (err ** 2).sum()
    sst = ((true - true.mean()) ** 2).sum()
    return {
        "mae": err.abs().mean().item(),
        "rmse": (sse / len(true)).sqrt().item(),
        "r2": (1 - sse / sst).item(),
    }


# deploy-style evaluation, reported in price units
model.half().eval()
with torch.no_grad():
    preds = []
    for i in range(0, len(test_ids), 64):
        z = model(input_ids=test_ids[i:i + 64]).logits.squeeze(-1)
        preds.append(z * sigma.to(z.dtype) + mu.to(z.dtype))
    preds = torch.cat(preds)
report = regression_report(preds, test_price.to(preds.dtype))
print({k: round(v, 3) for k, v in report.items()})
