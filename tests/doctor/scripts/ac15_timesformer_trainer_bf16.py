import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainingArguments, TimesformerConfig, TimesformerForVideoClassification

torch.manual_seed(0)

FRAMES, SIZE = 4, 32
LABELS = ["swipe_left", "swipe_right", "swipe_up", "swipe_down"]


class SwipeClips(Dataset):
    """A bright bar sweeping across the frame in one of four directions."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, len(LABELS), (n,), generator=g)
        self.noise = torch.randn(n, FRAMES, 3, SIZE, SIZE, generator=g) * 0.2

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        y = int(self.labels[i])
        clip = self.noise[i].clone()
        for t in range(FRAMES):
            pos = 4 + t * 7
            if y == 0:
                clip[t, :, :, SIZE - 1 - pos] += 1.5
            elif y == 1:
                clip[t, :, :, pos] += 1.5
            elif y == 2:
                clip[t, :, SIZE - 1 - pos, :] += 1.5
            else:
                clip[t, :, pos, :] += 1.5
        return {"pixel_values": clip, "labels": torch.tensor(y)}


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    logits = np.asarray(logits, dtype=np.float32)
    return {"accuracy": float((logits.argmax(-1) == labels).mean())}


def main():
    config = TimesformerConfig(
        image_size=SIZE, patch_size=8, num_channels=3, num_frames=FRAMES, hidden_size=64,
        num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        num_labels=len(LABELS), id2label=dict(enumerate(LABELS)), label2id={l: i for i, l in enumerate(LABELS)},
    )
    model = TimesformerForVideoClassification(config)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=8,
            per_device_eval_batch_size=16,
            learning_rate=1e-3,
            warmup_steps=4,
            weight_decay=0.01,
            num_train_epochs=2,
            bf16=True,
            use_cpu=True,
            logging_steps=4,
            eval_strategy="no",
            save_strategy="no",
            report_to=[],
            dataloader_num_workers=0,
        )
        trainer = Trainer(
            model=model, args=args, train_dataset=SwipeClips(48, 0), eval_dataset=SwipeClips(32, 1),
            compute_metrics=compute_metrics,
        )
        result = trainer.train()
        metrics = trainer.evaluate()
        print(f"train loss {result.training_loss:.4f}")
        print(f"eval loss {metrics['eval_loss']:.4f} accuracy {metrics['eval_accuracy']:.3f}")
        print("param dtype after training:", next(model.parameters()).dtype)


if __name__ == "__main__":
    main()
