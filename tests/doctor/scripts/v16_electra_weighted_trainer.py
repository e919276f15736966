import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from datasets import Dataset
from transformers import (DataCollatorWithPadding, ElectraConfig, ElectraForSequenceClassification,
                          PreTrainedTokenizerFast, Trainer, TrainingArguments)
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

rng = np.random.default_rng(0)
torch.manual_seed(0)
workdir = tempfile.mkdtemp()

POS = "great love excellent happy fast recommend".split()
NEG = "broken refund terrible slow angry never".split()
NEU = "the product arrived box order item was it and my on time".split()
vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
for w in POS + NEG + NEU:
    vocab[w] = len(vocab)
backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
backend.normalizer = normalizers.Lowercase()
backend.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]",
                                    cls_token="[CLS]", sep_token="[SEP]")


def review(label):
    words = list(rng.choice(NEU, size=rng.integers(4, 10)))
    if label == 1:
        words += list(rng.choice(POS, size=2))
    elif label == 2:
        words += list(rng.choice(NEG, size=2))
    rng.shuffle(words)
    return " ".join(words)


labels = rng.choice(3, size=300, p=[0.7, 0.2, 0.1])
ds = Dataset.from_dict({"text": [review(l) for l in labels], "label": labels.tolist()})
ds = ds.map(lambda b: tokenizer(b["text"], truncation=True, max_length=32), batched=True, remove_columns=["text"])
ds = ds.train_test_split(test_size=60, seed=0)

counts = np.bincount(ds["train"]["label"], minlength=3)
class_weights = torch.tensor(counts.sum() / (3 * counts), dtype=torch.float32)
print("class counts:", counts.tolist(), "weights:", [round(w, 3) for w in class_weights.tolist()])

config = ElectraConfig(vocab_size=len(vocab), embedding_size=32, hidden_size=64, intermediate_size=128,
                       num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=64, num_labels=3)
ckpt = os.path.join(workdir, "electra-small-reviews")
ElectraForSequenceClassification(config).save_pretrained(ckpt)
model = ElectraForSequenceClassification.from_pretrained(ckpt, dtype=torch.bfloat16)


class WeightedLossTrainer(Trainer):
    def __init__(self, *args, class_weights=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        weight = self.class_weights.to(outputs.logits.device)
        loss = F.cross_entropy(outputs.logits, labels, weight=weight)
        return (loss, outputs) if return_outputs else loss


def compute_metrics(pred):
    preds = pred.predictions.argmax(-1)
    recalls = [float((preds[pred.label_ids == c] == c).mean()) for c in range(3)]
    return {"accuracy": float((preds == pred.label_ids).mean()), "macro_recall": float(np.mean(recalls))}


args = TrainingArguments(output_dir=os.path.join(workdir, "out"), per_device_train_batch_size=16,
                         per_device_eval_batch_size=32, learning_rate=5e-4, num_train_epochs=2,
                         logging_steps=5, eval_strategy="epoch", save_strategy="no", use_cpu=True, report_to=[])
trainer = WeightedLossTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                              data_collator=DataCollatorWithPadding(tokenizer), compute_metrics=compute_metrics,
                              class_weights=class_weights)
trainer.train()
print(trainer.evaluate())
