"""Fine-tune the image tower of a small CLIP on synthetic image/caption pairs.

The text tower is frozen; to save memory the trainable vision side is kept in bfloat16.
"""
import torch
import numpy as np
from transformers import CLIPConfig, CLIPModel

torch.manual_seed(0)
np.random.seed(0)

config = CLIPConfig(
    text_config=dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, max_position_embeddings=32,
                     pad_token_id=0, bos_token_id=1, eos_token_id=2),
    vision_config=dict(image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
                       num_hidden_layers=2, num_attention_heads=4),
    projection_dim=32,
)
model = CLIPModel(config)

# frozen text tower
for p in model.text_model.parameters():
    p.requires_grad_(False)
for p in model.text_projection.parameters():
    p.requires_grad_(False)

# trainable image tower in bf16
model.vision_model.to(torch.bfloat16)
model.visual_projection.to(torch.bfloat16)

MEAN = np.array([0.4815, 0.4578, 0.4082], dtype=np.float32)
STD = np.array([0.2686, 0.2613, 0.2758], dtype=np.float32)


def make_batch(bs=8):
    imgs = np.random.randint(0, 256, size=(bs, 32, 32, 3), dtype=np.uint8)
    pix = (imgs.astype(np.float32) / 255.0 - MEAN) / STD
    pixel_values = torch.from_numpy(pix).permute(0, 3, 1, 2).contiguous()
    input_ids = torch.randint(1, 1000, (bs, 16))
    attention_mask = torch.ones_like(input_ids)
    return input_ids, attention_mask, pixel_values


params = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.1)

model.train()
for step in range(20):
    input_ids, attention_mask, pixel_values = make_batch()
    out = model(input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values,
                return_loss=True)
    loss = out.loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f} scale {model.logit_scale.exp().item():.2f}")
print("done")
