"""CTC sequence labelling of machine-state events in a vibration signal (conv front-end + BiGRU),
trained with the Hugging Face Trainer. The model is cast to bfloat16 for faster CPU training."""
import tempfile

import numpy as np
import torch
import torch.nn as nn
from datasets import Dataset
from transformers import Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)

T, FEAT, N_STATES, MAX_LABEL = 80, 6, 5, 6  # state 0 is the CTC blank


def synth_example():
    n_events = rng.integers(2, MAX_LABEL + 1)
    labels = rng.integers(1, N_STATES, n_events)
    x = rng.normal(0, 0.3, (T, FEAT))
    bounds = np.sort(rng.choice(np.arange(5, T - 5), n_events, replace=False))
    for b, lab in zip(bounds, labels):
        x[b : b + 4, lab % FEAT] += 2.0
    padded = np.zeros(MAX_LABEL, dtype=np.int64)
    padded[:n_events] = labels
    return {"inputs": x.astype(np.float32), "labels": padded, "label_lengths": int(n_events)}


ds = Dataset.from_list([synth_example() for _ in range(256)]).with_format("torch")
split = ds.train_test_split(test_size=0.125, seed=0)


class CTCTagger(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.frontend = nn.Sequential(nn.Conv1d(FEAT, hidden, 5, padding=2), nn.GELU())
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(2 * hidden, N_STATES)
        self.ctc = nn.CTCLoss(blank=0, zero_infinity=True)

    def forward(self, inputs, labels=None, label_lengths=None):
        x = inputs.to(self.classifier.weight.dtype)
        h = self.frontend(x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.rnn(h)
        log_probs = self.classifier(h).log_softmax(-1)  # (B, T, C)
        out = {"logits": log_probs}
        if labels is not None:
            B = inputs.shape[0]
            input_lengths = torch.full((B,), log_probs.shape[1], dtype=torch.long)
            out["loss"] = self.ctc(log_probs.transpose(0, 1), labels, input_lengths, label_lengths)
        return out


model = CTCTagger().to(torch.bfloat16)

with tempfile.TemporaryDirectory() as tmp:
    args = TrainingArguments(
        output_dir=tmp,
        per_device_train_batch_size=32,
        per_device_eval_batch_size=32,
        num_train_epochs=2,
        learning_rate=3e-3,
        logging_steps=5,
        eval_strategy="epoch",
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        dataloader_num_workers=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=split["train"], eval_dataset=split["test"])
    trainer.train()
    print(trainer.evaluate())
