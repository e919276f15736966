import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
WORDS = ["<pad>", "<bos>", "<eos>", "a", "small", "large", "red", "blue", "sphere", "cube", "torus", "on", "the",
         "floor", "table", "next", "to", "wall"]
VOCAB = {w: i for i, w in enumerate(WORDS)}
SHAPES = ["sphere", "cube", "torus"]


def encode(text):
    return [VOCAB["<bos>"]] + [VOCAB[w] for w in text.split()] + [VOCAB["<eos>"]]


def make_scene(shape_id, big):
    n = 256
    if SHAPES[shape_id] == "sphere":
        p = F.normalize(torch.randn(n, 3), dim=-1)
    elif SHAPES[shape_id] == "cube":
        p = torch.rand(n, 3) * 2 - 1
        ax = torch.randint(0, 3, (n,))
        p[torch.arange(n), ax] = torch.sign(p[torch.arange(n), ax])
    else:
        u, v = torch.rand(n) * 6.283, torch.rand(n) * 6.283
        p = torch.stack([(1 + 0.3 * v.cos()) * u.cos(), (1 + 0.3 * v.cos()) * u.sin(), 0.3 * v.sin()], -1)
    caption = f"a {'large' if big else 'small'} {SHAPES[shape_id]} on the floor"
    return p * (1.5 if big else 0.5), caption


class PointEncoder(nn.Module):
    def __init__(self, dim=64, n_tokens=4):
        super().__init__()
        self.n_tokens = n_tokens
        self.mlp = nn.Sequential(nn.Linear(3, 64), nn.ReLU(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128))
        self.projector = nn.Linear(128, dim * n_tokens)

    def forward(self, pts):
        g = self.mlp(pts).max(1).values
        return self.projector(g).view(pts.shape[0], self.n_tokens, -1)


class PointCaptioner(nn.Module):
    def __init__(self, llm):
        super().__init__()
        self.llm = llm
        self.point_encoder = PointEncoder(dim=llm.config.hidden_size)

    def prefix_embeds(self, pts, input_ids):
        tok = self.llm.get_input_embeddings()(input_ids)
        return torch.cat([self.point_encoder(pts), tok], 1)

    def forward(self, pts, input_ids):
        embeds = self.prefix_embeds(pts, input_ids)
        logits = self.llm(inputs_embeds=embeds).logits
        n_pre = self.point_encoder.n_tokens
        return F.cross_entropy(logits[:, n_pre:-1].float().reshape(-1, logits.shape[-1]),
                               input_ids[:, 1:].reshape(-1))


def main():
    cfg = LlamaConfig(vocab_size=len(WORDS), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                      bos_token_id=1, eos_token_id=2, pad_token_id=0)
    llm = LlamaForCausalLM(cfg).to(torch.bfloat16)
    model = PointCaptioner(llm)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    for step in range(30):
        scenes = [make_scene(i % 3, (i // 3) % 2 == 1) for i in range(6)]
        pts = torch.stack([s[0] for s in scenes])
        ids = torch.tensor([encode(s[1]) for s in scenes])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(pts, ids)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == 29:
            print(f"step {step} caption loss {loss.item():.4f}")

    model.eval()
    pts, caption = make_scene(2, True)
    bos = torch.tensor([[VOCAB["<bos>"]]])
    with torch.no_grad():
        embeds = model.prefix_embeds(pts[None], bos)
        out = model.llm.generate(inputs_embeds=embeds, attention_mask=torch.ones(embeds.shape[:2], dtype=torch.long),
                                 max_new_tokens=8, do_sample=False)
    print("reference:", caption)
    print("generated:", " ".join(WORDS[i] for i in out[0].tolist()))


if __name__ == "__main__":
    main()
