"""Knowledge distillation of a tiny GPT-2: an fp16 teacher (kept in half to save memory) distils into an
fp32 student with a custom Trainer. Forward KL with temperature, computed by hand."""
import tempfile

import torch
import torch.nn.functional as F
from torch.utils.data import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)

V = 1000


def arithmetic_batch(n, L=33, g=None):
    start = torch.randint(0, V, (n, 1), generator=g)
    step = torch.randint(1, 8, (n, 1), generator=g)
    return (start + step * torch.arange(L)) % V


class SeqDataset(Dataset):
    def __init__(self, n=320):
        self.data = arithmetic_batch(n, g=torch.Generator().manual_seed(1))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return {"input_ids": self.data[i], "labels": self.data[i]}


# ---- 1. teacher: quick pre-training in fp32 (stands in for a trained checkpoint) ----
t_cfg = GPT2Config(vocab_size=V, n_positions=64, n_embd=64, n_layer=2, n_head=4, bos_token_id=0, eos_token_id=0, attn_pdrop=0.0)
teacher = GPT2LMHeadModel(t_cfg)
t_opt = torch.optim.AdamW(teacher.parameters(), lr=5e-3)
for step in range(150):
    x = arithmetic_batch(16)
    out = teacher(input_ids=x, labels=x)
    t_opt.zero_grad()
    out.loss.backward()
    t_opt.step()
print(f"teacher loss {out.loss.item():.3f}")

teacher = teacher.half().eval()          # frozen teacher in fp16
for p in teacher.parameters():
    p.requires_grad_(False)

# ---- 2. student ----
s_cfg = GPT2Config(vocab_size=V, n_positions=64, n_embd=32, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0, attn_pdrop=0.0)
student = GPT2LMHeadModel(s_cfg)


class DistillTrainer(Trainer):
    def __init__(self, *args, teacher=None, temperature=1.0, alpha=0.5, **kwargs):
        super().__init__(*args, **kwargs)
        self.teacher, self.T, self.alpha = teacher, temperature, alpha

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        with torch.no_grad():
            t_logits = self.teacher(input_ids=inputs["input_ids"]).logits
        T = self.T
        p_t = F.softmax(t_logits / T, dim=-1)
        log_p_s = F.log_softmax(outputs.logits / T, dim=-1)
        kd = (p_t * (p_t.log() - log_p_s)).sum(-1).mean() * T * T
        loss = self.alpha * kd + (1 - self.alpha) * outputs.loss
        return (loss, outputs) if return_outputs else loss


with tempfile.TemporaryDirectory() as tmp:
    args = TrainingArguments(
        output_dir=tmp, use_cpu=True, per_device_train_batch_size=16, max_steps=20,
        learning_rate=1e-3, logging_steps=5, save_strategy="no", report_to=[], disable_tqdm=True,
    )
    trainer = DistillTrainer(model=student, args=args, train_dataset=SeqDataset(), teacher=teacher,
                             temperature=1.0, alpha=0.7)
    result = trainer.train()
    print("train loss", result.training_loss)
