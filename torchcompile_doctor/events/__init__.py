"""Events stage: TORCH_TRACE logs and the doctor's side channel -> typed events (see model.py)."""
