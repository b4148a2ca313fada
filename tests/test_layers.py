"""The package is layered: no import cycle at any depth, and no room too big to read.

The import graph is read from the source with `ast`, imports inside functions included, so a cycle hidden by a
late import is still a cycle. One import is not an edge: `importlib.import_module` of a family module, the lazy
family index through which the core finds a family it has never seen; a family module importing from the core is
then the only direction the two are joined.
"""

import ast
import re
import subprocess
import sys
from functools import partial
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "nnterp"
LONGEST_MODULE = 700
# modules that are data, not code: a table or a recipe list grows with the families it describes
DATA_MODULES = {"nnterp.families._index"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _absolute(module: str, path: Path, level: int, target: str | None) -> str:
    """The absolute name of `from <level dots><target> import ...` written in `module`."""
    if level == 0:
        return target or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{target}" if target else package


def imports(module: str, path: Path, known: set[str]) -> list[tuple[str, int, bool]]:
    """Every nnterp module `module` imports, as (imported module, line, inside a function)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "nnterp":
                        found.append((_known_prefix(alias.name, known), child.lineno, inner))
            elif isinstance(child, ast.ImportFrom):
                base = _absolute(module, path, child.level, child.module)
                if base.split(".")[0] != "nnterp":
                    continue
                for alias in child.names:
                    # `from . import family` imports the module nnterp.declare.family; `from .x import y` imports nnterp.x
                    candidate = f"{base}.{alias.name}"
                    found.append((candidate if candidate in known else _known_prefix(base, known), child.lineno, inner))
            visit(child, inner)

    visit(tree, False)
    return [(target, line, nested) for target, line, nested in found if target != module]


def _known_prefix(name: str, known: set[str]) -> str:
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name


def import_graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """The graph {module: modules it imports}, and the imports written inside functions."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    nested: list[tuple[str, str, int]] = []
    for name, path in modules.items():
        for target, line, inside in imports(name, path, known):
            graph[name].add(target)
            if inside and (name, target, line) not in nested:
                nested.append((name, target, line))
    return graph, nested


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def _one_loop(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One closed path through a component, to name in a failure: start -> ... -> start."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    while True:
        following = sorted(graph[path[-1]] & members)
        if start in following and len(path) > 1:
            return path + [start]
        unvisited = [module for module in following if module not in seen]
        if not unvisited:  # step back to where the loop closes
            nxt = following[0]
            return path[path.index(nxt):] + [nxt]
        path.append(unvisited[0])
        seen.add(unvisited[0])


#: the encyclopedia's own modules, whose cycle (notes.derived, pages, realconfigs) goes with their split
ENCYCLOPEDIA = "nnterp.encyclopedia"


def _describe(found, graph) -> str:
    return "; ".join(f"{len(component)} modules {component}, e.g. {' -> '.join(_one_loop(component, graph))}"
                     for component in found)


def _inside_encyclopedia(module: str) -> bool:
    return module == ENCYCLOPEDIA or module.startswith(ENCYCLOPEDIA + ".")


def test_the_package_has_no_import_cycle_outside_the_encyclopedia():
    graph, _ = import_graph()
    found = [component for component in cycles(graph) if not all(map(_inside_encyclopedia, component))]
    assert not found, "import cycles (function-level imports included): " + _describe(found, graph)


def test_the_encyclopedia_has_no_import_cycle():
    graph, _ = import_graph()
    found = [component for component in cycles(graph) if all(map(_inside_encyclopedia, component))]
    assert not found, "import cycles in the encyclopedia: " + _describe(found, graph)


def _nested_sentence(nested) -> str:
    return f"{len(nested)} imports inside functions: " + ", ".join(
        f"{module}:{line} imports {target}" for module, target, line in nested)


def test_no_nnterp_import_is_written_inside_a_function_outside_the_encyclopedia():
    _, nested = import_graph()
    nested = [entry for entry in nested if not _inside_encyclopedia(entry[0])]
    assert not nested, _nested_sentence(nested)


def test_the_encyclopedia_imports_at_its_modules_tops():
    _, nested = import_graph()
    nested = [entry for entry in nested if _inside_encyclopedia(entry[0])]
    assert not nested, _nested_sentence(nested)


def test_the_graph_reader_sees_a_cycle_hidden_in_a_function(tmp_path):
    package = tmp_path / "nnterp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def late():\n    from .high import thing\n    return thing\n")
    (package / "high.py").write_text("from nnterp.low import late\nthing = 1\n")
    known = {"nnterp", "nnterp.low", "nnterp.high"}
    graph = {
        name: {target for target, _, _ in imports(name, package / f"{name.split('.')[-1]}.py", known)}
        for name in ("nnterp.low", "nnterp.high")
    }
    assert imports("nnterp.low", package / "low.py", known) == [("nnterp.high", 2, True)]
    assert cycles(graph) == [["nnterp.high", "nnterp.low"]]
    assert _one_loop(["nnterp.high", "nnterp.low"], graph) == ["nnterp.high", "nnterp.low", "nnterp.high"]


def long_modules() -> dict[str, int]:
    lengths = {name: len(path.read_text().splitlines()) for name, path in _modules().items()}
    return {name: n for name, n in sorted(lengths.items(), key=lambda item: -item[1])
            if n > LONGEST_MODULE and name not in DATA_MODULES}


def test_no_module_is_longer_than_700_lines():
    assert not long_modules(), f"modules over {LONGEST_MODULE} lines: {long_modules()}"


# --------------------------------------------------------------------------- the layers
#: The package's layers, lowest first: a module imports only from its own layer and those below. A layer is the
#: first name under nnterp/ (a folder, or a module at the top).
LAYERS = (
    ("declare",),  # the vocabulary and what a family says: sites, layouts, blocks, the Family declaration
    ("families", "hub"),  # the family modules and their index; which names load from here
    ("wrappers",),  # the wrappers' declarations
    ("registry",),  # the one place a name, a config or a model becomes a family
    ("compat",),  # TransformerLens's and nnterp 1.x's names, as standard paths
    ("runtime",),  # the binding to nnsight: bridge, envoys, status, tracing, cache, gradients
    ("contract",),  # conformance, checks, numerics, hazards, support
    ("model",),  # StandardizedTransformer
    ("tiny", "real", "loading"),  # models to run: tiny random ones, the embedded real ones, one named by a command
    ("transformerlens", "tools"),  # surfaces over a model
    ("encyclopedia",),
    ("cli",),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None  # the package's own __init__ stands above every layer


STRING_IMPORT = re.compile(r"^nnterp(\.\w+)+(:\w+)?$")


def string_imports(path: Path, known: set[str]) -> list[tuple[str, int]]:
    """The nnterp modules a module names in its strings, to import them by name (``import_module``, a command's
    ``"module:function"``, a list of areas): edges the import statements do not show. Docstrings are prose."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value).rstrip(".:")  # f"nnterp.cli.commands:{name}"
        if text and STRING_IMPORT.match(text.split(":")[0]):
            found.append((_known_prefix(text.split(":")[0], known), node.lineno))
    return found


def test_string_imports_are_edges_too():
    cli = {target for target, _ in string_imports(_modules()["nnterp.cli"], set(_modules()))}
    assert {"nnterp.tools.cli", "nnterp.encyclopedia.cli", "nnterp.cli.commands"} <= cli


def test_no_import_runs_back_up_a_layer():
    modules = _modules()
    known = set(modules)
    unplaced = sorted({_layer(name) for name in modules} - set(RANK) - {None})
    assert not unplaced, f"modules in no layer: {unplaced} (place them in LAYERS)"
    back = []
    for name, path in modules.items():
        if name.startswith("nnterp.families.notes"):  # prose with snippets, run by the encyclopedia
            continue
        edges = [(target, line) for target, line, _ in imports(name, path, known)] + string_imports(path, known)
        for target, line in edges:
            low, high = _layer(name), _layer(target)
            if low is not None and high is not None and RANK[high] > RANK[low]:
                back.append(f"{name}:{line} imports {target} ({high} is above {low})")
    assert not back, f"{len(back)} imports run back up: " + "; ".join(back)


def test_string_imports_close_no_cycle():
    modules = _modules()
    known = set(modules)
    graph, _ = import_graph()
    for name, path in modules.items():
        graph[name] |= {target for target, _ in string_imports(path, known) if target != name}
    found = [component for component in cycles(graph) if not all(map(_inside_encyclopedia, component))]
    assert not found, "import cycles through string imports: " + _describe(found, graph)


def test_importing_every_family_and_wrapper_module_loads_neither_nnsight_nor_transformers():
    code = ("import importlib, pkgutil, sys\n"
            "import nnterp.families as families, nnterp.wrappers as wrappers\n"
            "names = [f'nnterp.families.{m.name}' for m in pkgutil.iter_modules(families.__path__)]\n"
            "names += [m.name for m in pkgutil.walk_packages(wrappers.__path__, 'nnterp.wrappers.')]\n"
            "for name in names:\n"
            "    importlib.import_module(name)\n"
            "    loaded = [m for m in ('nnsight', 'transformers') if m in sys.modules]\n"
            "    if loaded:\n"
            "        sys.exit(f'{name} loads {loaded}')\n"
            "print(len(names))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1]
    assert int(done.stdout) > 150


def test_the_runtime_binds_the_declarations_engine():
    code = ("import sys\nfrom nnterp.declare.engine import engine\n"
            "try:\n    engine.value_at('x')\nexcept RuntimeError as e:\n    print('unbound:', e)\n"
            "import nnterp.runtime\nfrom nnterp.runtime import bridge\nassert engine.value_at is bridge.value_at\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr
    assert "unbound: a site ran before nnterp's runtime was loaded" in done.stdout


def _layers_entered_by(value, call) -> list[str]:
    """The layers whose functions are called with ``value`` (this very object) as an argument while ``call`` runs,
    in order, a layer repeated only where the value left it and came back."""
    entered: list[str] = []

    def profile(frame, event, arg):
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("nnterp."):
            return
        names = frame.f_code.co_varnames[:frame.f_code.co_argcount + frame.f_code.co_kwonlyargcount]
        if any(frame.f_locals.get(name) is value for name in names):
            layer = _layer(module)
            if not entered or entered[-1] != layer:
                entered.append(layer)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entered


def test_a_family_name_given_to_tiny_load_goes_down_through_each_layer_once():
    from nnterp import tiny

    name = "".join(["lla", "ma"])  # a string object of its own, followed by identity
    entered = _layers_entered_by(name, lambda: tiny.load(name))
    assert entered[0] == "tiny" and "registry" in entered, entered
    assert len(entered) == len(set(entered)), f"the name comes back to a layer it left: {' -> '.join(entered)}"
    assert [RANK[layer] for layer in entered] == sorted((RANK[layer] for layer in entered), reverse=True), entered


# --------------------------------------------------------------------------- one read path
#: the layers a standard value's read may enter, as it goes: the declaration (the site), the runtime, nnsight
READ_PATH = ("declare", "runtime", "nnsight")


def _read_path_layer(frame) -> str | None:
    """The layer of a frame on a read's path: an nnterp layer (the family modules are declarations too), nnsight, or
    None for any other code (torch, the standard library)."""
    module = frame.f_globals.get("__name__", "") or ""
    if module.split(".")[0] == "nnsight":
        return "nnsight"
    if module.startswith("nnterp."):
        layer = _layer(module)
        return "declare" if layer in ("families", "wrappers") else layer
    return None


def _calls_across_layers(read) -> list[tuple[str, str, str]]:
    """(caller's layer, callee's layer, callee) of every call from one layer into another while ``read()`` runs in
    the trace's worker, in order; the forward, which runs on the model's side while the worker waits, is not the
    read's."""
    from greenlet import getcurrent

    worker, here, crossings = getcurrent(), sys._getframe(), []

    def profile(frame, event, arg):
        if event != "call" or getcurrent() is not worker:
            return
        callee = _read_path_layer(frame)
        caller = frame.f_back
        while caller is not None and caller is not here and _read_path_layer(caller) is None:
            caller = caller.f_back
        if caller is here:  # the read's first call (the descriptor's): the read enters there
            return
        caller_layer = _read_path_layer(caller) if caller is not None else None
        if callee is not None and caller_layer is not None and caller_layer != callee:
            crossings.append((caller_layer, callee, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        read()
    finally:
        sys.setprofile(None)
    return crossings


def test_a_value_read_asks_its_site_once_and_goes_down_to_nnsight(llama, prompt):
    """A read asks the declaration once, the site's own read (what the descriptor checks was resolved from the site on
    the host's first read; a condition the site declares is asked on every read), the site reads through the
    runtime, the runtime through nnsight, and nothing below the site calls back up into it: the write-back a read
    leaves is presented by the site and handed down. One read per trace: the worker's next request after a read
    carries that read's edit back, which is the earlier read's work, not the next one's."""
    layer = llama.layers[1]
    reads = {"layer_input": layer, "attention_norm_scale": layer, "attention_queries": layer.self_attn,
             "attention_output": layer.self_attn, "layer_mid": layer, "mlp_output": layer.mlp, "layer_output": layer}
    with llama.trace(prompt):  # the first read of each value on its host resolves its site
        for name, host in reads.items():
            getattr(host, name)
    for name, host in reads.items():
        crossings = []
        with llama.trace(prompt):
            crossings.extend(_calls_across_layers(partial(getattr, host, name)))
        path = " ; ".join(f"{a} -> {b} ({callee})" for a, b, callee in crossings)
        asked = ["holds", "read"] if host._nnterp_site(name).condition is not None else ["read"]
        into_site = [callee for _, layer, callee in crossings if layer == "declare"]
        assert into_site == asked, f"{name}: the read enters the declaration for {into_site}, not {asked}: {path}"
        assert all(caller != "nnsight" for caller, _, _ in crossings), f"{name}: nnsight calls back up: {path}"
        others = sorted({layer for _, layer, _ in crossings} - set(READ_PATH))
        assert not others, f"{name}: the read enters {others}: {path}"
        edges = {(caller, layer) for caller, layer, _ in crossings}
        assert {("declare", "runtime"), ("runtime", "nnsight")} <= edges, \
            f"{name}: the site does not read through the runtime into nnsight: {path}"
