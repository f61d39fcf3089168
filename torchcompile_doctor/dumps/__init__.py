"""Readers of dumps written by other tools (depyf); static parsing only, never imports what they read."""
