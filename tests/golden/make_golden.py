"""Write the golden records: one Parquet file per case of ``cases.py`` (and, in match play,
its matches table), into this folder.

    python tests/golden/make_golden.py            # every case
    python tests/golden/make_golden.py bmn-2p     # only the named cases

Run it only when the records are meant to change (and say why in the commit); the test
``tests/test_golden_records.py`` compares the current code's records against these files.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from golden.cases import CASES, case_json, games_path, matches_path, run_case  # noqa: E402


def write(frame: pd.DataFrame, path: Path, case: dict) -> None:
    """``frame`` as Parquet (zstd, no index, no pandas attrs), the case in its metadata."""
    frame = frame.reset_index(drop=True)
    frame.attrs = {}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = {**(table.schema.metadata or {}), b"golden_case": case_json(case).encode()}
    pq.write_table(table.replace_schema_metadata(metadata), path, compression="zstd")


def main(names: list[str]) -> int:
    known = {case["name"] for case in CASES}
    unknown = [name for name in names if name not in known]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; cases: {', '.join(sorted(known))}")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            if names and case["name"] not in names:
                continue
            games, matches = run_case(case, Path(tmp) / case["name"])
            write(games, games_path(case), case)
            line = f"{case['name']}: {len(games)} records"
            if matches is not None:
                write(matches, matches_path(case), case)
                line += f", {len(matches)} matches"
            else:
                matches_path(case).unlink(missing_ok=True)
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
