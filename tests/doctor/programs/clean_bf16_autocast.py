"""Clean: a bf16 model with fp32 norms, trained and sampled under autocast. No fault, no warning expected."""
import torch
from _tiny import batch, tiny_llama


def main():
    model = tiny_llama(torch.bfloat16)
    for name, module in model.named_modules():
        if name.endswith("norm"):
            module.float()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = batch()
    for _ in range(2):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        model(input_ids=ids)
        out = model.generate(ids[:1, :4], max_new_tokens=3, do_sample=False)
    print("clean run ok", tuple(out.shape), f"{loss.item():.3f}")


if __name__ == "__main__":
    main()
