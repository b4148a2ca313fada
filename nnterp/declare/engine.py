"""What a declared site does on a running trace, handed to the declarations by the runtime.

A site is data (where a value is, its layout, its description) that also reads and writes back inside a trace.
The reading and writing need nnsight's interleaver, which the declarations never import: ``nnterp.runtime`` binds
its bridge to ``engine`` when it loads, and a site calls ``engine.value_at(...)`` and the like. Importing a family
module therefore loads neither nnsight nor transformers.
"""

from __future__ import annotations

#: the operations the declarations call, each a function of ``nnterp.runtime.bridge``
OPERATIONS = ("worker", "value_at", "swap", "fetch_to_present", "carry_back_later", "waiting_carry_back",
              "running_state", "backward_running", "serve_gradient", "interleaving", "batch_rows", "narrowed_to_invoke",
              "call_labels", "compiled_forward", "compiled_function")


class Engine:
    """The runtime's operations, bound once (``bind``) by ``nnterp.runtime``."""

    def bind(self, operations) -> None:
        missing = [name for name in OPERATIONS if not hasattr(operations, name)]
        if missing:
            raise TypeError(f"{operations!r} lacks the operations {', '.join(missing)}")
        for name in OPERATIONS:
            setattr(self, name, getattr(operations, name))

    def __getattr__(self, name: str):  # reached only before binding
        if name in OPERATIONS:
            raise RuntimeError(f"a site ran before nnterp's runtime was loaded (engine.{name}): build the model with "
                               f"nnterp.StandardizedTransformer, which loads it")
        raise AttributeError(name)


engine = Engine()


def module_of(envoy):
    """The torch module behind an nnsight envoy or model (nnsight's ``_module``): the one place it is reached."""
    return envoy._module
