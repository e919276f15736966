import os
import tempfile

import torch
from transformers import HubertConfig, HubertForSequenceClassification

torch.manual_seed(0)

SR, CLIP = 4000, 2000
KEYWORDS = ["yes", "no", "stop", "go"]
KW_FREQS = {0: (400, 800), 1: (600, 300), 2: (900, 900), 3: (300, 1100)}


def make_batch(n, g):
    """Each keyword is a two-tone chirp at a random offset inside a noisy clip."""
    labels = torch.randint(0, len(KEYWORDS), (n,), generator=g)
    t = torch.arange(400) / SR
    audio = 0.1 * torch.randn(n, CLIP, generator=g)
    for i, k in enumerate(labels.tolist()):
        f1, f2 = KW_FREQS[k]
        tone = torch.cat([torch.sin(2 * torch.pi * f1 * t), torch.sin(2 * torch.pi * f2 * t)])
        start = int(torch.randint(0, CLIP - len(tone), (1,), generator=g))
        audio[i, start:start + len(tone)] += tone
    audio = (audio - audio.mean(-1, keepdim=True)) / audio.std(-1, keepdim=True)
    return audio, labels


config = HubertConfig(
    hidden_size=48, num_hidden_layers=2, num_attention_heads=4, intermediate_size=96,
    conv_dim=(32, 32, 32), conv_stride=(5, 4, 4), conv_kernel=(10, 4, 4), num_conv_pos_embeddings=16,
    num_conv_pos_embedding_groups=4, feat_extract_norm="group", mask_time_prob=0.0,
    num_labels=len(KEYWORDS), classifier_proj_size=32, use_weighted_layer_sum=False,
)
ckpt = os.path.join(tempfile.mkdtemp(), "hubert-kws")
HubertForSequenceClassification(config).save_pretrained(ckpt)

model = HubertForSequenceClassification.from_pretrained(ckpt, torch_dtype=torch.bfloat16)
model.freeze_feature_encoder()
params = [p for p in model.parameters() if p.requires_grad]
print(f"trainable params: {sum(p.numel() for p in params)} ({params[0].dtype})")

optimizer = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)
grad_accum = [torch.zeros_like(p, dtype=torch.float32) for p in params]
ACCUM_STEPS, MICRO_BATCH = 4, 8

g = torch.Generator().manual_seed(1)
model.train()
for update in range(6):
    total = 0.0
    for micro in range(ACCUM_STEPS):
        audio, labels = make_batch(MICRO_BATCH, g)
        out = model(input_values=audio.to(torch.bfloat16), labels=labels)
        (out.loss / ACCUM_STEPS).backward()
        for acc, p in zip(grad_accum, params):
            if p.grad is not None:
                acc.add_(p.grad.float())
                p.grad = None
        total += out.loss.item() / ACCUM_STEPS
    for acc, p in zip(grad_accum, params):
        p.grad = acc
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    for acc in grad_accum:
        acc.zero_()
    print(f"update {update}: loss {total:.4f}")

model.eval()
audio, labels = make_batch(64, torch.Generator().manual_seed(7))
with torch.no_grad():
    logits = model(input_values=audio.to(torch.bfloat16)).logits.float()
print("keyword accuracy:", (logits.argmax(-1) == labels).float().mean().item())
