"""Fast loading of a merged LLaVA-style checkpoint (bf16): build the model skeleton with
accelerate's init_empty_weights, then materialise it with load_state_dict(assign=True).
Then run a quick VQA evaluation."""
import os
import tempfile

import torch
import torch.nn as nn
from accelerate import init_empty_weights
from safetensors.torch import load_file, save_file
from transformers import CLIPVisionConfig, CLIPVisionModel, Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
IMAGE_TOKEN_ID = 3


class TinyLlava(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_tower = CLIPVisionModel(CLIPVisionConfig(
            image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
            num_hidden_layers=2, num_attention_heads=4))
        self.multi_modal_projector = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64))
        self.language_model = Qwen2ForCausalLM(Qwen2Config(
            vocab_size=600, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128))

    def forward(self, input_ids, pixel_values, labels=None):
        feats = self.vision_tower(pixel_values).last_hidden_state[:, 1:]
        image_features = self.multi_modal_projector(feats)
        embeds = self.language_model.get_input_embeddings()(input_ids)
        mask = (input_ids == IMAGE_TOKEN_ID).unsqueeze(-1).expand_as(embeds)
        embeds = embeds.masked_scatter(mask, image_features.to(embeds.dtype))
        return self.language_model(inputs_embeds=embeds, labels=labels)


tmp = tempfile.TemporaryDirectory()
ckpt = os.path.join(tmp.name, "model.safetensors")

# --- the released checkpoint (original LLaVA naming for the projector: mm_projector.0 / .2) ---
src = TinyLlava().to(torch.bfloat16)
state = {}
for k, v in src.state_dict().items():
    k = k.replace("multi_modal_projector.", "model.mm_projector.")
    state[k] = v.contiguous()
save_file(state, ckpt)
del src

# --- fast load ---
with init_empty_weights():
    model = TinyLlava()
result = model.load_state_dict(load_file(ckpt), strict=False, assign=True)
print(f"loaded checkpoint: {len(result.missing_keys)} missing, {len(result.unexpected_keys)} unexpected")
model.to(torch.bfloat16).eval()

correct = 0
with torch.no_grad():
    for step in range(5):
        q = torch.randint(10, 600, (2, 8))
        input_ids = torch.cat([torch.full((2, 16), IMAGE_TOKEN_ID), q], dim=1)
        pixel_values = torch.rand(2, 3, 32, 32, dtype=torch.bfloat16)
        logits = model(input_ids, pixel_values).logits
        correct += (logits[:, -1].argmax(-1) == q[:, -1]).sum().item()
print("accuracy", correct / 10)
