import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import GPT2Config, GPT2Model

torch.manual_seed(0)
rng = np.random.default_rng(15)

N_ITEMS, SESSION_LEN, D = 1000, 12, 64
PAD = 0


class Sessions(Dataset):
    def __init__(self, n=1024):
        self.clusters = rng.integers(0, 25, n)
        self.lengths = rng.integers(2, SESSION_LEN + 1, n)

    def __len__(self):
        return len(self.clusters)

    def __getitem__(self, k):
        items = 1 + self.clusters[k] * 39 + rng.integers(0, 39, self.lengths[k] + 1)
        hist = np.full(SESSION_LEN, PAD, dtype=np.int64)
        hist[:self.lengths[k]] = items[:-1]
        return {"history": torch.from_numpy(hist), "length": int(self.lengths[k]), "target": int(items[-1])}


class SessionTower(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = GPT2Config(vocab_size=N_ITEMS, n_positions=SESSION_LEN, n_embd=D, n_layer=2, n_head=4,
                         resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                         bos_token_id=PAD, eos_token_id=PAD)
        self.gpt = GPT2Model(cfg)
        self.proj = nn.Linear(D, D)

    def forward(self, history, length):
        mask = (history != PAD).long()
        h = self.gpt(input_ids=history, attention_mask=mask).last_hidden_state
        last = h[torch.arange(len(length)), length - 1]
        return F.normalize(self.proj(last), dim=-1)


class ItemTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(N_ITEMS, D)
        self.category = nn.Embedding(26, D)

    def forward(self, ids):
        return F.normalize(self.emb(ids) + self.category((ids - 1).clamp(min=0) // 39), dim=-1)


class Retrieval(nn.Module):
    def __init__(self, log_q):
        super().__init__()
        self.session_tower, self.item_tower = SessionTower(), ItemTower()
        self.register_buffer("log_q", log_q)

    def forward(self, history, length, target):
        s, v = self.session_tower(history, length), self.item_tower(target)
        logits = (s @ v.T).float() / 0.05 - self.log_q[target][None, :]
        return F.cross_entropy(logits, torch.arange(len(target), device=logits.device))


ds = Sessions()
counts = torch.zeros(N_ITEMS).index_add_(0, torch.tensor([ds[k]["target"] for k in range(len(ds))]), torch.ones(len(ds)))
log_q = torch.log((counts + 1) / (counts + 1).sum())

accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = Retrieval(log_q)
opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
loader = DataLoader(ds, batch_size=128, shuffle=True)
model, opt, loader = accelerator.prepare(model, opt, loader)

for epoch in range(3):
    losses = []
    for batch in loader:
        with accelerator.autocast():
            loss = model(batch["history"], batch["length"], batch["target"])
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    accelerator.print(f"epoch {epoch} in-batch loss {np.mean(losses):.4f} (last {losses[-1]:.4f})")

model.eval()
with torch.no_grad(), accelerator.autocast():
    b = next(iter(loader))
    s = model.session_tower(b["history"], b["length"]).float()
    all_items = model.item_tower(torch.arange(N_ITEMS)).float()
    top = (s @ all_items.T).topk(20, dim=-1).indices
    recall = (top == b["target"][:, None]).any(-1).float().mean()
accelerator.print(f"recall@20 over full catalogue {recall.item():.4f}")
