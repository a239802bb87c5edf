#!/usr/bin/env bash
# The GPU backend on a machine with an NVIDIA GPU (docs/gpu.md), in one short run:
#   1. install cardsim over the machine's own numba and numba-cuda (pip install --no-deps -e .,
#      then only the missing pure dependencies from the package registry);
#   2. the GPU equality tests (tests/test_cuda.py: GPU records == CPU records, on the device:
#      Beggar-My-Neighbour, and the shedding games' every preset, strategy, knob and matches;
#      tests/test_gpu_aggregates.py: --records none reduced on the device == on the CPU),
#      and every kernel compiled alone (their PTX size and local memory per thread);
#   3. the bench: Beggar-My-Neighbour deals/s and each shedding preset's games/s on the GPU
#      beside the CPU's.
# Everything is printed and also written to $OUT/gpu_check.log when $OUT is set.
# Usage: scripts/gpu_check.sh [GAMES]   (deals per timed run, default 10,000,000)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
GAMES=${1:-10000000}
LOG=${OUT:-/tmp}/gpu_check.log
exec > >(tee "$LOG") 2>&1

echo "== $(date -u +%FT%TZ) $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
"$PY" -c "import numba, numpy; print('numba', numba.__version__, 'numpy', numpy.__version__)"
"$PY" -m pip show numba-cuda 2>/dev/null | head -2 || true

echo "== install"
"$PY" -m pip install --quiet --no-deps --no-build-isolation -e . \
  || "$PY" -m pip install --quiet --no-deps -e .
missing=$("$PY" - <<'EOF'
import importlib.metadata as md
import re

wanted = list(md.requires("cardsim") or [])
wanted = [w for w in wanted if "extra ==" not in w] + ["pytest>=8", "hypothesis>=6.100"]
missing = []
for requirement in wanted:
    name = re.split(r"[<>=!~ ;\[]", requirement, maxsplit=1)[0]
    if name.lower() in ("numba", "numpy", "llvmlite"):
        continue  # the machine's own, which numba-cuda was built against
    try:
        md.version(name)
    except md.PackageNotFoundError:
        missing.append(requirement.split(";")[0].strip())
print(" ".join(f"'{m}'" for m in missing))
EOF
)
if [ -n "$missing" ]; then
  echo "installing: $missing"
  eval "$PY -m pip install --quiet $missing"
fi
"$PY" -c "from simulate.core.gpu import load_cuda; c = load_cuda(); assert c.is_available(), 'no GPU'; c.detect()"

echo "== equality tests (GPU records == CPU records; --records none reduced on the GPU == on the CPU)"
"$PY" -m pytest -q -p no:cacheprovider tests/test_cuda.py -rs \
  tests/test_gpu_aggregates.py::test_gpu_device_aggregates_equal_cpu_aggregates

echo "== every kernel compiled (PTX bytes, local memory bytes per thread)"
"$PY" tests/cuda_compile_check.py || true

echo "== bench"
"$PY" -m simulate.app.bench --backend cuda --games "$GAMES" --repeats 3
echo "== done $(date -u +%FT%TZ)"
