import os
import tempfile
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from peft import LoraConfig, PeftModel, get_peft_model

torch.manual_seed(0)
VOCAB = 400
config = GPT2Config(vocab_size=VOCAB, n_positions=128, n_embd=64, n_layer=2, n_head=4,
                    bos_token_id=0, eos_token_id=0, pad_token_id=0)
base = GPT2LMHeadModel(config)
base_state = {k: v.clone() for k, v in base.state_dict().items()}
lora = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_proj"], fan_in_fan_out=True,
                  lora_dropout=0.0, task_type="CAUSAL_LM")
model = get_peft_model(base, lora, adapter_name="math")
model.add_adapter("code", lora)


def task_batch(task, n=8, seq=32):
    ids = torch.randint(1, VOCAB, (n, seq))
    if task == "math":
        ids[:, 1::2] = (ids[:, ::2] + 1) % VOCAB
    else:
        ids[:, 1::2] = (ids[:, ::2] * 5) % VOCAB
    return ids


for task in ("math", "code"):
    model.set_adapter(task)
    params = [p for n, p in model.named_parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=5e-3)
    model.train()
    for step in range(8):
        ids = task_batch(task)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].float().reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"adapter {task}: final train loss {loss.item():.4f}")

out_dir = tempfile.mkdtemp(prefix="lora_multi_")
model.save_pretrained(out_dir)
print("saved adapters:", sorted(os.listdir(out_dir)))

serve_base = GPT2LMHeadModel(config)
serve_base.load_state_dict(base_state)
server = PeftModel.from_pretrained(serve_base, os.path.join(out_dir, "math"), adapter_name="math")
server.load_adapter(os.path.join(out_dir, "code"), adapter_name="code")
server = server.to(torch.bfloat16).eval()


@torch.no_grad()
def score_and_generate(adapter, ids, max_new=12):
    server.set_adapter(adapter)
    logits = server(input_ids=ids, attention_mask=torch.ones_like(ids)).logits.float()
    lp = torch.log_softmax(logits[:, :-1], -1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    gen = server.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new,
                          do_sample=True, top_p=0.9, temperature=0.8, pad_token_id=0)
    return lp.mean().item(), gen[:, ids.shape[1]:]


requests = [("math", "math"), ("code", "code"), ("code", "math"), ("math", "code")]
for i, (adapter, task) in enumerate(requests):
    ids = task_batch(task, n=2, seq=24)
    mean_lp, gen = score_and_generate(adapter, ids)
    print(f"request {i}: adapter={adapter:4s} data={task:4s} mean logprob {mean_lp:.4f} gen {gen[0, :6].tolist()}")
