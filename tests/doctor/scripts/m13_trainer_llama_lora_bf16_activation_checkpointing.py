"""LoRA fine-tuning of a tiny Llama causal LM with the HF Trainer: bf16 mixed precision,
activation (gradient) checkpointing, periodic evaluation, adapter saved with safetensors."""
import os
import tempfile
import torch
from datasets import Dataset
from peft import LoraConfig, get_peft_model
from transformers import (DataCollatorForLanguageModeling, LlamaConfig, LlamaForCausalLM, Trainer,
                          TrainingArguments)

torch.manual_seed(0)
V, T = 256, 32

cfg = LlamaConfig(vocab_size=V, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                  pad_token_id=0, bos_token_id=1, eos_token_id=2, use_cache=False)
base = LlamaForCausalLM(cfg)
lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, target_modules=["q_proj", "v_proj", "o_proj"],
                  task_type="CAUSAL_LM")
model = get_peft_model(base, lora)
model.print_trainable_parameters()


class Tok:  # minimal stand-in so the collator can pad
    pad_token_id = 0
    pad_token = "<pad>"

    def pad(self, features, return_tensors="pt", **kw):
        ids = torch.tensor([f["input_ids"] for f in features])
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def make_ds(n, seed):
    g = torch.Generator().manual_seed(seed)
    start = torch.randint(3, V - T, (n, 1), generator=g)
    step = torch.randint(1, 4, (n, 1), generator=g)
    ids = (start + step * torch.arange(T)) % (V - 3) + 3  # arithmetic progressions
    ids[:, 0] = 1
    return Dataset.from_dict({"input_ids": ids.tolist()})


train_ds, eval_ds = make_ds(256, 0), make_ds(64, 1)
collator = DataCollatorForLanguageModeling(tokenizer=Tok(), mlm=False)

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(
        output_dir=out_dir, per_device_train_batch_size=16, per_device_eval_batch_size=32,
        num_train_epochs=2, learning_rate=3e-3, warmup_steps=4, bf16=True, activation_checkpointing=True,
        max_grad_norm=1.0,
        eval_strategy="epoch", logging_steps=8, save_strategy="no", report_to=[], use_cpu=True,
        disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=collator)
    trainer.train()
    print("activation checkpointing:", base.is_activation_checkpointing)
    metrics = trainer.evaluate()
    print("eval loss", metrics["eval_loss"])
    model.save_pretrained(os.path.join(out_dir, "adapter"))
    print("saved:", sorted(os.listdir(os.path.join(out_dir, "adapter"))))
