import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import RobertaConfig, RobertaModel

torch.manual_seed(0)
VOCAB, SEQ, K = 400, 20, 5
BOS, PAD, EOS = 0, 1, 2


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.full((n, SEQ), PAD)
    labels = torch.zeros(n, SEQ, dtype=torch.long)
    for i in range(n):
        L = int(torch.randint(6, SEQ - 2, (1,), generator=g))
        body = torch.randint(3, VOCAB, (L,), generator=g)
        ids[i, 0], ids[i, 1:L + 1], ids[i, L + 1] = BOS, body, EOS
        labels[i, 1:L + 1] = torch.where(body % 7 == 0, 1 + body % 4, torch.zeros_like(body))
    special = (ids == BOS) | (ids == EOS) | (ids == PAD)
    return TensorDataset(ids, (ids != PAD).long(), labels, special)


class RobertaCRF(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = RobertaConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=128, max_position_embeddings=SEQ + 4, pad_token_id=PAD)
        self.encoder = RobertaModel(cfg, add_pooling_layer=False)
        self.emit = nn.Linear(64, K)
        self.start = nn.Parameter(torch.zeros(K))
        self.trans = nn.Parameter(torch.zeros(K, K))

    def forward(self, ids, attn, labels, special):
        em = self.emit(self.encoder(input_ids=ids, attention_mask=attn).last_hidden_state)
        allowed = torch.ones_like(em)
        allowed[..., 1:] = 1 - special.unsqueeze(-1).to(em.dtype)
        em = em + (1 - allowed) * -1e9
        mask = attn.to(em.dtype)
        b = torch.arange(ids.size(0))
        gold = self.start[labels[:, 0]] + em[b, 0, labels[:, 0]]
        alpha = self.start + em[:, 0]
        for t in range(1, ids.size(1)):
            m = mask[:, t].unsqueeze(-1)
            step = self.trans[labels[:, t - 1], labels[:, t]] + em[b, t, labels[:, t]]
            gold = gold + step * mask[:, t]
            nxt = torch.logsumexp(alpha.unsqueeze(2) + self.trans + em[:, t].unsqueeze(1), dim=1)
            alpha = nxt * m + alpha * (1 - m)
        return (torch.logsumexp(alpha, dim=-1) - gold).mean()


accelerator = Accelerator(cpu=True)
model = RobertaCRF()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
train_dl = DataLoader(make_split(256, 0), batch_size=32, shuffle=True)
dev_dl = DataLoader(make_split(64, 1), batch_size=32)
model, opt, train_dl = accelerator.prepare(model, opt, train_dl)

for epoch in range(2):
    model.train()
    for step, batch in enumerate(train_dl):
        loss = model(*batch)
        opt.zero_grad()
        accelerator.backward(loss)
        opt.step()
        if step % 4 == 0:
            accelerator.print(f"epoch {epoch} step {step} crf nll {loss.item():.4f}")

eval_model = accelerator.unwrap_model(model).half().eval()
total = 0.0
with torch.no_grad():
    for batch in dev_dl:
        total += eval_model(*batch).float().item()
accelerator.print(f"dev crf nll {total / len(dev_dl):.4f}")
