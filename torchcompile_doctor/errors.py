"""The doctor's own error: one line for the user, exit code 2, never a traceback."""


class DoctorError(Exception):
    """Bad usage or bad input; the message names the problem and what to do."""

    exit_code = 2
