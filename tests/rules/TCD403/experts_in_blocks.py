# triggers TCD403 at line 15
"""A library's data-dependent operator inside its repeated blocks (an experts loop over `nonzero()` in each
block of tests/data/vendored/blocklib, laid out as an installed package): the router example is printed, and
regional compilation is not offered (compiling the blocks one by one still breaks in each)."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "data" / "vendored"))
from blocklib import ExpertsModel  # noqa: E402

torch.manual_seed(0)
out = torch.compile(ExpertsModel(), backend="eager")(torch.randn(6, 8))
