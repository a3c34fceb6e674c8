"""mishran.util: one home for the small helpers (checks of arguments, versions, a free port)."""
import socket
import subprocess
import sys

import pytest

from mishran import util


def test_versions_compare_by_release_with_local_and_pre_release_parts():
    assert util.version_at_least("2.11.0+cu130", "2.11") and util.version_at_least("3.11.0rc1", "3.11")
    assert not util.version_at_least("3.10.9", "3.11") and util.version_at_least("3.100", "3.11")   # not text order
    with pytest.raises(ValueError, match="not a version string"):
        util.parse_version("latest")


def test_free_port_is_free_to_bind():
    port = util.free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", port))


@pytest.mark.parametrize("bad", [0, -3, True, 2.0, "4", 2 ** 63])
def test_positive_int_refuses_in_bengali_and_english(bad):
    with pytest.raises(ValueError, match="steps") as err:
        util.positive_int(bad, "steps")
    assert any("\u0980" <= ch <= "\u09ff" for ch in str(err.value))


def test_util_imports_nothing_heavy():
    code = ("import sys, mishran.util; bad = [m for m in ('torch', 'deepspeed', 'matplotlib') if m in sys.modules]; "
            "sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
