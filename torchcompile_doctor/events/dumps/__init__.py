"""depyf dumps, one more event source: their file layout (layout.py), a static reader (depyf_dump.py) and
the events a dump yields (source.py: `load_dump`). Static parsing only: nothing read is ever imported or
executed."""
