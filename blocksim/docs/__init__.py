"""The documentation site's generated parts (``mkdocs.yml``, ``docs/``).

The block catalog is generated from the block registry when the site is built, never written
by hand: :mod:`blocksim.docs.hooks` is the mkdocs hook that adds one page per family
(:mod:`blocksim.docs.catalog_pages`), each block's minimal example
(:mod:`blocksim.docs.examples`) and the plot of its response
(:mod:`blocksim.docs.plots`), and the benchmarks page from the benchmark scripts' saved output
(:mod:`blocksim.docs.bench`). Nothing here is imported by the simulator.
"""
