"""numba's on-disk cache, keyed by every project module a compiled function's module
imports, not by its own file alone.

numba keys a cached function by its own source file, but a module-level constant another
module defines (a layout offset of ``kernel_layout.py``, a rule's index) is frozen into
the machine code that reads it: change the constant, and a module that did not change
would load code that still uses the old value (and, for an offset, read the wrong words
of the scratch: a segfault). :class:`ClosureCacheLocator` keeps numba's cache files where
they were (``__pycache__``) and gives them the digest of the module's whole import closure
(:func:`simulate.core.source_closure.closure_digest`) as its source stamp, so any change
to a module it depends on compiles it again. Installed when this package is imported
(every compiled module imports it before it compiles anything); where numba's internals
differ from what it expects, numba's own locator is used.
"""

from __future__ import annotations

from pathlib import Path

from numba.core import caching, config

from ..source_closure import ROOT, closure_digest


class ClosureCacheLocator(caching.InTreeCacheLocator):
    """numba's in-tree locator for the project's files, stamped by their import closure."""

    def get_source_stamp(self):
        return closure_digest(Path(self._py_file).resolve())

    @classmethod
    def from_function(cls, py_func, py_file):
        if config.CACHE_DIR or not Path(py_file).resolve().is_relative_to(ROOT / "simulate"):
            return None  # NUMBA_CACHE_DIR, or not the project's: numba's own locators
        return super().from_function(py_func, py_file)


def install() -> None:
    """Put :class:`ClosureCacheLocator` first among numba's cache locators (once)."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if isinstance(classes, list) and ClosureCacheLocator not in classes:
        classes.insert(0, ClosureCacheLocator)
