"""The rotary inference reads the ifs around an attention's apply_rotary_pos_emb call on the module itself: the test
of each if, evaluated without eval, gives what Python gives."""

import ast
import itertools
import types

import pytest

from nnterp.declare.conventions import _evaluate

#: the tests transformers' attentions put around their rotary call (every modeling file's, read with ast), and
#: the other forms the evaluator takes
TESTS = (
    "self.config.rope_interleave", "self.is_kv_shared_layer", "self.position_embedding_type == 'rotary'",
    "self.rotary_dim is not None", "self.sliding_window is None or self.is_sliding",
    "self.sliding_window is not None or self.force_rope", "not self.use_rope and self.window < 3",
    "self.window in (1, 2)", "0 < self.window <= 4096",
)
VALUES = (None, True, False, 0, 1, 4096, "rotary")


@pytest.mark.parametrize("text", TESTS)
def test_an_if_test_evaluates_as_python_does(text):
    test = ast.parse(text, mode="eval").body
    names = sorted({node.attr for node in ast.walk(test) if isinstance(node, ast.Attribute)} - {"config"})
    for values in itertools.product(VALUES, repeat=len(names)):
        module = types.SimpleNamespace(**dict(zip(names, values)))
        module.config = types.SimpleNamespace(**dict(zip(names, values)))
        try:
            expected = bool(eval(compile(ast.Expression(test), "<test>", "eval"), {"self": module}))
        except TypeError:  # None < 3: neither can tell
            with pytest.raises(TypeError):
                _evaluate(test, module)
            continue
        assert bool(_evaluate(test, module)) is expected, (text, values)


def test_a_test_of_anything_but_the_module_is_refused():
    with pytest.raises(ValueError, match="not a test of the module's attributes"):
        _evaluate(ast.parse("self.layers.count(1)", mode="eval").body, types.SimpleNamespace(layers=[]))
    with pytest.raises(AttributeError):
        _evaluate(ast.parse("self.missing", mode="eval").body, types.SimpleNamespace())
