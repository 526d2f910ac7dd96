"""The built editor page in the package (blocksim/web/static) is the build of the sources in
web/: its build-info.json holds the sha256 the vite build computed over the sources, and this
test computes it again (a source changed without `npm run build` fails here). The page names
only files the package holds, and nothing from another origin (the page's CSP allows none)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from blocksim.web.assets import STATIC_DIR

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
TOP_FILES = ("package.json", "package-lock.json", "tsconfig.json", "vite.config.ts",
             "index.html")


def source_files() -> list[str]:
    files = list(TOP_FILES) + [p.relative_to(WEB).as_posix()
                               for p in (WEB / "src").rglob("*") if p.is_file()]
    return sorted(files)


def source_hash() -> str:
    """As web/vite.config.ts's sourceHash: path, NUL, content, NUL of each file, by path."""
    h = hashlib.sha256()
    for name in source_files():
        h.update(name.encode() + b"\0")
        h.update((WEB / name).read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def test_build_is_of_the_current_sources():
    info = json.loads((STATIC_DIR / "build-info.json").read_text())
    assert info["files"] == source_files()
    assert info["sources_sha256"] == source_hash(), (
        "web/ changed since blocksim/web/static was built: run `npm ci && npm run build` in "
        "web/ and commit blocksim/web/static")


def test_page_names_only_files_of_the_package():
    page = (STATIC_DIR / "index.html").read_text()
    refs = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert "./assets/index.js" in refs and "./assets/index.css" in refs
    for ref in refs:
        if ref.startswith("data:"):
            continue
        assert not re.match(r"^[a-z]+:|^//", ref), f"{ref}: not from the package"
        assert (STATIC_DIR / ref).resolve().is_file(), f"{ref}: no such file in the package"
    assert "<script>" not in page and "<script type=\"module\">" not in page  # no inline code
    built = sorted(p.relative_to(STATIC_DIR).as_posix() for p in STATIC_DIR.rglob("*")
                   if p.is_file())
    assert built == ["assets/index.css", "assets/index.js", "build-info.json", "index.html"]


def test_page_loads_nothing_from_elsewhere():
    code = (STATIC_DIR / "assets" / "index.js").read_text()
    assert "eval(" not in code and "new Function(" not in code  # script-src 'self' only
    assert not re.search(r"""(import|fetch)\(\s*["']https?://""", code)
