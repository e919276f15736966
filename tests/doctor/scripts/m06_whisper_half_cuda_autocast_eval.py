"""Batch evaluation of a (tiny, randomly initialised) Whisper audio classifier.
Written for a GPU box: the model is kept in half precision to save memory and the
eval loop runs under torch.autocast so the fp32 log-mel features are handled for us.
Falls back to the CPU when no GPU is present."""
import torch
from transformers import WhisperConfig, WhisperForAudioClassification

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

N_MELS, FRAMES, N_CLASSES = 16, 50, 4
cfg = WhisperConfig(vocab_size=100, num_mel_bins=N_MELS, encoder_layers=2, decoder_layers=1, d_model=32,
                    encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                    max_source_positions=FRAMES // 2, num_labels=N_CLASSES,
                    pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
model = WhisperForAudioClassification(cfg)
model = model.half().to(device).eval()


def log_mel(wave):
    """Crude log-magnitude spectrogram binned to N_MELS bands (stand-in for the feature extractor)."""
    spec = torch.stft(wave, n_fft=62, hop_length=32, window=torch.hann_window(62), return_complex=True).abs()
    spec = spec[:, :N_MELS * 2].reshape(wave.shape[0], N_MELS, 2, -1).mean(2)[..., :FRAMES]
    return torch.log10(spec.clamp(min=1e-5))


waves = torch.randn(48, 32 * FRAMES)
labels = torch.randint(0, N_CLASSES, (48,))

correct = 0
with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.float16):
    for i in range(0, 48, 16):
        feats = log_mel(waves[i:i + 16]).to(device)
        logits = model(input_features=feats).logits
        correct += (logits.argmax(-1).cpu() == labels[i:i + 16]).sum().item()
print(f"accuracy {correct / 48:.3f}")
