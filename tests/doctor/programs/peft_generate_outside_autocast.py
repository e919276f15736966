"""PEFT LoRA on a bf16 model with fp32-upcast norms: PEFT casts the adapter input, not the base layer's input."""
import torch
from peft import LoraConfig, get_peft_model
from _tiny import batch, tiny_llama


def main():
    base = tiny_llama(torch.bfloat16)
    for name, module in base.named_modules():
        if name.endswith("norm"):
            module.float()
    model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    ids = batch()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(input_ids=ids, labels=ids).loss.backward()
    model.generate(input_ids=ids[:1, :4], max_new_tokens=2, do_sample=False)


if __name__ == "__main__":
    main()
