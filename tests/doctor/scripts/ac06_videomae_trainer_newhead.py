import tempfile

import torch
import torch.nn as nn
from torch.utils.data import Dataset
from transformers import Trainer, TrainingArguments, VideoMAEConfig, VideoMAEForVideoClassification

torch.manual_seed(0)

FRAMES, SIZE = 4, 32
ACTIONS = ["wave", "clap", "jump", "sit", "stand", "turn"]


class GestureClips(Dataset):
    def __init__(self, n, num_labels, dtype):
        g = torch.Generator().manual_seed(1)
        self.labels = torch.randint(0, num_labels, (n,), generator=g)
        self.noise = torch.randn(n, FRAMES, 3, SIZE, SIZE, generator=g) * 0.3
        self.dtype = dtype

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        y = int(self.labels[i])
        clip = self.noise[i].clone()
        for t in range(FRAMES):
            clip[t, y % 3, :, (y * 4 + t * 2) % SIZE] += 2.0
        return {"pixel_values": clip.to(self.dtype), "labels": torch.tensor(y)}


def build_model(dtype):
    config = VideoMAEConfig(
        image_size=SIZE,
        patch_size=8,
        num_channels=3,
        num_frames=FRAMES,
        tubelet_size=2,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        use_mean_pooling=True,
        num_labels=400,
    )
    model = VideoMAEForVideoClassification(config).to(dtype)
    # re-target the (kinetics-sized) classifier to our gesture vocabulary
    model.classifier = nn.Linear(config.hidden_size, len(ACTIONS))
    model.num_labels = len(ACTIONS)
    model.config.num_labels = len(ACTIONS)
    model.config.id2label = dict(enumerate(ACTIONS))
    model.config.label2id = {a: i for i, a in enumerate(ACTIONS)}
    return model


def main():
    dtype = torch.bfloat16
    model = build_model(dtype)
    train_ds = GestureClips(64, len(ACTIONS), dtype)
    eval_ds = GestureClips(16, len(ACTIONS), dtype)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=8,
            per_device_eval_batch_size=8,
            learning_rate=5e-4,
            num_train_epochs=2,
            logging_steps=4,
            eval_strategy="epoch",
            save_strategy="no",
            report_to=[],
            use_cpu=True,
            dataloader_num_workers=0,
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
        result = trainer.train()
        print("train loss", result.training_loss)
        metrics = trainer.evaluate()
        print("eval loss", metrics["eval_loss"])
        trainer.save_model(out_dir)


if __name__ == "__main__":
    main()
