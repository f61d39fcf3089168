"""Started by every Python process the test session starts (PYTHONPATH holds this folder): the session's
confinement (tests/support/confinement.py) installed in the child too."""

import os
import sys

if os.environ.get("DOCTOR_TEST_ALLOWED_ROOTS"):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        import confinement
    finally:
        del sys.path[0]
    confinement.install_from_environment()
