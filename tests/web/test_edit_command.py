"""`blocksim edit` as a process: the URL with its token first on stdout, the API answering
there, and Ctrl-C ending it with one line (no traceback)."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ..processes import sigint_default

ROOT = Path(__file__).parents[2]


def test_blocksim_edit_prints_its_url_serves_and_stops_on_ctrl_c(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "blocksim.cli", "edit", "--no-browser", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env,
        preexec_fn=sigint_default)
    try:
        url = proc.stdout.readline().decode().strip()
        assert url.startswith("http://127.0.0.1:") and "token=" in url, url
        base, token = url.split("/?token=")
        with urllib.request.urlopen(f"{base}/api/diagram?token={token}", timeout=30) as r:
            doc = json.loads(r.read())
        assert doc["blocksim"] == 1 and doc["blocks"] == {}
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    text = (out + err).decode()
    assert proc.returncode == 130, text
    assert err.decode() == "blocksim edit: stopped\n", text  # one line, nothing of uvicorn
    assert out == b""  # the URL line (read above) was all
    assert time.monotonic() - t0 < 30


def test_blocksim_edit_without_the_editor_extra_says_how_to_install_it(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    code = ("import sys; sys.modules['starlette'] = None; from blocksim.cli import main; "
            "sys.exit(main(['edit', '--no-browser']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "blocksim edit needs the editor extra (starlette is not installed): "
        "python -m pip install 'blocksim[editor]'"]


def test_blocksim_edit_ends_its_runs_on_sigterm(tmp_path):
    (tmp_path / "loop.json").write_text((ROOT / "diagrams" / "first_order_loop.json").read_text())
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "blocksim.cli", "edit", "loop.json", "--no-browser"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    try:
        base, token = proc.stdout.readline().decode().strip().split("/?token=")
        headers = {"Authorization": f"token {token}"}
        req = urllib.request.Request(
            f"{base}/api/run", method="POST", headers=headers,
            data=json.dumps({"T": 600, "realtime": 1.0, "backend": "interpreted"}).encode())
        with urllib.request.urlopen(req, timeout=60) as r:
            run_id = json.loads(r.read())["id"]
        req = urllib.request.Request(f"{base}/api/run/{run_id}", headers=headers)
        with urllib.request.urlopen(req, timeout=30) as r:
            pid = json.loads(r.read())["pid"]
        os.kill(pid, 0)  # the worker runs
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 143, err.decode()
    assert "Traceback" not in err.decode()
    end = time.monotonic() + 10
    while time.monotonic() < end:  # the worker was ended with the server, not left behind
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"worker {pid} outlived the server")
