import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import WhisperConfig, WhisperForConditionalGeneration

LANGS = ["en", "de", "fr", "es"]
N_MELS = 40
N_FRAMES = 100


def build_whisper():
    cfg = WhisperConfig(
        vocab_size=96, num_mel_bins=N_MELS, d_model=64,
        encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=128,
        decoder_layers=2, decoder_attention_heads=4, decoder_ffn_dim=128,
        max_source_positions=N_FRAMES // 2, max_target_positions=32,
        pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1,
    )
    return WhisperForConditionalGeneration(cfg)


def synth_log_mel(batch, g):
    lang = torch.randint(0, len(LANGS), (batch,), generator=g)
    feats = torch.randn(batch, N_MELS, N_FRAMES, generator=g) * 0.5
    for b, l in enumerate(lang.tolist()):
        feats[b, 8 * l:8 * l + 8] += 1.0
        feats[b, :, ::(l + 2)] += 0.5
    feats = (feats - feats.mean()) / feats.std()
    return feats.clamp(-1.5, 1.5), lang


class LanguageID(nn.Module):
    def __init__(self, whisper, n_langs=len(LANGS)):
        super().__init__()
        self.whisper = whisper
        for p in self.whisper.parameters():
            p.requires_grad_(False)
        d = whisper.config.d_model
        self.lang_head = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, n_langs))

    def forward(self, feats):
        enc = self.whisper.model.encoder(input_features=feats).last_hidden_state
        pooled = enc.mean(dim=1)
        return self.lang_head(pooled)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    whisper = build_whisper().half()
    model = LanguageID(whisper)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-3)

    for step in range(10):
        feats, lang = synth_log_mel(8, g)
        logits = model(feats.half())
        loss = F.cross_entropy(logits.float(), lang)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} lid loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        feats, lang = synth_log_mel(16, g)
        pred = model(feats.half()).argmax(-1)
    print(f"lid accuracy {(pred == lang).float().mean().item():.3f}")


if __name__ == "__main__":
    main()
