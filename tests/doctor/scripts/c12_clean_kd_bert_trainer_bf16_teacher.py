"""Distil a bf16 BERT teacher into a smaller fp32 BERT student for sequence classification with a
custom Trainer. Clean script: teacher logits are upcast and the KL uses log-space targets."""
import tempfile

import torch
import torch.nn.functional as F
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)

VOCAB, N_LABELS, T = 800, 3, 24


class ToyNLI(Dataset):
    def __init__(self, n=192, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.rows = []
        for _ in range(n):
            L = int(torch.randint(6, T + 1, (1,), generator=g))
            ids = torch.randint(5, VOCAB, (L,), generator=g)
            ids[0] = 2                                   # [CLS]
            label = int(ids[1:].float().mean() // (VOCAB / N_LABELS)) % N_LABELS
            pad = T - L
            self.rows.append({
                "input_ids": torch.cat([ids, torch.zeros(pad, dtype=torch.long)]),
                "attention_mask": torch.cat([torch.ones(L, dtype=torch.long), torch.zeros(pad, dtype=torch.long)]),
                "labels": torch.tensor(label),
            })

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


common = dict(vocab_size=VOCAB, num_labels=N_LABELS, max_position_embeddings=64, pad_token_id=0,
              attn_implementation="eager")
teacher = BertForSequenceClassification(BertConfig(hidden_size=96, num_hidden_layers=3, num_attention_heads=4,
                                                   intermediate_size=192, **common))
teacher = teacher.to(torch.bfloat16).eval()
for p in teacher.parameters():
    p.requires_grad_(False)

student = BertForSequenceClassification(BertConfig(hidden_size=48, num_hidden_layers=1, num_attention_heads=4,
                                                   intermediate_size=96, **common))


class KDTrainer(Trainer):
    def __init__(self, *args, teacher=None, T=2.0, alpha=0.5, **kw):
        super().__init__(*args, **kw)
        self.teacher, self.T, self.alpha = teacher, T, alpha

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        out = model(**inputs)
        with torch.no_grad():
            t_logits = self.teacher(input_ids=inputs["input_ids"],
                                    attention_mask=inputs["attention_mask"]).logits.float()
        s_logp = F.log_softmax(out.logits.float() / self.T, dim=-1)
        t_logp = F.log_softmax(t_logits / self.T, dim=-1)
        kd = F.kl_div(s_logp, t_logp, log_target=True, reduction="batchmean") * self.T ** 2
        loss = self.alpha * kd + (1 - self.alpha) * out.loss
        return (loss, out) if return_outputs else loss


def accuracy(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((logits.argmax(-1) == labels).mean())}


with tempfile.TemporaryDirectory() as tmp:
    args = TrainingArguments(output_dir=tmp, use_cpu=True, per_device_train_batch_size=16,
                             per_device_eval_batch_size=32, num_train_epochs=2, learning_rate=5e-4,
                             logging_steps=6, eval_strategy="epoch", save_strategy="no", report_to=[],
                             disable_tqdm=True, logging_nan_inf_filter=False)
    trainer = KDTrainer(model=student, args=args, train_dataset=ToyNLI(), eval_dataset=ToyNLI(64, seed=1),
                        compute_metrics=accuracy, teacher=teacher, T=2.0, alpha=0.5)
    trainer.train()
    metrics = trainer.evaluate()
    print("eval", {k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)})
