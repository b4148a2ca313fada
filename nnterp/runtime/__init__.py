"""The runtime: nnterp's binding to nnsight. The bridge (the one module that reaches nnsight's internals), the
envoys, the values' status, tracing, the cache and gradients. Loading it binds the bridge to the declarations'
``engine``."""

from nnterp.declare.engine import engine
from nnterp.runtime import bridge

engine.bind(bridge)
