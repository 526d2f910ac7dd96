"""The compiled back-end: one numba function per diagram, integrated in numba loops."""
