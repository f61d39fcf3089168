# triggers TCD214 at line 24
# capture: doctor guards
import torch
from torch import nn


class Calibrate(nn.Module):
    """One sensor's calibration: a gain and an offset from its spec sheet."""

    def __init__(self, gain: float, offset: float) -> None:
        super().__init__()
        self.gain = gain
        self.offset = offset

    def forward(self, x):
        return x * self.gain + self.offset


class SensorChain(nn.Module):
    def __init__(self, sensors: int = 64) -> None:
        super().__init__()
        self.stages = nn.ModuleList(Calibrate(1.0 + i / 100, i / 10) for i in range(sensors))

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


def main() -> None:
    chain = torch.compile(SensorChain())
    for _ in range(5):
        chain(torch.randn(16))


if __name__ == "__main__":
    main()
