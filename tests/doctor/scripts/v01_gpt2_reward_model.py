import os
import random
import tempfile

import torch
from torch import nn
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import GPT2Config, GPT2ForSequenceClassification, PreTrainedTokenizerFast
from trl import RewardConfig, RewardTrainer

random.seed(0)
torch.manual_seed(0)
workdir = tempfile.mkdtemp()

WORDS = ("the a answer is helpful polite rude wrong correct explain because please thanks sorry "
         "sure here step first then finally result code python error fix works fails maybe").split()
vocab = {"<pad>": 0, "<unk>": 1, "<eos>": 2}
for w in WORDS:
    vocab[w] = len(vocab)
backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
backend.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>", eos_token="<eos>")


def sentence(good: bool) -> str:
    pool = ["helpful", "polite", "correct", "explain", "thanks", "works", "fix"] if good else \
           ["rude", "wrong", "fails", "error", "maybe", "sorry"]
    body = [random.choice(WORDS) for _ in range(random.randint(4, 10))]
    body += [random.choice(pool) for _ in range(3)]
    random.shuffle(body)
    return " ".join(body)


rows = {"prompt": [], "chosen": [], "rejected": []}
for _ in range(64):
    rows["prompt"].append("please explain the error " + " ".join(random.choices(WORDS, k=3)) + " ")
    rows["chosen"].append(sentence(True))
    rows["rejected"].append(sentence(False))
train_ds = Dataset.from_dict(rows)

# base checkpoint (stands in for the SFT model we start from)
base_dir = os.path.join(workdir, "sft-base")
config = GPT2Config(n_embd=64, n_layer=2, n_head=4, n_positions=128, vocab_size=len(vocab),
                    num_labels=1, pad_token_id=tokenizer.pad_token_id,
                    bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
GPT2ForSequenceClassification(config).save_pretrained(base_dir)

model = GPT2ForSequenceClassification.from_pretrained(base_dir, dtype=torch.bfloat16)
model.score = nn.Linear(config.n_embd, 1, bias=True)
nn.init.normal_(model.score.weight, std=1.0 / (config.n_embd + 1) ** 0.5)
nn.init.zeros_(model.score.bias)

args = RewardConfig(
    output_dir=os.path.join(workdir, "rm"),
    per_device_train_batch_size=8,
    learning_rate=5e-5,
    max_steps=6,
    logging_steps=2,
    max_length=64,
    bf16=False,
    use_cpu=True,
    report_to=[],
    save_strategy="no",
    center_rewards_coefficient=0.01,
)

trainer = RewardTrainer(model=model, args=args, train_dataset=train_ds, processing_class=tokenizer)
result = trainer.train()
print(f"reward model train loss: {result.training_loss:.4f}")

model.eval()
batch = tokenizer(["please explain the error " + sentence(True), "please explain the error " + sentence(False)],
                  return_tensors="pt", padding=True)
with torch.no_grad():
    scores = model(**batch).logits.squeeze(-1)
print("reward(chosen-like) =", scores[0].item(), " reward(rejected-like) =", scores[1].item())
