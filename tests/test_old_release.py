"""A data dir this agentmemd upgraded keeps out every earlier release, the ones from before the
version check (m026) included: agentmemd as of 2931ff3 (schema m021), taken from this repository's
history and run as a real process, stops at start and leaves the database as it was. Before, it
started on an upgraded data dir, served for minutes and accepted writes."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from conftest import NO_JOBS, REPO, DaemonProcess
from schema_dirs import fingerprint

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

BEFORE_THE_VERSION_CHECK = "2931ff3"  # the newest migration it knows is m021
FOLDERS = ("daemon", "memory", "persona", "cron", "workspace_template")


@pytest.fixture(scope="module")
def old_release(tmp_path_factory):
    """A folder to put first on PYTHONPATH so that `agentmemd` is that release's code."""
    known = subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{BEFORE_THE_VERSION_CHECK}^{{commit}}"])
    if known.returncode != 0:
        pytest.skip(f"this clone does not hold {BEFORE_THE_VERSION_CHECK} (a shallow clone)")
    root = tmp_path_factory.mktemp("old")
    tree = root / "tree"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", BEFORE_THE_VERSION_CHECK, *FOLDERS], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    package = root / "path" / "agentmemd"
    package.mkdir(parents=True)
    for folder in FOLDERS:
        (package / folder).symlink_to(tree / folder)
    return root / "path"


def test_a_release_from_before_the_version_check_stops_on_an_upgraded_data_dir(short_tmp, old_release):
    current = DaemonProcess(short_tmp, {"jobs": NO_JOBS}).start()
    kept = current.call("memory.add", {"content": "The user keeps bees in the garden", "type": "fact"})["id"]
    assert current.terminate() == 0
    before = fingerprint(current.data_dir)
    config = short_tmp / "old.toml"
    config.write_text("")
    env = {"PYTHONPATH": str(old_release), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "agentmemd.daemon.cli", "serve", "--data-dir", str(current.data_dir),
               "--socket", str(short_tmp / "old.sock"), "--config", str(config)]  # fmt: skip
    log = short_tmp / "old.log"
    with open(log, "wb") as out:
        old = subprocess.Popen(command, cwd=short_tmp, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while old.poll() is None and time.monotonic() < deadline:
        if (short_tmp / "old.sock").exists():  # it got as far as serving
            old.kill()
            old.wait()
            pytest.fail(f"the old release started on the upgraded data dir:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)
    if old.poll() is None:
        old.kill()
        pytest.fail(f"the old release neither stopped nor served in 120 s:\n{log.read_text()[-2000:]}")
    said = log.read_text()
    assert old.returncode != 0 and "already exists" in said, said[-2000:]
    assert fingerprint(current.data_dir) == before
    again = DaemonProcess(short_tmp, {"jobs": NO_JOBS}).start()
    try:
        assert again.call("memory.get", {"id": kept})["id"] == kept
    finally:
        again.terminate()
