import copy
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertConfig, BertModel
from transformers.utils import logging

logging.set_verbosity_error()
torch.manual_seed(0)

VOCAB, SEQ = 64, 12
CLASSES_PER_TASK, N_TASKS = 3, 2
T, LWF_LAMBDA = 2.0, 1.0


class CosineClassifier(nn.Module):
    def __init__(self, dim, n_classes, scale=64.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_classes, dim) * 0.1)
        self.scale = scale

    def forward(self, h):
        return self.scale * F.linear(F.normalize(h, dim=-1), F.normalize(self.weight, dim=-1))


class IncrementalBert(nn.Module):
    def __init__(self, config, n_classes):
        super().__init__()
        self.bert = BertModel(config, add_pooling_layer=False)
        self.classifier = CosineClassifier(config.hidden_size, n_classes)

    def forward(self, input_ids):
        h = self.bert(input_ids=input_ids).last_hidden_state[:, 0]
        return self.classifier(h)


def make_task(task_id, n=384):
    g = torch.Generator().manual_seed(task_id)
    labels = torch.randint(0, CLASSES_PER_TASK, (n,), generator=g) + task_id * CLASSES_PER_TASK
    block = torch.where(torch.rand(n, SEQ, generator=g) < 0.5, labels[:, None], labels[:, None] % CLASSES_PER_TASK)
    ids = 10 + (block * 8 + torch.randint(0, 8, (n, SEQ), generator=g)) % (VOCAB - 10)
    ids[:, 0] = 2
    return ids, labels


def batches(ids, labels, bs=32):
    perm = torch.randperm(len(ids))
    for i in range(0, len(ids), bs):
        j = perm[i:i + bs]
        yield ids[j], labels[j]


config = BertConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=SEQ,
)
model = IncrementalBert(config, CLASSES_PER_TASK * N_TASKS)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
tasks = [make_task(t) for t in range(N_TASKS)]

for epoch in range(4):
    for ids, y in batches(*tasks[0]):
        logits = model(ids)[:, :CLASSES_PER_TASK]
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"task 0 epoch {epoch}  ce {loss.item():.4f}")

teacher = copy.deepcopy(model).half().eval()
for p in teacher.parameters():
    p.requires_grad_(False)

n_old = CLASSES_PER_TASK
for epoch in range(3):
    for ids, y in batches(*tasks[1]):
        logits = model(ids)
        with torch.no_grad():
            old_logits = teacher(ids)[:, :n_old]
        q = F.softmax(old_logits / T, dim=-1)
        log_p = F.log_softmax(logits[:, :n_old] / T, dim=-1)
        kd = (q * (q.log() - log_p)).sum(-1).mean() * T * T
        ce = F.cross_entropy(logits, y)
        loss = ce + LWF_LAMBDA * kd
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"task 1 epoch {epoch}  ce {ce.item():.4f}  kd {kd.item():.4f}  total {loss.item():.4f}")

model.eval()
with torch.no_grad():
    for t, (ids, y) in enumerate(tasks):
        acc = (model(ids).argmax(-1) == y).float().mean().item()
        print(f"task {t} accuracy {acc:.3f}")
