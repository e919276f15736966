"""LLaVA-style fine-tuning in bf16: frozen SigLIP vision tower, trainable projector, LoRA (peft) on a
Llama decoder; then caption generation. All towers share one dtype and features are cast explicitly."""
import torch
import torch.nn as nn
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM, SiglipVisionConfig, SiglipVisionModel

torch.manual_seed(0)
DTYPE = torch.bfloat16
IMAGE_TOKEN_ID, BOS, EOS, PAD = 5, 1, 2, 0
N_PATCHES = 16


class TinyLlava(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_tower = SiglipVisionModel(SiglipVisionConfig(
            image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
            num_hidden_layers=2, num_attention_heads=4))
        self.projector = nn.Sequential(nn.Linear(64, 96), nn.GELU(), nn.Linear(96, 96))
        self.language_model = LlamaForCausalLM(LlamaConfig(
            vocab_size=700, hidden_size=96, intermediate_size=192, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
            bos_token_id=BOS, eos_token_id=EOS, pad_token_id=PAD))

    def embed(self, input_ids, pixel_values):
        pixel_values = pixel_values.to(self.vision_tower.dtype)
        with torch.no_grad():
            feats = self.vision_tower(pixel_values).last_hidden_state
        image_features = self.projector(feats.to(self.projector[0].weight.dtype))
        embeds = self.language_model.get_input_embeddings()(input_ids)
        mask = (input_ids == IMAGE_TOKEN_ID).unsqueeze(-1).expand_as(embeds)
        return embeds.masked_scatter(mask, image_features.to(embeds.dtype))

    def forward(self, input_ids, pixel_values, labels=None):
        return self.language_model(inputs_embeds=self.embed(input_ids, pixel_values), labels=labels)


model = TinyLlava().to(DTYPE)
model.vision_tower.requires_grad_(False)
model.language_model = get_peft_model(model.language_model, LoraConfig(
    r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj"]))
params = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(params, lr=1e-3, eps=1e-6)


def make_batch(bs=4):
    caption = torch.randint(10, 700, (bs, 10))
    input_ids = torch.cat([torch.full((bs, 1), BOS), torch.full((bs, N_PATCHES), IMAGE_TOKEN_ID), caption,
                           torch.full((bs, 1), EOS)], dim=1)
    labels = input_ids.clone()
    labels[:, :1 + N_PATCHES] = -100
    return input_ids, torch.rand(bs, 3, 32, 32) * 2 - 1, labels


model.train()
for step in range(15):
    input_ids, pixel_values, labels = make_batch()
    loss = model(input_ids, pixel_values, labels).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    opt.zero_grad()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    prompt = torch.cat([torch.full((2, 1), BOS), torch.full((2, N_PATCHES), IMAGE_TOKEN_ID)], dim=1)
    embeds = model.embed(prompt, torch.rand(2, 3, 32, 32) * 2 - 1)
    out = model.language_model.generate(inputs_embeds=embeds, attention_mask=torch.ones_like(prompt),
                                        max_new_tokens=10, do_sample=False, pad_token_id=PAD)
print("captions", out.tolist())
