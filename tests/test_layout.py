"""The suite mirrors the package: every package of torchcompile_doctor has a tests folder of the same name with
tests in it, so a reader finds a module's tests where the module is (folders such as tests/cli, tests/e2e test
across packages)."""

from __future__ import annotations

from support.paths import REPO

PACKAGE = REPO / "torchcompile_doctor"
TESTS = REPO / "tests"


def _packages() -> list[str]:
    return sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py")))


def test_every_package_has_a_tests_folder_of_its_name():
    missing = [name for name in _packages() if not any((TESTS / name).glob("test_*.py"))]
    assert not missing, f"packages with no tests/<name>/test_*.py: {missing}"


def test_the_layout_check_sees_the_packages():
    assert {"analysis", "events", "gate", "model", "renderers"} <= set(_packages())
