# Lightweight timing helpers shared by the training scripts (imported by helper_two_callsites.py).
# Expected findings (torch 2.13, CPU):
#   - graph break, unsupported_builtin_or_c_function: time.perf_counter() at helper_lib.py:10 in mark when mark() runs inside a compiled forward (see helper_two_callsites.py)
import time

TIMINGS = {}


def mark(name):
    TIMINGS.setdefault(name, []).append(time.perf_counter())


def report():
    for name, stamps in TIMINGS.items():
        print(f"{name}: {len(stamps)} marks")
