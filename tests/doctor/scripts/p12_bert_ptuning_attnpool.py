"""P-tuning (MLP prompt encoder) of a frozen tiny BERT with an attention-pooling classifier head."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertConfig, BertModel
from peft import PromptEncoderConfig, TaskType, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, N_CLS, N_VIRTUAL = 150, 16, 2, 6

bert = BertModel(BertConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=64,
), add_pooling_layer=False)
cfg = PromptEncoderConfig(
    task_type=TaskType.FEATURE_EXTRACTION, num_virtual_tokens=N_VIRTUAL, encoder_hidden_size=64,
)
encoder = get_peft_model(bert, cfg)
encoder.print_trainable_parameters()


class AttnPoolHead(nn.Module):
    def __init__(self, d, n_cls):
        super().__init__()
        self.score = nn.Linear(d, 1)
        self.cls = nn.Sequential(nn.Linear(d, d), nn.Tanh(), nn.Linear(d, n_cls))

    def forward(self, hidden, attention_mask):
        mask = attention_mask.to(hidden.dtype)
        s = self.score(hidden).squeeze(-1) + (1.0 - mask) * -1e9
        w = s.softmax(dim=-1)
        pooled = torch.einsum("bt,btd->bd", w, hidden)
        return self.cls(pooled)


head = AttnPoolHead(64, N_CLS)


def make_split(n):
    lengths = torch.randint(0, SEQ + 1, (n,))
    ids = torch.randint(5, VOCAB, (n, SEQ))
    mask = (torch.arange(SEQ)[None] < lengths[:, None]).long()
    ids = ids * mask
    y = ((ids >= 100).sum(1) * 3 > lengths).long()  # "many high-id tokens"
    return ids, mask, y


def forward(ids, mask):
    out = encoder(input_ids=ids, attention_mask=mask)
    hidden = out.last_hidden_state[:, N_VIRTUAL:]
    return head(hidden, mask)


params = [p for p in encoder.parameters() if p.requires_grad] + list(head.parameters())
opt = torch.optim.AdamW(params, lr=3e-3)
tr_ids, tr_mask, tr_y = make_split(640)
for epoch in range(4):
    encoder.train()
    head.train()
    perm = torch.randperm(len(tr_ids))
    for i in range(0, len(perm), 64):
        b = perm[i : i + 64]
        loss = F.cross_entropy(forward(tr_ids[b], tr_mask[b]), tr_y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

# half-precision inference
encoder.half().eval()
head.half().eval()
te_ids, te_mask, te_y = make_split(256)
with torch.no_grad():
    logits = forward(te_ids, te_mask).float()
    test_loss = F.cross_entropy(logits, te_y).item()
    acc = (logits.argmax(-1) == te_y).float().mean().item()
print(f"test loss {test_loss:.4f} acc {acc:.3f}")
