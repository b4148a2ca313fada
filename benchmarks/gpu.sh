#!/usr/bin/env bash
# The benchmark suite on a CUDA machine that reaches no package registry.
#
# Needs a python with torch (CUDA build) and the wheels under benchmarks/.wheels/ (made here by
# benchmarks/wheels.sh): transformers and nnsight for nnterp, and each peer's own packages, each
# installed into its own folder. Writes $OUT/BENCHMARKS-cuda.md, $OUT/log.txt and
# $OUT/results.tgz (the raw results; unpack into benchmarks/recorded/<name>/ to keep them).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
OUT=${OUT:-$REPO/benchmarks/results-cuda}
PY=${PYTHON:-python3}
LIMIT=${LIMIT:-420}
WHEELS=benchmarks/.wheels
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1

install() {  # install FOLDER WHEEL-FOLDERS...
    local target=$1; shift
    local files=()
    for folder in "$@"; do files+=("$WHEELS/$folder"/*.whl); done
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$target" "${files[@]}"
}

PEERS=()
if [ -d "$WHEELS/nnterp" ]; then
    install /tmp/bench-nnterp common nnterp || exit 1
    export PYTHONPATH=/tmp/bench-nnterp:$REPO
    install /tmp/bench-nnterp-1.3.0 common nnterp-1.3.0 && PEERS+=(--peer-site nnterp-1.3.0=/tmp/bench-nnterp-1.3.0)
    install /tmp/bench-transformerlens common transformerlens \
        && PEERS+=(--peer-site transformerlens=/tmp/bench-transformerlens)
else
    export PYTHONPATH=$REPO  # torch, transformers and nnsight already importable
fi

echo "== what this machine has"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv || true
"$PY" - <<'PY'
import importlib.metadata as m, platform, torch
print("python", platform.python_version(), "| torch", torch.__version__, "| cuda", torch.version.cuda,
      "| device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none")
for name in ("transformers", "nnsight", "tokenizers", "huggingface-hub"):
    try:
        print(name, m.version(name))
    except m.PackageNotFoundError:
        print(name, "missing")
PY

echo "== the suite"
timeout "$LIMIT" "$PY" -m benchmarks.run --device cuda --quick --no-imports --peer-models smollm2-135m "${PEERS[@]}" \
    --results "$OUT/results" --out "$OUT/BENCHMARKS-cuda.md"
status=$?
tar czf "$OUT/results.tgz" -C "$OUT" results && rm -rf "$OUT/results"
exit $status
