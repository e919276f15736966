"""Fast-init a BERT classifier on the meta device, then load encoder weights.

Step 1 (simulated): a "pretrained" tiny BERT encoder checkpoint is written to disk.
Step 2: the classifier is built under torch.device("meta") to skip random init,
        and the checkpoint is loaded with assign=True.
"""
import os
import tempfile
import torch
import torch.nn.functional as F
from safetensors.torch import save_file, load_file
from transformers import BertConfig, BertModel, BertForSequenceClassification

torch.manual_seed(0)

cfg = BertConfig(vocab_size=256, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, num_labels=3)

ckpt_dir = tempfile.mkdtemp()
ckpt = os.path.join(ckpt_dir, "encoder.safetensors")
pre = BertModel(cfg, add_pooling_layer=True)
save_file({f"bert.{k}": v.contiguous() for k, v in pre.state_dict().items()}, ckpt)


def load_classifier(path):
    with torch.device("meta"):
        model = BertForSequenceClassification(cfg)
    state = load_file(path)
    result = model.load_state_dict(state, strict=False, assign=True)
    print("missing keys:", result.missing_keys)
    return model


model = load_classifier(ckpt)
model.train()
opt = torch.optim.AdamW([p for p in model.parameters()], lr=2e-5)
for step in range(3):
    ids = torch.randint(0, 256, (4, 16))
    labels = torch.randint(0, 3, (4,))
    out = model(input_ids=ids, attention_mask=torch.ones_like(ids))
    loss = F.cross_entropy(out.logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
