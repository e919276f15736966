"""BLIP-2 (transformers implementation) captioning in bf16: a few training steps of the Q-Former and
language projection with the vision encoder and OPT decoder frozen, then beam-free greedy captioning.
Pixel values come from a NumPy uint8 pipeline and are cast to the model dtype."""
import numpy as np
import torch
from transformers import Blip2Config, Blip2ForConditionalGeneration

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_QUERY, IMAGE_TOKEN_ID = 8, 3

config = Blip2Config(
    vision_config=dict(image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
                       num_hidden_layers=2, num_attention_heads=4),
    qformer_config=dict(vocab_size=300, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, encoder_hidden_size=64, cross_attention_frequency=1,
                        max_position_embeddings=64),
    text_config=dict(model_type="opt", vocab_size=500, hidden_size=64, ffn_dim=128, num_hidden_layers=2,
                     num_attention_heads=4, word_embed_proj_dim=64, max_position_embeddings=128,
                     bos_token_id=2, eos_token_id=2, pad_token_id=1),
    num_query_tokens=N_QUERY,
    image_token_index=IMAGE_TOKEN_ID,
)
model = Blip2ForConditionalGeneration(config).to(torch.bfloat16)
model.vision_model.requires_grad_(False)
model.language_model.requires_grad_(False)
params = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(params, lr=1e-4, eps=1e-6)

MEAN = np.array([0.481, 0.458, 0.408], dtype=np.float32)
STD = np.array([0.269, 0.261, 0.276], dtype=np.float32)


def preprocess(images_uint8):
    x = (images_uint8.astype(np.float32) / 255.0 - MEAN) / STD
    return torch.from_numpy(x).permute(0, 3, 1, 2).to(torch.bfloat16)


def make_batch(bs=4):
    pixel_values = preprocess(rng.integers(0, 256, (bs, 32, 32, 3), dtype=np.uint8))
    caption = torch.randint(10, 500, (bs, 8))
    input_ids = torch.cat([torch.full((bs, N_QUERY), IMAGE_TOKEN_ID), torch.full((bs, 1), 2), caption], 1)
    labels = input_ids.clone()
    labels[:, :N_QUERY + 1] = -100
    return pixel_values, input_ids, labels


model.train()
for step in range(8):
    pixel_values, input_ids, labels = make_batch()
    loss = model(pixel_values=pixel_values, input_ids=input_ids, labels=labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
pixel_values, _, _ = make_batch(2)
prompt = torch.cat([torch.full((2, N_QUERY), IMAGE_TOKEN_ID), torch.full((2, 1), 2)], 1)
with torch.no_grad():
    out = model.generate(pixel_values=pixel_values, input_ids=prompt, attention_mask=torch.ones_like(prompt),
                         max_new_tokens=8, do_sample=False)
print("captions", out.tolist())
