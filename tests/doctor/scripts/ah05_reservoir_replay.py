import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)

IN_DIM, N_CLASSES = 32, 10
TASK_SPLITS = [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)]


class ReservoirBuffer:
    def __init__(self, capacity, feat_dim):
        self.capacity = capacity
        self.x = torch.zeros(capacity, feat_dim)
        self.y = torch.zeros(capacity)
        self.seen = 0

    def __len__(self):
        return min(self.seen, self.capacity)

    def add(self, xb, yb):
        for xi, yi in zip(xb, yb):
            if self.seen < self.capacity:
                slot = self.seen
            else:
                slot = random.randint(0, self.seen)
            if slot < self.capacity:
                self.x[slot] = xi
                self.y[slot] = yi
            self.seen += 1

    def sample(self, n):
        idx = torch.randint(0, len(self), (min(n, len(self)),))
        return self.x[idx], self.y[idx]


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(IN_DIM, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, N_CLASSES)
        )

    def forward(self, x):
        return self.net(x)


centers = torch.randn(N_CLASSES, IN_DIM) * 2


def task_stream(classes, n_batches=20, bs=32):
    classes = torch.tensor(classes)
    for _ in range(n_batches):
        y = classes[torch.randint(0, len(classes), (bs,))]
        yield centers[y] + torch.randn(bs, IN_DIM), y


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
buffer = ReservoirBuffer(capacity=200, feat_dim=IN_DIM)

for t, classes in enumerate(TASK_SPLITS):
    running = 0.0
    for step, (x, y) in enumerate(task_stream(classes)):
        if len(buffer) > 0:
            rx, ry = buffer.sample(32)
            x_all, y_all = torch.cat([x, rx]), torch.cat([y, ry])
        else:
            x_all, y_all = x, y
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x_all)
        loss = F.cross_entropy(logits.float(), y_all)
        opt.zero_grad()
        loss.backward()
        opt.step()
        buffer.add(x, y)
        running += loss.item()
    print(f"task {t} classes {classes}: mean loss {running / (step + 1):.4f}, buffer {len(buffer)}")

model.eval()
with torch.no_grad():
    for t, classes in enumerate(TASK_SPLITS):
        x, y = next(task_stream(classes, n_batches=1, bs=200))
        acc = (model(x).argmax(-1) == y).float().mean().item()
        print(f"final acc on task {t}: {acc:.3f}")
