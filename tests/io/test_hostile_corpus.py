"""Every file of ``tests/data/hostile/`` (and two multi-megabyte ones made here) through
``blocksim check``, ``blocksim run`` and ``blocksim.io.load``, in this process, under a memory
and a time limit: a clean refusal (check exit 1, run exit 2, a DiagramFileError or a file
that only its run settings make unrunnable), no traceback, nothing executed, no byte of a
foreign file quoted."""

import json
import os
import resource
import signal
import time
from pathlib import Path

import pytest

from blocksim.cli import main
from blocksim.io import DiagramFileError, load

CORPUS = Path(__file__).parents[1] / "data" / "hostile"
FILES = sorted(p.name for p in CORPUS.glob("*.json"))
#: what a foreign file could show if it were quoted
FOREIGN = ["PATH=", "SECRET", "root:x", "root:*", "daemon:"]
#: the targets: a clean error within 2 s of CPU and under 300 MB more address space
CPU_SECONDS, HEADROOM = 2.0, 300_000_000


def _vm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


class Limited:
    """The address space limited to its current size + 300 MB (a bigger allocation is a
    MemoryError, which the command would show as a traceback or a crash), a 30 s alarm, and
    the CPU time spent."""

    def __enter__(self):
        self.saved = resource.getrlimit(resource.RLIMIT_AS)
        vm = _vm_bytes()
        if vm:
            hard = self.saved[1]
            soft = vm + HEADROOM
            resource.setrlimit(
                resource.RLIMIT_AS,
                (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard),
            )

        def alarm(*_):
            raise TimeoutError("hostile file took more than 30 s")

        self.old = signal.signal(signal.SIGALRM, alarm)
        signal.alarm(30)
        self.cpu = time.process_time()
        return self

    def __exit__(self, *exc):
        self.cpu = time.process_time() - self.cpu
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.old)
        resource.setrlimit(resource.RLIMIT_AS, self.saved)
        return False


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Import the block library and the command once, so the limits measure the file."""
    main(["check", str(Path(__file__).parents[2] / "diagrams" / "van_der_pol.json")])


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("big")
    lst = {
        "blocksim": 1,
        "blocks": {"c": {"type": "Constant", "params": {"value": [0.5] * 975_000}}},
    }
    (d / "long_list.json").write_text(json.dumps(lst, separators=(",", ":")))  # 3.9 MB
    mat = {
        "blocksim": 1,
        "blocks": {"c": {"type": "Constant", "params": {"value": [[0] * 1000] * 1000}}},
    }
    (d / "matrix_1000.json").write_text(json.dumps(mat, separators=(",", ":")))

    def write(name, blocks, wires=()):
        doc = {"blocksim": 1, "blocks": blocks, "wires": list(wires), "simulation": {"T": 1.0}}
        (d / name).write_text(json.dumps(doc, separators=(",", ":")))

    write("unknown_types.json", {f"b{i}": {"type": f"Frobnicator{i}"} for i in range(20_000)})
    n = 6000
    write("algebraic_ring.json", {f"g{i}": {"type": "Gain", "params": {"K": 1.0}}
                                  for i in range(n)},
          [{"from": f"g{i}", "to": f"g{(i + 1) % n}"} for i in range(n)])
    big = 35_000
    write("big_ring.json", {f"g{i}": {"type": "Gain", "params": {"K": 1.0}} for i in range(big)},
          [{"from": f"g{i}", "to": f"g{(i + 1) % big}"} for i in range(big)])
    write("wide_mux_bad_ports.json", {"c": {"type": "Constant", "params": {"value": 1.0}},
                                      "m": {"type": "Mux", "params": {"nin": 5000}}},
          [{"from": "c", "to": [f"m.v{i}" for i in range(5000)]}])
    write("wide_sum.json", {"c": {"type": "Constant", "params": {"value": 1.0}},
                            "s": {"type": "Sum", "params": {"signs": n}}},
          [{"from": "c", "to": [f"s.u{i}" for i in range(n)]}])
    return d


@pytest.mark.parametrize("name", ["unknown_types.json", "algebraic_ring.json", "big_ring.json",
                                  "wide_mux_bad_ports.json"])
def test_a_wide_hostile_diagram_is_refused_in_linear_time(big_files, name, monkeypatch,
                                                          capsys):
    o = _check_one(big_files / name, monkeypatch, capsys)
    _assert_clean(o, name)
    printed = len(o["text"]) - len(o["load"])  # check's and run's output
    assert printed < 100_000, printed  # a bounded report, not one line per block


def test_a_6000_input_sum_loads_and_runs_in_linear_time(big_files, monkeypatch, capsys):
    o = _check_one(big_files / "wide_sum.json", monkeypatch, capsys)
    _assert_clean(o, "wide_sum.json", check=0, run=0)


def _outside_files():
    """Files a hostile diagram could have written outside its folder."""
    return sorted(Path("/tmp").glob("blocksim-hostile*"))


def _check_one(path, monkeypatch, capsys, home=None):
    monkeypatch.chdir(path.parent)
    if home is not None:
        monkeypatch.setenv("HOME", str(home))
    outcome = {}
    with Limited() as lim:
        try:
            load(path)
            outcome["load"] = "loaded"
        except DiagramFileError as exc:
            outcome["load"] = "\n".join(exc.problems)
    outcome["load_cpu"] = lim.cpu
    with Limited() as lim:
        outcome["check"] = main(["check", str(path)])
    outcome["check_cpu"] = lim.cpu
    with Limited() as lim:
        outcome["run"] = main(["run", str(path), "--quiet", "--out", "r.npz"])
    outcome["run_cpu"] = lim.cpu
    out, err = capsys.readouterr()
    outcome["text"] = out + err + outcome["load"]
    assert not (path.parent / "pwned").exists()
    return outcome


def _assert_clean(o, name, check=1, run=2):
    text = o["text"]
    assert "Traceback" not in text and "MemoryError" not in text, name
    for secret in FOREIGN:
        assert secret not in text, (name, secret)
    assert o["check"] == check, (name, text)
    assert o["run"] == run, (name, text)
    for step in ("load", "check", "run"):
        assert o[f"{step}_cpu"] < CPU_SECONDS, (name, step, o[f"{step}_cpu"])


@pytest.mark.parametrize("name", FILES)
def test_a_hostile_file_is_refused_cleanly(name, monkeypatch, capsys, tmp_path):
    before = _outside_files()
    o = _check_one(CORPUS / name, monkeypatch, capsys, home=tmp_path)
    _assert_clean(o, name)
    assert not (CORPUS / "r.npz").exists()
    assert list(tmp_path.iterdir()) == [] and _outside_files() == before, name


def test_a_39_megabyte_table_loads_and_runs_in_bounded_time_and_memory(
    big_files, monkeypatch, capsys
):
    o = _check_one(big_files / "long_list.json", monkeypatch, capsys)
    _assert_clean(o, "long_list.json", check=0, run=0)  # a Constant's output recorded once
    assert o["load"] == "loaded"


def test_a_million_element_matrix_is_refused_pointing_to_npy(big_files, monkeypatch, capsys):
    o = _check_one(big_files / "matrix_1000.json", monkeypatch, capsys)
    _assert_clean(o, "matrix_1000.json")
    assert "more than 1000000 list elements" in o["load"] and ".npy" in o["load"]


def test_the_corpus_covers_every_kind():
    kinds = [
        "traversal",
        "absolute",
        "device",
        "npy",
        "self_include",
        "reference_blowup",
        "include_fanout",
        "code_injection",
        "dotted_type",
        "import_type",
        "deep_nesting",
        "huge_",
        "latin1",
        "utf16",
        "binary",
        "wrong_types",
        "sim_",
        "runaway_",
        "bad_clock",
        "lambda",
        "attribute",
        "write_",
        "read_",
    ]
    for kind in kinds:
        assert any(kind in f for f in FILES), kind
    assert os.path.isdir(CORPUS / "fanout")
