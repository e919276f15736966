"""S001: a bf16 model whose norms were upcast to fp32 trains fine under autocast, then generate() outside it fails."""
import torch
from _tiny import batch, tiny_llama


def main():
    model = tiny_llama(torch.bfloat16)
    for name, module in model.named_modules():
        if name.endswith("norm"):
            module.float()  # "norms in fp32 for stability", as many recipes do
    ids = batch()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    model.eval()
    model.generate(ids[:1, :4], max_new_tokens=3, do_sample=False)  # the callback's sample, outside autocast


if __name__ == "__main__":
    main()
