#!/usr/bin/env bash
# The wheels benchmarks/gpu.sh installs on a machine that reaches no registry (CPython 3.12,
# x86-64 Linux): nnsight and transformers for nnterp, and each peer's packages that its python
# image lacks. Run here, where pip reaches the registry; about 30 MB under benchmarks/.wheels/.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
download() {  # download FOLDER REQUIREMENTS...
    local folder=.wheels/$1; shift
    mkdir -p "$folder"
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_5_x86_64 \
        --platform manylinux1_x86_64 -d "$folder" "$@"
}
download common transformers==5.24.0 "regex>=2025.10.22" "typing-extensions>=4.16.0" pydantic==2.14.4 \
    pydantic-core==2.50.5 annotated-types typing-inspection websocket-client zstandard
download nnterp nnsight==0.8.1 greenlet==3.5.6
download nnterp-1.3.0 nnterp==1.3.0 nnsight==0.7.0 astor==0.8.1 bidict==0.24.1 ipython==9.18.1 traitlets==5.16.1 \
    python-engineio==4.15.1 python-socketio==5.18.1 simple-websocket==1.1.0 toml==0.10.2 wsproto
download transformerlens transformer-lens==4.3.0 datasets==5.2.0 multiprocess==0.70.19 dill==0.4.1 \
    beartype==0.23.1 typeguard==4.6.1 fancy-einsum==0.0.3
du -sh .wheels/*
