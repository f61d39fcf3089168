# triggers TCD218 at line 11
import torch


class Layer(torch.nn.Module):
    def __init__(self, first):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.first = first  # differs between layer 0 and layer 1

    def forward(self, x):
        x = self.fc(x) * (2.0 if self.first else 1.0)
        torch._dynamo.graph_break()  # each layer's forward becomes a frame of its own
        return x


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer0 = Layer(first=True)
        self.layer1 = Layer(first=False)

    def forward(self, x):
        x = self.layer0(x)
        x = self.layer1(x)
        return x.relu()


model = torch.compile(Stack(), backend="eager")
with torch.no_grad():
    for _ in range(3):
        model(torch.ones(2, 4))
