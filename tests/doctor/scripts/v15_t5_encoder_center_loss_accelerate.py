import torch
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import set_seed
from datasets import Dataset
from torch import nn
from torch.utils.data import DataLoader
from transformers import T5Config, T5EncoderModel

set_seed(0)
VOCAB, PAD, N_CLASSES, SEQ = 300, 0, 8, 20


class CenterLoss(nn.Module):
    """Center loss (Wen et al., 2016) with running class centers updated from each batch."""

    def __init__(self, num_classes, dim, alpha=0.5):
        super().__init__()
        self.alpha = alpha
        self.register_buffer("centers", torch.randn(num_classes, dim) * 0.1)

    def forward(self, feats, labels):
        loss = (feats - self.centers[labels]).pow(2).sum(dim=1).mean()
        if self.training:
            with torch.no_grad():
                counts = torch.bincount(labels, minlength=self.centers.shape[0]).unsqueeze(1)
                batch_sum = torch.zeros_like(self.centers).index_add_(0, labels, feats.detach())
                seen = counts.squeeze(1) > 0
                batch_mean = batch_sum[seen] / counts[seen]
                self.centers[seen] += self.alpha * (batch_mean - self.centers[seen])
        return loss


class IntentEncoder(nn.Module):
    def __init__(self, config, emb_dim=32):
        super().__init__()
        self.encoder = T5EncoderModel(config)
        self.proj = nn.Linear(config.d_model, emb_dim)
        self.classifier = nn.Linear(emb_dim, N_CLASSES)
        self.center_loss = CenterLoss(N_CLASSES, emb_dim)

    def forward(self, input_ids, attention_mask, labels):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        feats = self.proj(pooled)
        logits = self.classifier(feats)
        loss = F.cross_entropy(logits, labels) + 0.01 * self.center_loss(feats, labels)
        return loss, logits


def make_rows(n):
    labels = torch.randint(0, N_CLASSES, (n,))
    ids = torch.randint(10, VOCAB, (n, SEQ))
    ids[:, :3] = labels.unsqueeze(1) + 1
    lengths = torch.randint(8, SEQ + 1, (n,))
    mask = (torch.arange(SEQ).unsqueeze(0) < lengths.unsqueeze(1)).long()
    ids = ids * mask
    return {"input_ids": ids.tolist(), "attention_mask": mask.tolist(), "labels": labels.tolist()}


train_ds = Dataset.from_dict(make_rows(256)).with_format("torch")
loader = DataLoader(train_ds, batch_size=32, shuffle=True)

config = T5Config(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                  relative_attention_num_buckets=16, dropout_rate=0.1, pad_token_id=PAD)
model = IntentEncoder(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

for epoch in range(3):
    model.train()
    total, correct, seen = 0.0, 0, 0
    for batch in loader:
        loss, logits = model(**batch)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item() * len(batch["labels"])
        correct += (logits.argmax(-1) == batch["labels"]).sum().item()
        seen += len(batch["labels"])
    accelerator.print(f"epoch {epoch}: loss {total / seen:.4f}  acc {correct / seen:.3f}")
