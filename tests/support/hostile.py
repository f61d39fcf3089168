"""Text that tests every renderer's escaping at once: a comma, colons and a percent sign (GitHub's workflow
commands), a newline, an HTML script and an ANSI colour code."""

HOSTILE_TITLE = "Graph break: a,b:c 100%\n<script>alert(1)</script> \x1b[31mred\x1b[0m"
