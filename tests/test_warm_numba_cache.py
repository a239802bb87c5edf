"""make warm drops numba cache entries that no longer load (a module moved since they were
written: numba would raise instead of compiling again) and keeps the others."""

from __future__ import annotations

import pickle

from warm_numba_cache import drop_stale_caches


def test_stale_cache_entries_are_dropped_and_the_others_kept(tmp_path):
    cache = tmp_path / "games" / "__pycache__"
    cache.mkdir(parents=True)
    good = cache / "kernel.play-10.py311.nbi"
    good.write_bytes(pickle.dumps("0.60") + pickle.dumps((("stamp", 1), {"sig": "entry"})))
    (cache / "kernel.play-10.py311.1.nbc").write_bytes(b"code")
    # an index whose overloads name a class of a module that no longer exists
    stale = cache / "kernel.log-20.py311.nbi"
    stale.write_bytes(pickle.dumps("0.60") + b"cno_such_module_moved_away\nLog\n.")
    (cache / "kernel.log-20.py311.1.nbc").write_bytes(b"code")
    (cache / "kernel.log-20.py311.2.nbc").write_bytes(b"code")
    assert drop_stale_caches(tmp_path) == 1
    assert sorted(path.name for path in cache.iterdir()) == [
        "kernel.play-10.py311.1.nbc",
        "kernel.play-10.py311.nbi",
    ]
    assert drop_stale_caches(tmp_path) == 0
