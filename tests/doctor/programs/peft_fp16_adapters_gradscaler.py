"""PEFT LoRA on an fp16 model with autocast_adapter_dtype=False: fp16 trainable adapters meet the GradScaler."""
import torch
from peft import LoraConfig, get_peft_model
from _tiny import batch, tiny_llama


def main():
    base = tiny_llama(torch.float16)
    model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj"]),
                           autocast_adapter_dtype=False)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    ids = batch()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(input_ids=ids, labels=ids).loss
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()


if __name__ == "__main__":
    main()
