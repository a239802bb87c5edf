"""Shared helpers for the tests that read the run folders the engine writes: chunk files
(``games/<first>.parquet``, ``matches/<first>.parquet``) listed in ``manifest.jsonl``."""

from __future__ import annotations

from pathlib import Path

from simulate.folder import manifest as mf

RUN_FOLDER = {"run.json", "manifest.jsonl", "games", ".lock"}
"""What a finished run folder of single games holds (match play adds ``matches``)."""


def chunk_files(folder: Path) -> dict[str, bytes]:
    """The bytes of every record file of a run folder, by path relative to the folder."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for kind in mf.RECORD_KINDS
        if (folder / kind).is_dir()
        for path in sorted((folder / kind).iterdir())
    }


def completed(folder: Path) -> int:
    """Games (matches, in match play) held in the finished chunks of the manifest."""
    return mf.read_manifest(folder).completed


def assert_intact(folder: Path, games: int | None = None) -> mf.Manifest:
    """The manifest lists exactly the chunk files there are, each with the size and SHA-256
    of its bytes (and, with ``games``, the chunks cover games ``0 .. games - 1``); no
    ``*.partial`` file is left anywhere. Returns the manifest."""
    manifest = mf.read_manifest(folder)
    assert not manifest.bad_lines, manifest.bad_lines
    assert mf.check(folder, manifest, games) == []
    listed = {part.file for entry in manifest.entries for part in entry.parts.values()}
    assert listed == set(chunk_files(folder))
    if games is not None:
        assert manifest.gaps(games) == [] and manifest.completed == games
    assert not list(folder.rglob("*.partial"))
    return manifest


def assert_same_bytes(a: Path, b: Path) -> None:
    """Two run folders hold byte-identical records: the same chunk files with the same
    bytes, and the same manifest lines (files, rows, sizes and SHA-256 checksums)."""
    files = chunk_files(a)
    assert files, f"{a} holds no chunk file"
    assert files == chunk_files(b)
    manifest_a, manifest_b = assert_intact(a), assert_intact(b)
    assert manifest_a.entries == manifest_b.entries
    sums = [part.sha256 for entry in manifest_a.entries for part in entry.parts.values()]
    assert sums == [part.sha256 for entry in manifest_b.entries for part in entry.parts.values()]
    assert (a / mf.MANIFEST_FILE).read_bytes() == (b / mf.MANIFEST_FILE).read_bytes()
