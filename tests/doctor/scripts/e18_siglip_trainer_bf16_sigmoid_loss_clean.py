"""SigLIP sigmoid-loss training with the HF Trainer (bf16 autocast on CPU, fp32 master weights).
Images are decoded to uint8 arrays and normalised to float32 in the collator; captions are padded
to a fixed length as SigLIP expects."""
import tempfile

import numpy as np
import torch
from datasets import Dataset
from transformers import SiglipConfig, SiglipModel, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)
MAX_LEN = 16

ds = Dataset.from_dict({
    "image": [rng.integers(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(48)],
    "caption_ids": [rng.integers(3, 1000, rng.integers(5, MAX_LEN)).tolist() for _ in range(48)],
})


def collate(examples):
    images = np.stack([np.asarray(ex["image"], dtype=np.uint8) for ex in examples])
    pixel_values = torch.from_numpy(images.astype(np.float32) / 127.5 - 1.0).permute(0, 3, 1, 2).contiguous()
    ids = torch.ones(len(examples), MAX_LEN, dtype=torch.long)  # pad id 1
    for i, ex in enumerate(examples):
        cap = ex["caption_ids"][:MAX_LEN - 1] + [2]
        ids[i, :len(cap)] = torch.tensor(cap)
    return {"pixel_values": pixel_values, "input_ids": ids, "return_loss": True}


config = SiglipConfig(
    text_config=dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, max_position_embeddings=MAX_LEN,
                     pad_token_id=1, bos_token_id=0, eos_token_id=2),
    vision_config=dict(image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
                       num_hidden_layers=2, num_attention_heads=4),
)
model = SiglipModel(config)
with torch.no_grad():
    model.logit_scale.fill_(np.log(10.0))
    model.logit_bias.fill_(-10.0)

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, num_train_epochs=3,
                             learning_rate=5e-4, warmup_steps=2, bf16=True, use_cpu=True, logging_steps=3,
                             report_to=[], save_strategy="no", remove_unused_columns=False,
                             max_grad_norm=1.0)
    trainer = Trainer(model=model, args=args, train_dataset=ds, data_collator=collate)
    trainer.train()

model.eval()
with torch.no_grad():
    batch = collate([ds[i] for i in range(8)])
    out = model(**batch)
    print("loss", out.loss.item(), "diag prob", torch.sigmoid(out.logits_per_image.diag()).mean().item())
