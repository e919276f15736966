import os
import tempfile

import torch
from accelerate import init_empty_weights
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import BertConfig, BertForMaskedLM, BertForSequenceClassification

torch.manual_seed(0)
workdir = tempfile.mkdtemp()
VOCAB, SEQ = 512, 24

config = BertConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, max_position_embeddings=64, num_labels=3)

# --- stage 1: short MLM pre-training, weights kept as a plain state dict ---------------------
mlm = BertForMaskedLM(config)
opt = torch.optim.AdamW(mlm.parameters(), lr=5e-4)
for step in range(5):
    ids = torch.randint(5, VOCAB, (16, SEQ))
    labels = ids.clone()
    mask = torch.rand(ids.shape) < 0.15
    labels[~mask] = -100
    ids = ids.masked_fill(mask, 4)
    loss = mlm(input_ids=ids, labels=labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
print(f"mlm loss after pre-training: {loss.item():.3f}")
ckpt_path = os.path.join(workdir, "mlm_encoder.pt")
torch.save({k[len("bert."):]: v for k, v in mlm.state_dict().items() if k.startswith("bert.")}, ckpt_path)
del mlm, opt

# --- stage 2: classifier fine-tuning ---------------------------------------------------------
with init_empty_weights():
    clf = BertForSequenceClassification(config)
encoder_state = torch.load(ckpt_path, map_location="cpu", weights_only=True)
report = clf.bert.load_state_dict(encoder_state, strict=False, assign=True)
print("keys not in checkpoint:", report.missing_keys)


def make_example(i):
    label = i % 3
    ids = torch.randint(5 + label * 150, 5 + (label + 1) * 150, (SEQ,))
    ids[0] = 2
    return {"input_ids": ids.tolist(), "attention_mask": [1] * SEQ, "labels": label}


ds = Dataset.from_list([make_example(i) for i in range(96)]).with_format("torch")
train_dl = DataLoader(ds, batch_size=16, shuffle=True)

optimizer = torch.optim.AdamW(clf.parameters(), lr=3e-4)
clf.train()
for epoch in range(2):
    total = 0.0
    for batch in train_dl:
        out = clf(**batch)
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += out.loss.item()
    print(f"epoch {epoch} mean loss {total / len(train_dl):.4f}")

clf.eval()
with torch.no_grad():
    batch = next(iter(DataLoader(ds, batch_size=32)))
    acc = (clf(**batch).logits.argmax(-1) == batch["labels"]).float().mean()
print(f"train accuracy: {acc.item():.3f}")
