import math
import os
import tempfile

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import T5Config, T5ForConditionalGeneration

torch.manual_seed(0)
PAD, EOS, UNK = 0, 1, 2
V, SRC_LEN = 32, 8


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, V, (n, SRC_LEN), generator=g)
    eos = torch.full((n, 1), EOS)
    inputs = torch.cat([src, eos], dim=1)
    labels = torch.cat([src.flip(1), eos], dim=1)
    return TensorDataset(inputs, torch.ones_like(inputs), labels)


config = T5Config(vocab_size=V, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                  num_heads=4, relative_attention_num_buckets=8, dropout_rate=0.0,
                  pad_token_id=PAD, eos_token_id=EOS, decoder_start_token_id=PAD)
model = T5ForConditionalGeneration(config)

accelerator = Accelerator(cpu=True, mixed_precision="bf16")
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))
train_dl = DataLoader(make_split(640, 0), batch_size=32, shuffle=True)
model, opt, train_dl, sched = accelerator.prepare(model, opt, train_dl, sched)

for epoch in range(3):
    model.train()
    running = []
    for input_ids, attention_mask, labels in train_dl:
        with accelerator.autocast():
            out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
        opt.zero_grad()
        accelerator.backward(out.loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        running.append(out.loss.float().item())
    mean_loss = sum(running) / len(running)
    assert math.isfinite(mean_loss)
    accelerator.print(f"epoch {epoch} loss {mean_loss:.4f}")

model.eval()
test_inputs, test_mask, test_labels = make_split(16, 1).tensors
with torch.no_grad(), accelerator.autocast():
    gen = accelerator.unwrap_model(model).generate(
        input_ids=test_inputs, attention_mask=test_mask, num_beams=3, max_new_tokens=SRC_LEN + 2,
        bad_words_ids=[[UNK]], length_penalty=0.8)
pred = gen[:, 1:SRC_LEN + 1]
acc = (pred == test_labels[:, :SRC_LEN]).float().mean().item()
accelerator.print(f"token accuracy on reversal {acc:.3f}")

with tempfile.TemporaryDirectory() as d:
    accelerator.unwrap_model(model).save_pretrained(os.path.join(d, "t5-reverse"))
    accelerator.print("saved to", sorted(os.listdir(os.path.join(d, "t5-reverse"))))
