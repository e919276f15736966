import math

import torch
import torch.nn.functional as F
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import MistralConfig, MistralForCausalLM, get_cosine_schedule_with_warmup

torch.manual_seed(0)
VOCAB, SEQ = 320, 64

config = MistralConfig(hidden_size=64, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=256,
                       sliding_window=32, rms_norm_eps=1e-5, tie_word_embeddings=False)
model = MistralForCausalLM(config).to(torch.float16)

# arithmetic-progression sequences: next token = previous + step (mod vocab)
starts = torch.randint(0, VOCAB, (256, 1))
steps = torch.randint(1, 5, (256, 1))
seqs = (starts + steps * torch.arange(SEQ)) % VOCAB
ds = Dataset.from_dict({"input_ids": seqs.tolist()}).with_format("torch")
loader = DataLoader(ds, batch_size=16, shuffle=True)


class StaticLossScaler:
    def __init__(self, scale=2.0 ** 16):
        self.scale = scale

    def backward(self, loss):
        (loss * self.scale).backward()

    def unscale_(self, params):
        for p in params:
            if p.grad is not None:
                p.grad.mul_(1.0 / self.scale)


def lm_loss(logits, ids):
    return F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))


params = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)
scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=len(loader))
scaler = StaticLossScaler()

model.train()
history = []
for step, batch in enumerate(loader):
    ids = batch["input_ids"]
    logits = model(input_ids=ids).logits
    loss = lm_loss(logits, ids)
    scaler.backward(loss)
    scaler.unscale_(params)
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    history.append(loss.item())
    if step % 4 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}  lr {scheduler.get_last_lr()[0]:.4f}")

model.eval()
with torch.no_grad():
    ids = seqs[:8]
    eval_loss = lm_loss(model(input_ids=ids).logits, ids).item()
print(f"final train loss {history[-1]:.4f}  eval loss {eval_loss:.4f}  ppl {math.exp(min(eval_loss, 50)):.2f}")
