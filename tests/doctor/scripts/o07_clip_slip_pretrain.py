import torch
import torch.nn.functional as F
from transformers import CLIPConfig, CLIPModel, CLIPTextConfig, CLIPVisionConfig

torch.manual_seed(0)

N_CONCEPTS, IMG, TXT_LEN, VOCAB = 8, 32, 8, 200

text_cfg = CLIPTextConfig(
    vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, max_position_embeddings=TXT_LEN, eos_token_id=2, bos_token_id=1, pad_token_id=0,
)
vision_cfg = CLIPVisionConfig(
    image_size=IMG, patch_size=8, hidden_size=64, intermediate_size=128,
    num_hidden_layers=2, num_attention_heads=4,
)
config = CLIPConfig(text_config=text_cfg.to_dict(), vision_config=vision_cfg.to_dict(), projection_dim=32)
model = CLIPModel(config).half()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

# concept k: a fixed colour pattern + a fixed "caption"
patterns = torch.randn(N_CONCEPTS, 3, 4, 4)
captions = torch.randint(3, VOCAB, (N_CONCEPTS, TXT_LEN))
captions[:, 0] = 1
captions[:, -1] = 2


def sample_batch(n):
    k = torch.randint(0, N_CONCEPTS, (n,))
    base = F.interpolate(patterns[k], size=IMG, mode="nearest")
    view1 = base + 0.3 * torch.randn_like(base)
    view2 = torch.flip(base, dims=[3]) + 0.3 * torch.randn_like(base)
    return view1, view2, captions[k]


def clip_loss(img_emb, txt_emb, logit_scale):
    img_emb = F.normalize(img_emb, dim=-1)
    txt_emb = F.normalize(txt_emb, dim=-1)
    logits = logit_scale * img_emb @ txt_emb.t()
    target = torch.arange(len(logits))
    return 0.5 * (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target))


def simclr_loss(z1, z2, temperature=0.07):
    z = F.normalize(torch.cat([z1, z2]), dim=-1)
    n = z1.shape[0]
    sim = torch.exp(z @ z.t() / temperature)
    pos = torch.cat([torch.diagonal(sim, n), torch.diagonal(sim, -n)])
    denom = sim.sum(dim=1) - torch.diagonal(sim)
    return -torch.log(pos / denom).mean()


BATCH, STEPS, SSL_WEIGHT = 16, 12, 1.0
for step in range(STEPS):
    v1, v2, ids = sample_batch(BATCH)
    v1, v2 = v1.half(), v2.half()
    img1 = model.get_image_features(pixel_values=v1).pooler_output
    img2 = model.get_image_features(pixel_values=v2).pooler_output
    txt = model.get_text_features(input_ids=ids).pooler_output
    l_clip = clip_loss(img1, txt, model.logit_scale.exp())
    l_ssl = simclr_loss(img1, img2)
    loss = l_clip + SSL_WEIGHT * l_ssl
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 3 == 0 or step == STEPS - 1:
        print(f"step {step:2d}  clip {l_clip.item():.4f}  ssl {l_ssl.item():.4f}  total {loss.item():.4f}")

with torch.no_grad():
    img = F.normalize(model.get_image_features(pixel_values=F.interpolate(patterns, size=IMG).half()).pooler_output, dim=-1)
    txt = F.normalize(model.get_text_features(input_ids=captions).pooler_output, dim=-1)
    zero_shot = (img @ txt.t()).argmax(-1)
print("zero-shot concept accuracy:", (zero_shot == torch.arange(N_CONCEPTS)).float().mean().item())
