"""Small ResNet image classifier trained with HF Accelerate (bf16 mixed precision on the
CPU) plus an exponential moving average of the weights used for evaluation.  The EMA
copy is kept in half precision to save memory."""
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator

torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.short(x))


class ResNetTiny(nn.Module):
    def __init__(self, ncls=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16, 1)
        self.layer2 = BasicBlock(16, 32, 2)
        self.layer3 = BasicBlock(32, 64, 2)
        self.fc = nn.Linear(64, ncls)

    def forward(self, x):
        x = self.layer3(self.layer2(self.layer1(self.stem(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class ModelEma:
    def __init__(self, model, decay=0.99):
        self.module = copy.deepcopy(model).eval().half()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        ema_v = [v for v in self.module.state_dict().values() if v.is_floating_point()]
        model_v = [v for v in model.state_dict().values() if v.is_floating_point()]
        torch._foreach_lerp_(ema_v, model_v, weight=1.0 - self.decay)


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
protos = torch.randn(10, 3, 16, 16)
labels = torch.randint(0, 10, (512,))
images = protos[labels] + 0.7 * torch.randn(512, 3, 16, 16)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=64, shuffle=True)

model = ResNetTiny()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
model, opt, loader = accelerator.prepare(model, opt, loader)
ema = ModelEma(accelerator.unwrap_model(model))

for epoch in range(2):
    model.train()
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        accelerator.backward(loss)
        opt.step()
        ema.update(accelerator.unwrap_model(model))
    print("epoch", epoch, "loss", loss.item())

with torch.no_grad():
    acc = (ema.module(images.half()).argmax(1) == labels).float().mean()
print("EMA accuracy", acc.item())
