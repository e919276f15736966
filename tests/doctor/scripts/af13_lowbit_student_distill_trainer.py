import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

VOCAB = 200


def make_dataset(n, seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, VOCAB, (n, 24), generator=g)
    labels = (ids[:, :12].float().mean(1) > ids[:, 12:].float().mean(1)).long()
    return Dataset.from_dict({"input_ids": ids.tolist(), "labels": labels.tolist()})


@torch.no_grad()
def fake_quantize_weights(model, bits=4):
    qmax = 2 ** (bits - 1) - 1
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear) and "classifier" not in name:
            w = module.weight
            scale = w.abs().amax(dim=1, keepdim=True).clamp_min(1e-8) / qmax
            w.copy_(torch.clamp(torch.round(w / scale), -qmax - 1, qmax) * scale)


class DistillTrainer(Trainer):
    def __init__(self, teacher, temperature=2.0, alpha=0.5, beta=0.1, **kwargs):
        super().__init__(**kwargs)
        self.teacher = teacher.eval()
        self.temperature, self.alpha, self.beta = temperature, alpha, beta

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        out = model(**inputs, output_hidden_states=True)
        with torch.no_grad():
            t_out = self.teacher(input_ids=inputs["input_ids"], output_hidden_states=True)
        T = self.temperature
        kd = F.kl_div(F.log_softmax(out.logits.float() / T, -1), F.softmax(t_out.logits.float() / T, -1),
                      reduction="batchmean") * T * T
        proj = model.distill_head(out.hidden_states[-1])
        feat = F.mse_loss(proj.float(), t_out.hidden_states[-1].float())
        loss = self.alpha * out.loss.float() + (1 - self.alpha) * kd + self.beta * feat
        return (loss, out) if return_outputs else loss


def collate(features):
    return {"input_ids": torch.tensor([f["input_ids"] for f in features]),
            "labels": torch.tensor([f["labels"] for f in features])}


def main():
    torch.manual_seed(0)
    t_cfg = BertConfig(vocab_size=VOCAB, hidden_size=96, num_hidden_layers=3, num_attention_heads=4,
                       intermediate_size=192, max_position_embeddings=32, num_labels=2)
    s_cfg = BertConfig(vocab_size=VOCAB, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                       intermediate_size=96, max_position_embeddings=32, num_labels=2)
    teacher = BertForSequenceClassification(t_cfg)
    student = BertForSequenceClassification(s_cfg)
    fake_quantize_weights(student, bits=4)
    student = student.to(torch.bfloat16)
    student.distill_head = nn.Linear(s_cfg.hidden_size, t_cfg.hidden_size)

    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, num_train_epochs=2,
                                 learning_rate=5e-4, logging_steps=4, use_cpu=True, save_strategy="no",
                                 report_to=[], disable_tqdm=True, remove_unused_columns=False)
        trainer = DistillTrainer(teacher=teacher, model=student, args=args,
                                 train_dataset=make_dataset(64, seed=0), data_collator=collate)
        result = trainer.train()
    print(f"distillation finished, train loss {result.training_loss:.4f}")


if __name__ == "__main__":
    main()
