"""Fine-tune a small Llama backbone (restored from a local safetensors checkpoint) with a fresh
sequence-classification head. The checkpoint is produced at the top of the script so that the
example is self-contained."""
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file, load_file
from transformers import LlamaConfig, LlamaModel

torch.manual_seed(0)
cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=4, vocab_size=256, max_position_embeddings=128)

# ---- "pretraining" run exported its weights in bf16 to save disk -------------------------------
ckpt_dir = tempfile.mkdtemp()
ckpt = os.path.join(ckpt_dir, "backbone.safetensors")
pre = LlamaModel(cfg).to(torch.bfloat16)
save_file({k: v.contiguous() for k, v in pre.state_dict().items()}, ckpt)
del pre


# ---- fine-tuning -----------------------------------------------------------------------------
class SeqClassifier(nn.Module):
    def __init__(self, cfg, n_labels):
        super().__init__()
        self.backbone = LlamaModel(cfg)
        self.classifier = nn.Linear(cfg.hidden_size, n_labels)

    def forward(self, input_ids, attention_mask):
        h = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        last = attention_mask.sum(1) - 1
        return self.classifier(h[torch.arange(h.size(0)), last])


model = SeqClassifier(cfg, n_labels=3)
state = load_file(ckpt)
missing, unexpected = model.backbone.load_state_dict(state, strict=False, assign=True)  # avoid a copy
print("restored backbone; missing:", missing, "unexpected:", unexpected)

opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
for step in range(3):
    ids = torch.randint(0, cfg.vocab_size, (4, 16))
    mask = torch.ones_like(ids)
    mask[:2, 12:] = 0
    labels = torch.randint(0, 3, (4,))
    logits = model(ids, mask)
    loss = F.cross_entropy(logits.float(), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
