"""Prompt tuning on a tiny Qwen2 in fp32, then reload the soft prompt onto a bf16 copy of the base."""
import os
import tempfile

import torch
import torch.nn.functional as F
from transformers import Qwen2Config, Qwen2ForCausalLM
from peft import PeftModel, PromptTuningConfig, PromptTuningInit, TaskType, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, BS, N_VIRT = 96, 16, 32, 12

config = Qwen2Config(
    vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
)
workdir = tempfile.mkdtemp()
base_dir, prompt_dir = os.path.join(workdir, "base"), os.path.join(workdir, "prompt")
base = Qwen2ForCausalLM(config)
base.save_pretrained(base_dir)

cfg = PromptTuningConfig(task_type=TaskType.CAUSAL_LM, num_virtual_tokens=N_VIRT,
                         prompt_tuning_init=PromptTuningInit.RANDOM)
model = get_peft_model(base, cfg)
model.print_trainable_parameters()


def batch(n):
    """Repeat-with-offset task: every token is the one two positions back plus 5."""
    ids = torch.zeros(n, SEQ, dtype=torch.long)
    ids[:, :2] = torch.randint(0, VOCAB, (n, 2))
    for i in range(2, SEQ):
        ids[:, i] = (ids[:, i - 2] + 5) % VOCAB
    return ids


def seq_loss(logits, ids):
    logits = logits[:, N_VIRT:] if logits.shape[1] > ids.shape[1] else logits
    return F.cross_entropy(logits[:, 1:-1].float().reshape(-1, VOCAB), ids[:, 2:].reshape(-1))


opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-2)
for step in range(80):
    model.train()
    ids = batch(BS)
    loss = seq_loss(model(input_ids=ids).logits, ids)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")
model.save_pretrained(prompt_dir)

torch.manual_seed(1)
eval_ids = batch(64)
model.eval()
with torch.no_grad():
    fp32_loss = seq_loss(model(input_ids=eval_ids).logits, eval_ids).item()

bf16_base = Qwen2ForCausalLM.from_pretrained(base_dir, dtype=torch.bfloat16)
served = PeftModel.from_pretrained(bf16_base, prompt_dir, autocast_adapter_dtype=True).eval()
print("soft prompt dtype:", served.prompt_encoder["default"].embedding.weight.dtype,
      "base dtype:", bf16_base.dtype)
with torch.no_grad():
    bf16_loss = seq_loss(served(input_ids=eval_ids).logits, eval_ids).item()
    gen = served.generate(input_ids=eval_ids[:2, :4], max_new_tokens=8, do_sample=False)
print(f"eval loss fp32 {fp32_loss:.4f}  bf16 reload {bf16_loss:.4f}")
print("continuations:", gen[:, -8:].tolist())
