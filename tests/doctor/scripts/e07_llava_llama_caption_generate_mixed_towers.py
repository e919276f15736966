"""Caption generation with a LLaVA-style model: SigLIP vision tower + projector kept in fp32,
Llama decoder loaded in bfloat16 to halve its memory."""
import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM, SiglipVisionConfig, SiglipVisionModel

torch.manual_seed(0)

vision = SiglipVisionModel(SiglipVisionConfig(image_size=32, patch_size=8, hidden_size=64,
                                              intermediate_size=128, num_hidden_layers=2,
                                              num_attention_heads=4)).eval()
projector = nn.Sequential(nn.Linear(64, 96), nn.GELU(), nn.Linear(96, 96)).eval()
lm = LlamaForCausalLM(LlamaConfig(vocab_size=700, hidden_size=96, intermediate_size=192,
                                  num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                  max_position_embeddings=256, bos_token_id=1, eos_token_id=2,
                                  pad_token_id=0))
lm = lm.to(torch.bfloat16).eval()

BOS, PROMPT = 1, [45, 88, 12, 301]  # "<s> describe the image:"


@torch.no_grad()
def caption(pixel_values, max_new_tokens=12):
    bs = pixel_values.shape[0]
    image_tokens = projector(vision(pixel_values).last_hidden_state)
    prompt_ids = torch.tensor([[BOS] + PROMPT] * bs)
    prompt_embeds = lm.get_input_embeddings()(prompt_ids)
    inputs_embeds = torch.cat([prompt_embeds[:, :1], image_tokens, prompt_embeds[:, 1:]], dim=1)
    attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=torch.long)
    return lm.generate(inputs_embeds=inputs_embeds, attention_mask=attention_mask,
                       max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=0)


images = torch.rand(3, 3, 32, 32) * 2 - 1
for i, ids in enumerate(caption(images)):
    print(i, ids.tolist())
