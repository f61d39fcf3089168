"""Frames torch 2.13 skips (falls back to eager on), one function per reason torch cannot resume there.

Captured with `doctor explain skip_reasons.py --backend eager --artifacts skip_reasons` (see README.md).
"""

import functools
import logging

import torch

log = logging.getLogger("skip_reasons")
FLAGS = {"hidden_states": True, "attentions": False}


def noisy(x):
    log.warning("scaling")  # a logging.Logger call: a graph break
    return x * 2


def in_loop(x):
    for _ in range(2):
        x = noisy(x)  # the break is inside the loop: GB7000
    return x


def in_try(x):
    wanted = {f"output_{k}": x.dim() for k in FLAGS}  # compiled as a frame of its own once in_try is skipped
    try:
        y = noisy(x) * len(wanted)
    finally:
        x = x - 1
    return y + x


class Tracker:
    def __enter__(self):
        self.depth = 1
        return self

    def __exit__(self, *exc):
        self.depth = 0
        return False


def in_with(x):
    with Tracker():
        y = noisy(x)
    return y


class Config:
    @property
    def scale(self):
        log.warning("scale is deprecated")
        return 2


CONFIG = Config()


def via_property(x):
    return x * CONFIG.scale  # the break is inside the property


def raises(x, mask):
    return x * mask[:, None]  # mask is None: TypeError, which the caller handles


def escapes(x):
    try:
        return raises(x, None)
    except TypeError:
        return x


def route(x):
    hit = (x > 0).nonzero()  # a break outside any loop: the rest becomes a resume function
    for i in hit:
        x = x + x[i].nonzero().sum()  # inside the resume function's loop: GB7000
    return x


def restore(func):
    @functools.wraps(func)
    def wrapper(x):
        try:
            return func(x)
        finally:
            log.debug("restored")

    return wrapper


def count(func):
    @functools.wraps(func)
    def wrapper(x):
        return func(x)

    return wrapper


@restore
@count
def decorated(x):
    return noisy(x + 1)


x = torch.ones(3)
for fn in (in_loop, in_try, in_with, via_property, route, decorated):
    torch.compile(fn, backend="eager")(x)
torch.compile(escapes, backend="eager")(x)
