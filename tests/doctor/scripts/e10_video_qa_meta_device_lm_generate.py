"""Video question answering with generate: per-frame SigLIP features are pooled over time,
projected and prepended to the question for a Qwen2 decoder (bf16 checkpoint).

The decoder skeleton is created on the meta device so that no memory is spent on random init,
then the bf16 checkpoint is assigned into it."""
import os
import tempfile

import torch
import torch.nn as nn
from safetensors.torch import load_file, save_file
from transformers import Qwen2Config, Qwen2ForCausalLM, SiglipVisionConfig, SiglipVisionModel

torch.manual_seed(0)

lm_config = Qwen2Config(vocab_size=600, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                        bos_token_id=1, eos_token_id=2, pad_token_id=0)

tmp = tempfile.TemporaryDirectory()
ckpt = os.path.join(tmp.name, "decoder.safetensors")
save_file({k: v.contiguous() for k, v in Qwen2ForCausalLM(lm_config).to(torch.bfloat16).state_dict().items()},
          ckpt)

# ---- load
with torch.device("meta"):
    decoder = Qwen2ForCausalLM(lm_config)
decoder.load_state_dict(load_file(ckpt), assign=True)
decoder.eval()

vision = SiglipVisionModel(SiglipVisionConfig(image_size=32, patch_size=8, hidden_size=48,
                                              intermediate_size=96, num_hidden_layers=2,
                                              num_attention_heads=4)).to(torch.bfloat16).eval()
projector = nn.Linear(48, 64).to(torch.bfloat16)


@torch.no_grad()
def answer(video, question_ids, n_time=4):
    b, t = video.shape[:2]
    feats = vision(video.flatten(0, 1)).last_hidden_state               # (b*t, p, d)
    feats = feats.view(b, t, *feats.shape[1:])
    feats = feats.view(b, n_time, t // n_time, *feats.shape[2:]).mean(2)  # temporal pooling
    video_tokens = projector(feats.flatten(1, 2))
    q = decoder.get_input_embeddings()(question_ids)
    embeds = torch.cat([video_tokens, q], dim=1)
    mask = torch.ones(embeds.shape[:2], dtype=torch.long)
    return decoder.generate(inputs_embeds=embeds, attention_mask=mask, max_new_tokens=8,
                            do_sample=False)


video = torch.rand(2, 8, 3, 32, 32, dtype=torch.bfloat16)
question = torch.randint(3, 600, (2, 7))
print(answer(video, question).tolist())
