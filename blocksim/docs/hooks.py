"""The mkdocs hook of the site (``hooks:`` in ``mkdocs.yml``): the generated pages.

* ``on_config``: the nav's ``Block catalog`` entry becomes a section with the catalog's index
  and one page per family present in the registry.
* ``on_files``: adds the catalog's pages (:mod:`blocksim.docs.catalog_pages`), the response
  plots (:mod:`blocksim.docs.plots`, cached on disk; ``BLOCKSIM_DOCS_PLOTS=0`` builds
  without them and says so in every entry) and the benchmarks page
  (:mod:`blocksim.docs.bench`, from the scripts' saved output).

A block whose example does not build or whose response does not simulate is logged as a
warning, which fails ``mkdocs build --strict``.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

log = logging.getLogger("mkdocs.plugins.blocksim")

CATALOG = "catalog/index.md"
PLOTS_ENV = "BLOCKSIM_DOCS_PLOTS"

_STATE: dict[str, Any] = {}


def plots_enabled() -> bool:
    """Whether this build makes the response plots (``BLOCKSIM_DOCS_PLOTS``, default on)."""
    return os.environ.get(PLOTS_ENV, "1").strip().lower() not in ("0", "no", "false", "off")


def _entries() -> list[Any]:
    from blocksim.docs.catalog_pages import entries

    if "entries" not in _STATE:
        _STATE["entries"] = entries()
    return _STATE["entries"]


def _expand(nav: list[Any], section: list[Any]) -> bool:
    for k, item in enumerate(nav):
        if isinstance(item, dict):
            (label, value), = item.items()
            if value == CATALOG:
                nav[k] = {label: section}
                return True
            if isinstance(value, list) and _expand(value, section):
                return True
    return False


def on_config(config: Any, **kwargs: Any) -> Any:
    from blocksim.docs.catalog_pages import families, title

    _STATE.clear()
    section = [CATALOG] + [{title(f): f"catalog/{f}.md"} for f in families(_entries())]
    if config.get("nav"):
        _expand(config["nav"], section)
    return config


def _plots(config: Any, files: Any, items: list[Any]) -> tuple[int, int]:
    """Adds the response plots of ``items`` to ``files``: (made, read from the cache)."""
    from mkdocs.structure.files import File

    from blocksim.docs import examples, plots

    made = cached = 0
    for e in items:
        if e.block is None:
            e.no_plot = e.problem or "the example could not be built"
            continue
        p = plots.plan(e.family, e.block)
        if p.drive is None:
            e.no_plot = p.reason
            continue
        if not plots_enabled():
            e.no_plot = (f"not made in this build ({PLOTS_ENV}=0; a build without it draws "
                         f"{p.caption[0].lower()}{p.caption[1:-1]})")
            continue
        try:
            png, hit = plots.response_png(
                e.type, e.example.text, lambda e=e: examples.build(e.type, e.cls), p)
        except Exception as exc:  # a block whose response does not simulate: a warning
            log.warning("catalog: the response of %s did not simulate: %s: %s", e.type,
                        type(exc).__name__, exc)
            e.no_plot = "its response did not simulate in this build"
            continue
        made, cached = made + (not hit), cached + hit
        files.append(File.generated(config, f"catalog/plots/{e.type}.png", content=png))
        e.plot, e.caption = f"plots/{e.type}.png", p.caption
    return made, cached


def on_files(files: Any, config: Any, **kwargs: Any) -> Any:
    from mkdocs.structure.files import File

    from blocksim.docs import bench
    from blocksim.docs.catalog_pages import families, family_page, index_page

    t0 = time.perf_counter()
    items = _entries()
    for e in items:
        if e.example is None:
            log.warning("catalog: block type %s has no example (give its class a "
                        "catalog_example dict of parameters)", e.type)
    made, cached = _plots(config, files, items)
    files.append(File.generated(config, CATALOG, content=index_page(items)))
    for fam in families(items):
        files.append(File.generated(config, f"catalog/{fam}.md",
                                    content=family_page(fam, items)))
    files.append(File.generated(config, "benchmarks.md", content=bench.page()))
    log.info("catalog: %d block types, %d plots made, %d from the cache, in %.1f s",
             len(items), made, cached, time.perf_counter() - t0)
    return files
