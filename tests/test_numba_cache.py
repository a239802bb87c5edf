"""numba's on-disk cache is keyed by a compiled module's whole import closure
(:mod:`simulate.core.compiled.cache`): a constant frozen into a kernel comes from another
module, and a change there must compile the kernel again."""

import hashlib
from pathlib import Path

from numba.core import caching

from simulate.core.compiled.cache import ClosureCacheLocator
from simulate.core.source_closure import ROOT, closure_digest, module_name, source_closure
from simulate.games.shedding import search


def test_a_kernel_is_stamped_by_the_modules_whose_constants_it_reads():
    locator = search.determinize._cache._impl._locator
    assert isinstance(locator, ClosureCacheLocator)
    assert caching.CacheImpl._locator_classes[0] is ClosureCacheLocator
    path = Path(search.__file__).resolve()
    closure = source_closure(module_name(path))
    layout = ROOT / "simulate/games/shedding/kernel_layout.py"
    assert path in closure and layout in closure  # search reads kernel_layout's offsets
    digest = hashlib.sha256()
    for file in closure:
        digest.update(f"{file.relative_to(ROOT)}\0".encode() + file.read_bytes() + b"\0")
    assert locator.get_source_stamp() == closure_digest(path) == digest.digest()
    # A module that imports nothing of the project's is stamped by itself alone.
    bits = ROOT / "simulate/core/compiled/bits.py"
    assert source_closure(module_name(bits)) == [bits]
