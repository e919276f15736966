import math
import tempfile

import torch
from peft import LoraConfig, get_peft_model
from torch.utils.data import Dataset
from transformers import Qwen2Config, Qwen2ForCausalLM, Trainer, TrainingArguments

torch.manual_seed(0)

VOCAB, SEQ = 256, 48


class PatternDataset(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        start = torch.randint(3, VOCAB, (n, 1), generator=g)
        step = torch.randint(1, 4, (n, 1), generator=g)
        self.ids = 3 + (start + step * torch.arange(SEQ)) % (VOCAB - 3)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        ids = self.ids[i]
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def main():
    cfg = Qwen2Config(vocab_size=VOCAB, hidden_size=96, intermediate_size=256, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=SEQ,
                      tie_word_embeddings=False, use_cache=False, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    base = Qwen2ForCausalLM(cfg)
    lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
    model = get_peft_model(base, lora)
    model.print_trainable_parameters()

    out_dir = tempfile.mkdtemp(prefix="lora_ckpt_")
    args = TrainingArguments(
        output_dir=out_dir, per_device_train_batch_size=16, per_device_eval_batch_size=32,
        gradient_accumulation_steps=2, num_train_epochs=2, learning_rate=5e-3, lr_scheduler_type="cosine",
        warmup_steps=2, optim="adafactor", bf16=True, use_cpu=True, gradient_checkpointing=True,
        gradient_checkpointing_kwargs={"use_reentrant": False}, logging_steps=5, eval_strategy="epoch",
        save_strategy="no", report_to="none", dataloader_num_workers=0, seed=0, disable_tqdm=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=PatternDataset(320, 0),
                      eval_dataset=PatternDataset(64, 1))
    result = trainer.train()
    metrics = trainer.evaluate()
    print(f"train loss {result.training_loss:.4f} eval loss {metrics['eval_loss']:.4f} "
          f"ppl {math.exp(metrics['eval_loss']):.2f}")
    assert all(p.dtype == torch.float32 for p in model.parameters() if p.requires_grad)

    merged = model.merge_and_unload()
    merged.eval()
    batch = PatternDataset(8, 2)[0]
    with torch.no_grad():
        loss = merged(input_ids=batch["input_ids"][None], labels=batch["labels"][None]).loss
    print(f"merged-model loss on a held-out sequence {loss.item():.4f}")


if __name__ == "__main__":
    main()
