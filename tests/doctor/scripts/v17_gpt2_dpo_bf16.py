import math
import os
import random
import tempfile

import torch
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast
from trl import DPOConfig, DPOTrainer

random.seed(5)
torch.manual_seed(5)
workdir = tempfile.mkdtemp()

WORDS = ("what is the capital of france paris london berlin i think it is maybe not sure "
         "answer correct wrong city country please tell me thanks").split()
vocab = {"<|pad|>": 0, "<|unk|>": 1, "<|endoftext|>": 2}
for w in WORDS:
    vocab.setdefault(w, len(vocab))
backend = Tokenizer(models.WordLevel(vocab, unk_token="<|unk|>"))
backend.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<|pad|>", unk_token="<|unk|>",
                                    eos_token="<|endoftext|>", bos_token="<|endoftext|>")

rows = {"prompt": [], "chosen": [], "rejected": []}
for _ in range(64):
    city, wrong = random.choice([("paris", "london"), ("paris", "berlin")])
    rows["prompt"].append(random.choice(["what is the capital of france", "please tell me the capital of france"]))
    rows["chosen"].append(f" the answer is {city} " + random.choice(["thanks", "", "city"]))
    rows["rejected"].append(f" i think it is maybe {wrong} " + random.choice(["not sure", "", "wrong"]))
ds = Dataset.from_dict(rows).train_test_split(test_size=16, seed=0)

config = GPT2Config(vocab_size=len(vocab), n_positions=64, n_embd=64, n_layer=2, n_head=4,
                    bos_token_id=2, eos_token_id=2, pad_token_id=0)
sft_dir = os.path.join(workdir, "gpt2-sft")
GPT2LMHeadModel(config).save_pretrained(sft_dir)
policy = GPT2LMHeadModel.from_pretrained(sft_dir)
reference = GPT2LMHeadModel.from_pretrained(sft_dir)

args = DPOConfig(
    output_dir=os.path.join(workdir, "dpo"),
    per_device_train_batch_size=8,
    per_device_eval_batch_size=8,
    learning_rate=1e-3,
    beta=0.1,
    max_steps=12,
    logging_steps=4,
    max_length=48,
    bf16=True,
    use_cpu=True,
    report_to=[],
    save_strategy="no",
)
trainer = DPOTrainer(model=policy, ref_model=reference, args=args, train_dataset=ds["train"],
                     eval_dataset=ds["test"], processing_class=tokenizer)
out = trainer.train()
metrics = trainer.evaluate()
print(f"train loss {out.training_loss:.4f}")
print({k: round(v, 4) for k, v in metrics.items() if k.startswith("eval_") and isinstance(v, float)})
assert all(math.isfinite(v) for v in metrics.values() if isinstance(v, float))
