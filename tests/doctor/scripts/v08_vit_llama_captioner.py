import os
import tempfile

import torch
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM, ViTConfig, ViTModel

torch.manual_seed(0)
workdir = tempfile.mkdtemp()

vit_cfg = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=48, intermediate_size=96,
                    num_hidden_layers=2, num_attention_heads=4)
llm_cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=200, max_position_embeddings=128,
                      bos_token_id=1, eos_token_id=2, pad_token_id=0)
ViTModel(vit_cfg, add_pooling_layer=False).save_pretrained(os.path.join(workdir, "vit"))
LlamaForCausalLM(llm_cfg).save_pretrained(os.path.join(workdir, "llm"))


class Captioner(nn.Module):
    def __init__(self, vision_dir, llm_dir):
        super().__init__()
        self.vision = ViTModel.from_pretrained(vision_dir, add_pooling_layer=False)
        self.llm = LlamaForCausalLM.from_pretrained(llm_dir, dtype=torch.bfloat16)
        v, h = self.vision.config.hidden_size, self.llm.config.hidden_size
        self.projector = nn.Sequential(nn.Linear(v, h), nn.GELU(), nn.Linear(h, h))
        self.vision.requires_grad_(False)
        self.llm.requires_grad_(False)

    def embed(self, pixel_values, input_ids):
        patches = self.vision(pixel_values=pixel_values).last_hidden_state[:, 1:]
        image_tokens = self.projector(patches)
        text_tokens = self.llm.get_input_embeddings()(input_ids)
        return torch.cat([image_tokens, text_tokens], dim=1)

    def forward(self, pixel_values, input_ids, labels):
        embeds = self.embed(pixel_values, input_ids)
        n_img = embeds.shape[1] - input_ids.shape[1]
        ignore = torch.full((labels.shape[0], n_img), -100, dtype=labels.dtype)
        return self.llm(inputs_embeds=embeds, labels=torch.cat([ignore, labels], dim=1)).loss

    @torch.no_grad()
    def caption(self, pixel_values, prompt_ids, max_new_tokens=10):
        embeds = self.embed(pixel_values, prompt_ids)
        mask = torch.ones(embeds.shape[:2], dtype=torch.long)
        return self.llm.generate(inputs_embeds=embeds, attention_mask=mask, max_new_tokens=max_new_tokens,
                                 do_sample=False, pad_token_id=0)


model = Captioner(os.path.join(workdir, "vit"), os.path.join(workdir, "llm"))
opt = torch.optim.AdamW(model.projector.parameters(), lr=1e-3)

for step in range(6):
    images = torch.randn(8, 3, 32, 32)
    captions = torch.randint(3, 200, (8, 12))
    captions[:, 0] = 1
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(images, captions, captions)
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 2 == 0:
        print(f"step {step}: loss {loss.item():.4f}")

model.eval()
test_images = torch.randn(2, 3, 32, 32)
prompt = torch.tensor([[1, 17, 42], [1, 17, 42]])
tokens = model.caption(test_images, prompt)
print("captions:", tokens.tolist())
