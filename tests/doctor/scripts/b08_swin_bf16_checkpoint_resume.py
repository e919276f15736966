"""Stage 1 trains a tiny Swin (transformers config, random init) and exports a compact bf16
safetensors checkpoint; stage 2 re-creates the model and resumes fine-tuning from it with
layer-wise learning-rate decay."""
import os
import tempfile
import torch
from safetensors.torch import load_file, save_file
from transformers import SwinConfig, SwinForImageClassification

torch.manual_seed(0)

config = SwinConfig(image_size=32, patch_size=2, num_channels=3, embed_dim=24, depths=[1, 1],
                    num_heads=[2, 4], window_size=4, drop_path_rate=0.1, num_labels=6)
images = torch.rand(96, 3, 32, 32)
labels = torch.randint(0, 6, (96,))


def train(model, opt, steps):
    model.train()
    for s in range(steps):
        idx = torch.randint(0, 96, (24,))
        out = model(pixel_values=images[idx], labels=labels[idx])
        opt.zero_grad()
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"  step {s} loss {out.loss.item():.4f}")


def lrd_param_groups(model, base_lr, decay=0.75):
    n_layers = len(model.swin.encoder.layers) + 1
    groups = {}
    for name, p in model.named_parameters():
        if name.startswith("swin.embeddings"):
            layer_id = 0
        elif name.startswith("swin.encoder.layers."):
            layer_id = int(name.split(".")[3]) + 1
        else:
            layer_id = n_layers
        scale = decay ** (n_layers - layer_id)
        groups.setdefault(layer_id, {"params": [], "lr": base_lr * scale})["params"].append(p)
    return list(groups.values())


with tempfile.TemporaryDirectory() as tmp:
    ckpt = os.path.join(tmp, "swin_stage1.safetensors")

    print("stage 1")
    model = SwinForImageClassification(config)
    train(model, torch.optim.AdamW(model.parameters(), lr=1e-3), steps=4)
    # store in bf16 to halve the checkpoint size
    save_file({k: v.detach().to(torch.bfloat16).contiguous() for k, v in model.state_dict().items()}, ckpt)

    print("stage 2")
    model = SwinForImageClassification(config)
    state = load_file(ckpt)
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    print("missing", missing, "unexpected", unexpected)
    opt = torch.optim.AdamW(lrd_param_groups(model, 5e-4), weight_decay=0.05)
    train(model, opt, steps=4)
print("done")
