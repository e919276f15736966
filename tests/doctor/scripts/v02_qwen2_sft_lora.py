import math
import os
import random
import tempfile

import torch
from datasets import Dataset
from peft import LoraConfig
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
from trl import SFTConfig, SFTTrainer

random.seed(1)
torch.manual_seed(1)
workdir = tempfile.mkdtemp()

WORDS = ("user assistant how do i sort a list in python use sorted or list sort method returns new "
         "the key argument reverse true false lambda example output done").split()
vocab = {"<pad>": 0, "<unk>": 1, "<|endoftext|>": 2}
for w in WORDS:
    vocab.setdefault(w, len(vocab))
backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
backend.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>",
                                    eos_token="<|endoftext|>")

texts = []
for _ in range(96):
    q = " ".join(random.choices(WORDS[:12], k=random.randint(5, 9)))
    a = " ".join(random.choices(WORDS[8:], k=random.randint(8, 20)))
    texts.append(f"user {q} assistant {a}")
ds = Dataset.from_dict({"text": texts}).train_test_split(test_size=16, seed=0)

config = Qwen2Config(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=64, max_position_embeddings=256,
                     pad_token_id=0, eos_token_id=2, bos_token_id=2, tie_word_embeddings=True)
base_dir = os.path.join(workdir, "qwen2-tiny")
Qwen2ForCausalLM(config).save_pretrained(base_dir)
model = Qwen2ForCausalLM.from_pretrained(base_dir)

peft_config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, task_type="CAUSAL_LM",
                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])

args = SFTConfig(
    output_dir=os.path.join(workdir, "sft"),
    per_device_train_batch_size=8,
    per_device_eval_batch_size=8,
    learning_rate=2e-3,
    max_steps=10,
    logging_steps=5,
    max_length=64,
    bf16=True,
    use_cpu=True,
    report_to=[],
    save_strategy="no",
)

trainer = SFTTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                     processing_class=tokenizer, peft_config=peft_config)
trainer.model.print_trainable_parameters()
train_out = trainer.train()
metrics = trainer.evaluate()
print(f"train loss {train_out.training_loss:.4f}  eval loss {metrics['eval_loss']:.4f}  "
      f"eval ppl {math.exp(metrics['eval_loss']):.2f}")
assert math.isfinite(metrics["eval_loss"])
