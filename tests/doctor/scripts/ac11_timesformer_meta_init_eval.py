import os
import tempfile

import torch
import torch.nn.functional as F
from accelerate import init_empty_weights
from transformers import TimesformerConfig, TimesformerForVideoClassification, TimesformerModel

torch.manual_seed(0)

FRAMES, SIZE = 4, 32
LABELS = ["open_door", "close_door", "pick_cup", "put_cup", "pour", "stir"]


def tiny_config(**kw):
    return TimesformerConfig(
        image_size=SIZE, patch_size=8, num_channels=3, num_frames=FRAMES, hidden_size=64,
        num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        attention_type="divided_space_time", **kw,
    )


def pretrain_checkpoint(path):
    """Stands in for a self-supervised backbone checkpoint produced by another job."""
    backbone = TimesformerModel(tiny_config())
    torch.save(backbone.state_dict(), path)
    return sum(p.numel() for p in backbone.parameters())


def eval_clips(n):
    g = torch.Generator().manual_seed(3)
    labels = torch.randint(0, len(LABELS), (n,), generator=g)
    clips = torch.randn(n, FRAMES, 3, SIZE, SIZE, generator=g) * 0.5
    for i, y in enumerate(labels.tolist()):
        clips[i, :, y % 3, (y * 5) % SIZE] += 1.0
    return clips, labels


def load_for_eval(ckpt_path):
    config = tiny_config(num_labels=len(LABELS), id2label=dict(enumerate(LABELS)),
                         label2id={l: i for i, l in enumerate(LABELS)})
    with init_empty_weights():
        model = TimesformerForVideoClassification(config)
    state = torch.load(ckpt_path, map_location="cpu", weights_only=True)
    state = {f"timesformer.{k}": v for k, v in state.items()}
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    print(f"loaded backbone: {len(state)} tensors, missing={missing}, unexpected={unexpected}")
    return model.eval()


@torch.no_grad()
def evaluate(model, clips, labels, bs=8):
    total_loss, correct = 0.0, 0
    for i in range(0, len(labels), bs):
        x, y = clips[i:i + bs], labels[i:i + bs]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(pixel_values=x).logits
        total_loss += F.cross_entropy(logits.float(), y, reduction="sum").item()
        correct += (logits.argmax(-1) == y).sum().item()
    return total_loss / len(labels), correct / len(labels)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "timesformer_backbone.pt")
        n_params = pretrain_checkpoint(ckpt)
        print(f"backbone params: {n_params}")
        model = load_for_eval(ckpt)
    clips, labels = eval_clips(32)
    loss, acc = evaluate(model, clips, labels)
    print(f"eval: loss {loss:.4f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
