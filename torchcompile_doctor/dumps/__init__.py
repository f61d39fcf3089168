"""depyf dumps: their file layout (layout.py), a static reader (depyf_dump.py) and the guard events a dump
yields (events.py). Static parsing only: nothing read is ever imported or executed."""
