"""The doctor's own error: one line for the user, exit code 2 (ExitCode.USAGE, set by the CLI), never a traceback."""


class DoctorError(Exception):
    """Bad usage or bad input; the message names the problem and what to do."""
