"""The benchmarks page: the benchmark scripts' own output, saved, then shown by the site.

Running the benchmarks takes minutes (some tens of minutes), too long for every build of the
site, so the scripts' output is saved by this module's command::

    python -m blocksim.docs.bench              # every script of benchmarks/
    python -m blocksim.docs.bench discrete_pid engine_overhead   # some of them

which runs each ``benchmarks/NAME.py`` in its own process and writes what it printed to
``benchmarks/results/NAME.txt``, with the date, the machine and the command line on top. The
site's build (:func:`page`) shows each script's docstring summary and its saved output as
printed, never typed by hand; a script not run yet says how to run it.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
RESULTS = BENCH / "results"


def scripts() -> list[Path]:
    """The benchmark scripts: files of ``benchmarks/`` with a ``__main__`` block (helpers
    imported by the others, such as ``sweep_hand.py``, have none)."""
    return sorted(p for p in BENCH.glob("*.py") if "__name__ == \"__main__\"" in p.read_text())


def summary(path: Path) -> tuple[str, str]:
    """``(title, rest of the first paragraph)`` of a script's docstring."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or path.stem
    first = " ".join(doc.split("\n\n")[0].split())
    head, _, rest = first.partition(": ")
    return (first, "") if len(head) > 90 or not rest else (head, rest)


def _inline(text: str) -> str:
    return text.replace("``", "`")


def page() -> str:
    """The benchmarks page (Markdown)."""
    lines = ["# Benchmarks", "",
             "What the scripts of `benchmarks/` measure and what they printed the last time "
             "they were run (`python -m blocksim.docs.bench [NAME ...]` runs them and saves "
             "their output in `benchmarks/results/`; the site shows it as printed). Times "
             "depend on the machine and its load: each result says where and when it was "
             "measured.", ""]
    for path in scripts():
        head, rest = summary(path)
        lines += [f"## {path.stem}", "", f"**{_inline(head)}**" + (f": {_inline(rest)}"
                                                                   if rest else ""), ""]
        saved = RESULTS / f"{path.stem}.txt"
        if saved.is_file():
            lines += ["```text", saved.read_text().rstrip(), "```", ""]
        else:
            lines += [f"Not run on the machine that built this site: "
                      f"`python -m blocksim.docs.bench {path.stem}`.", ""]
    return "\n".join(lines)


def run(name: str, timeout: float) -> tuple[int, float]:
    """Runs ``benchmarks/NAME.py`` and saves its output: ``(exit code, seconds)``."""
    script = BENCH / f"{name}.py"
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                              text=True, timeout=timeout,
                              env={**os.environ, "MPLBACKEND": "Agg"})
        code, out = proc.returncode, proc.stdout
        if code:
            out += "\n" + proc.stderr[-2000:]
    except subprocess.TimeoutExpired as exc:
        code = -1
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else \
            (exc.stdout or "")
        out += f"\n(stopped after {timeout:g} s)"
    seconds = time.perf_counter() - t0
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = (f"# python benchmarks/{name}.py  ({stamp}; {platform.machine()}, "
            f"{os.cpu_count()} CPUs, Python {platform.python_version()}; "
            f"{seconds:.0f} s; exit {code})")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.txt").write_text(head + "\n" + out.rstrip() + "\n")
    return code, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m blocksim.docs.bench",
                                     description="run benchmark scripts, save their output")
    parser.add_argument("names", nargs="*", help="scripts of benchmarks/ (default: all)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per script")
    args = parser.parse_args(argv)
    known = {p.stem for p in scripts()}
    names = args.names or sorted(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: "
                     f"{', '.join(sorted(known))}")
    failed = 0
    for name in names:
        code, seconds = run(name, args.timeout)
        failed += code != 0
        print(f"{name}: exit {code}, {seconds:.0f} s -> benchmarks/results/{name}.txt")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
