"""The tracer nnterp's traces run under: one trace per model at a time.

nnsight runs a trace's body in greenlets in lockstep with the forward, on the model's one
interleaver, so two threads tracing the same model at once corrupt each other (saves lost,
greenlet errors). The whole run happens in the tracer's ``__exit__``; a per-model lock around it
makes concurrent traces from several threads take turns instead.
"""

from __future__ import annotations

import threading
import weakref

from nnsight.intervention.tracer import InterleavingTracer

_LOCKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def model_lock(module) -> threading.RLock:
    """The lock of one wrapped model (re-entrant: a session's traces run inside one another)."""
    with _GUARD:
        lock = _LOCKS.get(module)
        if lock is None:
            lock = _LOCKS[module] = threading.RLock()
        return lock


class TurnTakingTracer(InterleavingTracer):
    """An ``InterleavingTracer`` whose run holds its model's lock."""

    def __exit__(self, exc_type, exc_value, traceback):
        # looked up here, not kept on the tracer: a remote run pickles the tracer, and a lock does not pickle
        with model_lock(self.envoy._module):
            return super().__exit__(exc_type, exc_value, traceback)
