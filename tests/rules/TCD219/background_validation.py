# triggers TCD219 at line 16
# recorded when the race fired (1 run in 5 or so on 2 CPU cores); it depends on how the two threads interleave
import threading
import time

import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.body(x))


def validate_in_background(model: nn.Module, stop: threading.Event) -> None:
    # checks the model every few milliseconds, on the same module object the training loop is running
    while not stop.is_set():
        time.sleep(0.002)
        model.eval()
        with torch.no_grad():
            for _ in range(5):
                model(torch.randn(256, 64))
        model.train()


def main() -> None:
    model = Tagger()
    train_step = torch.compile(model, backend="eager")
    stop = threading.Event()
    validator = threading.Thread(target=validate_in_background, args=(model, stop))
    validator.start()
    try:
        for _ in range(200):
            train_step(torch.randn(256, 64)).sum().backward()
    finally:
        stop.set()
        validator.join()


if __name__ == "__main__":
    main()
