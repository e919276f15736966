import os
import random
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import XLMRobertaConfig, XLMRobertaModel

torch.manual_seed(0)
random.seed(0)

VOCAB, PAD, CLS, SEP = 500, 1, 0, 2


def make_pair(rng):
    a = [rng.randint(5, VOCAB - 1) for _ in range(rng.randint(5, 10))]
    keep = rng.random()
    b = [t if rng.random() < keep else rng.randint(5, VOCAB - 1) for t in a]
    rng.shuffle(b)
    score = 5.0 * sum(t in a for t in b) / len(b)
    return [CLS] + a + [SEP, SEP] + b + [SEP], score


def collate(pairs):
    n = max(len(p) for p, _ in pairs)
    ids = torch.full((len(pairs), n), PAD)
    for i, (p, _) in enumerate(pairs):
        ids[i, : len(p)] = torch.tensor(p)
    return ids, (ids != PAD).long(), torch.tensor([s for _, s in pairs])


class CrossEncoderSTS(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        hidden = backbone.config.hidden_size
        self.attn_score = nn.Linear(hidden, 1)
        self.regressor = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, input_ids, attention_mask):
        h = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        scores = self.attn_score(h).squeeze(-1)
        scores = scores.masked_fill(attention_mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        pooled = torch.einsum("bs,bsh->bh", weights, h)
        return 5.0 * torch.sigmoid(self.regressor(pooled).squeeze(-1))


config = XLMRobertaConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=40, pad_token_id=PAD,
)
model = CrossEncoderSTS(XLMRobertaModel(config, add_pooling_layer=False))
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)

rng = random.Random(4)
train = [make_pair(rng) for _ in range(192)]
dev = [make_pair(rng) for _ in range(48)]
for epoch in range(8):
    model.train()
    random.shuffle(train)
    for i in range(0, len(train), 32):
        ids, mask, y = collate(train[i:i + 32])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(ids, mask)
        loss = F.mse_loss(pred.float(), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print(f"epoch {epoch}: mse {loss.item():.4f}")

out_dir = os.path.join(tempfile.mkdtemp(), "sts-cross-encoder")
model.backbone.save_pretrained(out_dir)
torch.save({k: v for k, v in model.state_dict().items() if not k.startswith("backbone.")},
           os.path.join(out_dir, "head.pt"))

# serving: reload the saved checkpoint
backbone = XLMRobertaModel.from_pretrained(out_dir, torch_dtype=torch.float16, add_pooling_layer=False)
server = CrossEncoderSTS(backbone).to(torch.float16).eval()
server.load_state_dict(torch.load(os.path.join(out_dir, "head.pt")), strict=False)

ids, mask, y = collate(dev)
with torch.no_grad():
    pred = server(ids, mask).float()
pearson = torch.corrcoef(torch.stack([pred, y]))[0, 1]
print(f"dev mse {F.mse_loss(pred, y).item():.4f}  pearson {pearson.item():.3f}")
