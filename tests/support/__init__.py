"""Shared test code, in one place: the paths of the checkout (`paths`), running the real CLI (`doctor`),
re-reading recorded captures (`captures`), the ground-truth check of a report (`ground_truth`), and the tool
that records a capture for the tests (`recording`, runnable: `python tests/support/recording.py --help`).

Test modules import from here (`from support.doctor import doctor_here`), never from each other; pytest puts
`tests/` on the module search path (pyproject.toml's `pythonpath`)."""
