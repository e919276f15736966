import tempfile
import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import ConvNextConfig, Trainer, TrainingArguments, UperNetConfig, UperNetForSemanticSegmentation

torch.manual_seed(9)
rng = np.random.default_rng(9)
NB, SIZE = 4, 32


def synth_scene(n):
    yy, xx = np.mgrid[:SIZE, :SIZE]
    tiles = np.zeros((n, NB, SIZE, SIZE), np.uint16)
    labels = np.zeros((n, SIZE, SIZE), np.int64)
    spectra = np.array([[900, 700, 500, 300], [400, 700, 500, 3500], [1500, 1500, 1600, 1900]])
    for i in range(n):
        lab = np.ones((SIZE, SIZE), np.int64)
        river = np.abs(yy - (10 + 0.4 * xx + rng.integers(-4, 5))) < 3
        lab[river] = 0
        town = (np.abs(yy - rng.integers(8, 24)) < 5) & (np.abs(xx - rng.integers(8, 24)) < 5)
        lab[town & ~river] = 2
        tiles[i] = np.clip(spectra[lab].transpose(2, 0, 1) * rng.normal(1, 0.1, (NB, SIZE, SIZE)), 0, 10000)
        labels[i] = lab
    return tiles, labels


class TileDataset(Dataset):
    def __init__(self, n, mean=None, std=None):
        self.tiles, self.labels = synth_scene(n)
        t = self.tiles.astype(np.float32)
        self.mean = t.mean((0, 2, 3)) if mean is None else mean
        self.std = t.std((0, 2, 3)) if std is None else std

    def __len__(self):
        return len(self.tiles)

    def __getitem__(self, i):
        x = (self.tiles[i].astype(np.float32) - self.mean[:, None, None]) / self.std[:, None, None]
        return {"pixel_values": torch.from_numpy(x), "labels": torch.from_numpy(self.labels[i])}


def main():
    backbone = ConvNextConfig(num_channels=NB, hidden_sizes=[16, 32, 64, 64], depths=[1, 1, 1, 1],
                              out_features=["stage1", "stage2", "stage3", "stage4"], patch_size=2)
    cfg = UperNetConfig(backbone_config=backbone, hidden_size=32, auxiliary_in_channels=64,
                        auxiliary_channels=16, num_labels=3, use_auxiliary_head=True)
    model = UperNetForSemanticSegmentation(cfg)
    train_ds = TileDataset(32)
    eval_ds = TileDataset(8, train_ds.mean, train_ds.std)

    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, per_device_train_batch_size=8, per_device_eval_batch_size=8, num_train_epochs=2,
            learning_rate=2e-3, bf16=True, use_cpu=True, logging_steps=3, report_to=[], save_strategy="no",
            eval_strategy="epoch", dataloader_num_workers=0, seed=9, disable_tqdm=True,
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
        result = trainer.train()
        metrics = trainer.evaluate()
        print(f"train loss {result.training_loss:.4f} eval loss {metrics['eval_loss']:.4f}")
        assert all(torch.isfinite(p).all() for p in model.parameters())

        model.eval()
        batch = torch.stack([eval_ds[i]["pixel_values"] for i in range(4)])
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(pixel_values=batch).logits
        pred = logits.float().argmax(1).to(torch.uint8).numpy()
        np.save(f"{out}/landcover_pred.npy", pred)
        print("exported masks", pred.shape, "class histogram", np.bincount(pred.ravel(), minlength=3).tolist())


if __name__ == "__main__":
    main()
