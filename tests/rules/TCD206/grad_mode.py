# triggers TCD206 at line 10
import torch


class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).softmax(-1)


model = torch.compile(Classifier(), backend="eager")
x = torch.ones(3, 4)
model(x).sum().backward()
with torch.no_grad():
    preds = model(x)
