"""Video-text contrastive training with the HF Trainer (bf16 on CPU).

Clips have a variable number of frames; frames of the whole batch are encoded in one pass by a ViT
and mean-pooled back per clip with index_add_."""
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset
from transformers import (CLIPTextConfig, CLIPTextModelWithProjection, Trainer, TrainingArguments,
                          ViTConfig, ViTModel)

torch.manual_seed(0)
rng = np.random.default_rng(0)


class ClipDataset(Dataset):
    def __init__(self, n=32):
        self.items = []
        for _ in range(n):
            t = int(rng.integers(2, 6))
            frames = rng.integers(0, 256, size=(t, 32, 32, 3), dtype=np.uint8)
            self.items.append((frames, rng.integers(3, 500, 12)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        frames, ids = self.items[i]
        return {"frames": frames, "input_ids": ids}


def collate(batch):
    frames, frame_to_clip = [], []
    for j, ex in enumerate(batch):
        f = torch.from_numpy(ex["frames"]).permute(0, 3, 1, 2).float() / 127.5 - 1.0
        frames.append(f)
        frame_to_clip += [j] * f.shape[0]
    return {"pixel_values": torch.cat(frames), "frame_to_clip": torch.tensor(frame_to_clip),
            "input_ids": torch.tensor(np.stack([ex["input_ids"] for ex in batch]))}


class VideoTextModel(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.frame_encoder = ViTModel(ViTConfig(image_size=32, patch_size=8, hidden_size=64,
                                                intermediate_size=128, num_hidden_layers=2,
                                                num_attention_heads=4), add_pooling_layer=False)
        self.video_proj = nn.Linear(64, dim, bias=False)
        self.text_encoder = CLIPTextModelWithProjection(CLIPTextConfig(
            vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, max_position_embeddings=16, projection_dim=dim,
            pad_token_id=0, bos_token_id=1, eos_token_id=2))
        self.logit_scale = nn.Parameter(torch.tensor(np.log(1 / 0.07), dtype=torch.float32))

    def forward(self, pixel_values, frame_to_clip, input_ids):
        n_clips = input_ids.shape[0]
        frame_feats = self.video_proj(self.frame_encoder(pixel_values).last_hidden_state[:, 0])
        video = torch.zeros(n_clips, frame_feats.shape[-1], device=frame_feats.device)
        video.index_add_(0, frame_to_clip, frame_feats)
        counts = torch.bincount(frame_to_clip, minlength=n_clips).clamp(min=1).unsqueeze(-1)
        video = F.normalize(video / counts, dim=-1)
        text = F.normalize(self.text_encoder(input_ids=input_ids).text_embeds, dim=-1)
        logits = self.logit_scale.exp() * video @ text.t()
        target = torch.arange(n_clips, device=logits.device)
        loss = (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2
        return {"loss": loss, "logits": logits}


with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=8, num_train_epochs=2,
                             learning_rate=5e-4, bf16=True, use_cpu=True, logging_steps=2,
                             report_to=[], save_strategy="no", remove_unused_columns=False,
                             dataloader_num_workers=0)
    trainer = Trainer(model=VideoTextModel(), args=args, train_dataset=ClipDataset(),
                      data_collator=collate)
    trainer.train()
print("done")
