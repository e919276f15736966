import math
import tempfile

import torch
from datasets import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


class AdamWScheduleFree(torch.optim.Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, warmup_steps=10):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, warmup_steps=warmup_steps,
                        k=0, lr_max=0.0, weight_sum=0.0, train_mode=True)
        super().__init__(params, defaults)

    @torch.no_grad()
    def eval(self):
        for group in self.param_groups:
            if group["train_mode"]:
                for p in group["params"]:
                    if "z" in self.state[p]:
                        p.lerp_(self.state[p]["z"], 1 - group["betas"][0])
                group["train_mode"] = False

    @torch.no_grad()
    def train(self):
        for group in self.param_groups:
            if not group["train_mode"]:
                for p in group["params"]:
                    if "z" in self.state[p]:
                        p.lerp_(self.state[p]["z"], 1 - 1 / group["betas"][0])
                group["train_mode"] = True

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            k = group["k"]
            sched = min(1.0, (k + 1) / group["warmup_steps"])
            lr = group["lr"] * sched * math.sqrt(1 - beta2 ** (k + 1))
            group["lr_max"] = max(lr, group["lr_max"])
            weight = group["lr_max"] ** 2
            group["weight_sum"] += weight
            ckp1 = weight / group["weight_sum"] if group["weight_sum"] else 0.0
            y_lr = lr * (beta1 * (1 - ckp1) - 1)
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["z"] = p.detach().clone(memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, dtype=torch.float32)
                g = p.grad.float()
                state["exp_avg_sq"].mul_(beta2).addcmul_(g, g, value=1 - beta2)
                g_norm = g / state["exp_avg_sq"].sqrt().add_(group["eps"])
                g_norm.add_(p, alpha=group["weight_decay"])
                p.lerp_(state["z"], ckp1)
                p.add_(g_norm, alpha=y_lr)
                state["z"].sub_(g_norm, alpha=lr)
            group["k"] = k + 1
        return None


def make_dataset(n, vocab=500, seq=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 2, (n,), generator=g)
    ids = torch.randint(5, vocab, (n, seq), generator=g)
    ids[labels == 1, : seq // 4] = 3
    ids[:, 0] = 1
    return Dataset.from_dict({"input_ids": ids.tolist(), "attention_mask": [[1] * seq] * n,
                              "labels": labels.tolist()})


def main():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=500, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=64, num_labels=2)
    model = BertForSequenceClassification(config)
    train_ds, eval_ds = make_dataset(192), make_dataset(64, seed=1)
    opt = AdamWScheduleFree(model.parameters(), lr=2e-3, weight_decay=0.01, warmup_steps=10)
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, per_device_train_batch_size=32, per_device_eval_batch_size=64,
                                 num_train_epochs=2, logging_steps=4, eval_strategy="no", save_strategy="no",
                                 bf16=True, use_cpu=True, report_to=[], lr_scheduler_type="constant",
                                 max_grad_norm=1.0, disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                          optimizers=(opt, None))
        result = trainer.train()
        metrics = trainer.evaluate()
    print(f"train loss {result.training_loss:.4f}")
    print(f"eval loss {metrics['eval_loss']:.4f}")


if __name__ == "__main__":
    main()
