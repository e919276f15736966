"""Single-object localisation + classification ("one box per image" detector) with a tiny ViT from
transformers: the CLS token feeds a class head and a box head (cxcywh, sigmoid), and every patch
token gets an objectness logit supervised by a patch-level box mask (as in ViT-based detectors'
auxiliary heads). CE + L1 + GIoU + objectness BCE, trained with the HF Trainer in bf16 on CPU.
Annotations are stored as NumPy arrays in a datasets.Dataset (numpy format)."""
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Array2D, Array3D, Dataset, Features, Sequence, Value
from transformers import Trainer, TrainingArguments, ViTConfig, ViTModel

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, NC, PATCH = 32, 4, 4


def make_split(n):
    imgs, boxes, cats, objs = [], [], [], []
    for _ in range(n):
        img = rng.integers(0, 50, (IMG, IMG, 3)).astype(np.uint8)
        wh = rng.uniform(6, 18, 2)
        xy = rng.uniform(0, IMG - wh)
        c = int(rng.integers(0, NC))
        x1, y1 = xy.astype(int)
        x2, y2 = (xy + wh).astype(int)
        img[y1:y2, x1:x2] = 60 + 50 * c
        if rng.random() < 0.5:  # horizontal flip
            img = img[:, ::-1].copy()
            x1, x2 = IMG - x2, IMG - x1
        obj = np.zeros((IMG, IMG), dtype=np.uint8)
        obj[y1:y2, x1:x2] = 1
        imgs.append(img)
        objs.append(obj)
        boxes.append([(x1 + x2) / 2 / IMG, (y1 + y2) / 2 / IMG, (x2 - x1) / IMG, (y2 - y1) / IMG])
        cats.append(c)
    feats = Features({"image": Array3D((IMG, IMG, 3), "uint8"), "box": Sequence(Value("float32"), length=4),
                      "category": Value("int64"), "objectness": Array2D((IMG, IMG), "uint8")})
    return Dataset.from_dict({"image": imgs, "box": boxes, "category": cats, "objectness": objs},
                             features=feats).with_format("numpy")


def collate(features):
    pixel_values = torch.from_numpy(np.stack([f["image"] for f in features])).permute(0, 3, 1, 2).float() / 255.0
    return {"pixel_values": (pixel_values - 0.5) / 0.5,
            "boxes": torch.from_numpy(np.stack([f["box"] for f in features])),
            "labels": torch.from_numpy(np.stack([f["category"] for f in features])),
            "objectness": torch.from_numpy(np.stack([f["objectness"] for f in features]))}


def cxcywh_to_xyxy(b):
    return torch.cat([b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2], -1)


def giou(a, b):
    lt, rb = torch.max(a[:, :2], b[:, :2]), torch.min(a[:, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
    union = area(a) + area(b) - inter
    c = (torch.max(a[:, 2:], b[:, 2:]) - torch.min(a[:, :2], b[:, :2])).prod(-1)
    return inter / union - (c - union) / c


class ViTLocalizer(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = ViTConfig(image_size=IMG, patch_size=4, hidden_size=48, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=96)
        self.vit = ViTModel(cfg, add_pooling_layer=False)
        self.class_head = nn.Linear(48, NC)
        self.box_head = nn.Sequential(nn.Linear(48, 48), nn.GELU(), nn.Linear(48, 4))
        self.obj_head = nn.Linear(48, 1)

    def forward(self, pixel_values, boxes=None, labels=None, objectness=None):
        hidden = self.vit(pixel_values=pixel_values).last_hidden_state
        cls_tok = hidden[:, 0]
        g = IMG // PATCH
        obj_logits = self.obj_head(hidden[:, 1:]).reshape(-1, 1, g, g)
        logits = self.class_head(cls_tok)
        pred_boxes = self.box_head(cls_tok).sigmoid()
        out = {"logits": logits, "pred_boxes": pred_boxes}
        if labels is not None:
            l_ce = F.cross_entropy(logits.float(), labels)
            l_l1 = F.l1_loss(pred_boxes.float(), boxes)
            l_giou = (1 - giou(cxcywh_to_xyxy(pred_boxes.float()), cxcywh_to_xyxy(boxes))).mean()
            obj_t = F.max_pool2d(objectness[:, None], PATCH)  # patch contains any box pixel
            l_obj = F.binary_cross_entropy_with_logits(obj_logits.float(), obj_t)
            out["loss"] = l_ce + 5 * l_l1 + 2 * l_giou + l_obj
        return out


def main():
    train, val = make_split(96), make_split(16)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, per_device_eval_batch_size=16,
                                 num_train_epochs=2, learning_rate=5e-4, logging_steps=3, eval_strategy="epoch",
                                 save_strategy="no", bf16=True, use_cpu=True, report_to=[],
                                 remove_unused_columns=False, label_names=["boxes", "labels", "objectness"],
                                 disable_tqdm=True, seed=0)
        trainer = Trainer(model=ViTLocalizer(), args=args, train_dataset=train, eval_dataset=val,
                          data_collator=collate)
        trainer.train()
        print(trainer.evaluate())


if __name__ == "__main__":
    main()
