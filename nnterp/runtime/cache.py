"""``model.cache(prompts)``: every served value of a run (or those named), kept under ``no_grad``.

The values are read in one trace per batch, in the forward order (``vocabulary.FORWARD_ORDER``, or the family's
``block_order``), through the same sites a trace reads, so each is the tensor a traced read gives. A cache of
everything leaves out the values computed beside the forward (``vocabulary.ON_REQUEST``) unless they are named. A cache is
reached by the model's paths (``cache.layers[3].self_attn.attention_probabilities``), by key
(``cache["layers.3.layer_output"]``) or by a TransformerLens name (``cache["blocks.3.attn.hook_q"]``), which gives
TransformerLens's tensor, computed from the values cached (``nnterp.compat.names``); what it does not hold raises
``NotCached`` saying why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch

from nnterp.compat import names, projected
from nnterp.compat.paths import Normalized
from nnterp.declare.companions import NormScale, norm_centres
from nnterp.declare.engine import module_of
from nnterp.declare.errors import NnterpError, NotCached
from nnterp.declare.locations import Call, block_hosts, envoy_memo
from nnterp.declare.vocabulary import BY_NAME, DIMENSIONS, FORWARD_ORDER, ON_REQUEST
from nnterp.declare.writeback import Read, Unedited, where_of
from nnterp.runtime.bridge import edits_nothing
from nnterp.runtime.envoys import absent_host_reason
from nnterp.runtime.status import TEXT_CALL, UNAVAILABLE, skipped_by, status, without_image
from nnterp.runtime.tracing import block_order


class ConventionInfo:
    """What a TransformerLens name's convention needs of the model: its head counts, and whether a norm centres
    (a LayerNorm)."""

    def __init__(self, model) -> None:
        self.num_heads, self.num_kv_heads = model.num_heads, model.num_kv_heads
        self._model, self._centres = model, {}

    def centres(self, normalized: Normalized) -> bool:
        if normalized not in self._centres:
            self._centres[normalized] = _norm_centres(self._model, normalized)
        return self._centres[normalized]


def _norm_centres(model, normalized: Normalized) -> bool:
    """Whether the norm whose input ``normalized`` reads centres it: the final norm, or the block's attention norm
    (its input is the block's) or MLP norm."""
    if normalized.last:
        host, value = model, "final_norm_scale"
    else:
        host = block_hosts(model.layers[0])["layer"]
        value = "attention_norm_scale" if normalized.input == "layer_input" else "mlp_norm_scale"
    return norm_centres(module_of(host._nnterp_site(value).where.target(host)))


@dataclass(frozen=True)
class Planned:
    """One value the cache reads: its path and the host envoy it is read on."""

    path: names.Path
    host: object
    #: the key of an earlier read of the same tensor (a parallel block's one norm serves both norm outputs):
    #: read once, since the forward has passed the location by the second name
    same_as: str | None = None


@dataclass(frozen=True)
class SpliceRead:
    """What a splice (``tools.splice``) has a cache read: ``begin()`` runs where the forward passes ``starts``
    ((block, value name), the splice's input) and returns the function that runs where it passes ``ends`` (the
    write point) and returns the values to keep by key (the latents, and the error term, of the written value's
    size); ``aliases`` maps other spellings to those keys."""

    starts: tuple
    ends: tuple
    begin: Callable
    aliases: dict = field(default_factory=dict)
    #: the latents a position (None where the splice does not say), for the cache's estimate of its size
    latents: int | None = None


@dataclass
class Plan:
    """What a cache run reads, in forward order, and why each value it leaves out is left out."""

    reads: list[Planned] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    layers: tuple[int, ...] = ()


def _block_order(model) -> list[tuple[str, str]]:
    return [(host, name) for host, name in block_order(model) if name != "output"]


def computed_beside(name: str) -> str:
    """Why a cache of everything leaves out ``name``, a value computed beside the forward (or a name computed from
    one), and how to keep it."""
    return (f"computed beside the forward, so a cache of everything leaves it out: name it, values=[..., {name!r}], "
            f"to keep it")


def _why_not_cached(model, host, name: str) -> str | None:
    """None where ``host`` serves ``name`` under this load, else the sentence why not."""
    site = host._nnterp_site(name)
    found = status(site, model)
    if found.available:
        return None
    if found.kind == UNAVAILABLE:
        return f"unavailable on this model: {found.note}"
    return (f"not served under attn_implementation={model.attn_implementation!r}: it {found.note}; "
            f"load with attn_implementation={site.condition.attn_implementations[0]!r} to cache it")


def _wanted(model, values, transformerlens: int = 3) -> tuple[set | None, set, dict]:
    """The value names asked for on every chosen block (None: all), the (layer, value) pairs asked for by path,
    and the names asked for that nnterp does not serve yet, with the sentence."""
    if values is None:
        return None, set(), {}
    if isinstance(values, str):
        values = [values]
    kind, family = model.family.block.kind(model._nnterp_state.config), model.family.name
    everywhere, pinned, pending = set(), set(), {}
    for name in values:
        if name in BY_NAME or name in names.PENDING_HOSTS:
            reads, anywhere = [names.Path(name)], True
        elif names.block_hook(name) is not None:  # a block's hook without its index: on every chosen block
            hook = names.block_hook(name).name
            reads = names.resolve(f"blocks.0.{hook}", block_kind=kind, family=family,
                                  transformerlens=transformerlens).reads(model.num_layers, kind)
            anywhere = True
        else:  # a path, or a TransformerLens name: the values its tensor is computed from
            reads = names.resolve(name, model.num_layers, kind, family, transformerlens).reads(model.num_layers, kind)
            anywhere = False
        for read in reads:
            if read.value not in BY_NAME:
                pending[name] = f"{name} is {read.value}, which this version of nnterp does not serve yet"
            elif read.layer is None or anywhere and read.layer == 0:  # a model value, or a block's on every block
                everywhere.add(read.value)
            else:
                pinned.add((read.layer, read.value))
    return everywhere, pinned, pending


def plan(model, values=None, layers=None, transformerlens: int = 3, given=TEXT_CALL) -> Plan:
    """The reads of a cache of ``values`` (None: every value) on ``layers`` (None: every block), in forward order;
    ``transformerlens``, the generation a TransformerLens name among ``values`` is read in; ``given``, the inputs
    the calls pass, which decide whether they run a block a call may skip."""
    count = model.num_layers
    if layers is None:
        chosen = tuple(range(count))
    else:
        chosen = tuple(sorted({names._index(int(i), count) for i in ([layers] if isinstance(layers, int) else layers)}))
    everywhere, pinned, pending = _wanted(model, values, transformerlens)
    result = Plan(layers=chosen, left_out=dict(pending))

    def asked(value, layer) -> bool:
        if everywhere is None:
            return value not in ON_REQUEST
        return value in everywhere and (layer is None or layer in chosen) or (layer, value) in pinned

    def add(host, value, layer):
        path = names.Path(value, layer)
        if not asked(value, layer):
            result.left_out[path.key] = (computed_beside(value) if everywhere is None and value in ON_REQUEST
                                         else "not asked for (values= or layers= left it out)")
            return
        why = _why_not_cached(model, host, value)
        if why is not None:
            result.left_out[path.key] = why
            return
        where = _location_key(host, host._nnterp_site(value))
        first = seen.setdefault(where, path.key) if where is not None else None
        result.reads.append(Planned(path, host, first if first != path.key else None))

    seen: dict = {}
    imageless = without_image(model, given)
    for value in FORWARD_ORDER["model"]:
        if BY_NAME[value].group == "image":  # a wrapper's: where the call carries an image
            if getattr(model.family, "wrapper", None) is None:
                continue
            if value == "image_features" and imageless is not None:
                result.left_out[value] = f"unavailable on this call: {imageless}"
                continue
        add(model, value, None)
    groups = model.family.groups
    blocks = sorted(set(chosen) | {layer for layer, _ in pinned})
    for index in range(count):
        layer = model.layers[index]
        hosts = block_hosts(layer)
        skipped = skipped_by(model, layer, given)
        for host_name, value in _block_order(model):
            if BY_NAME[value].group not in groups:
                continue
            if skipped is not None:
                result.left_out[names.Path(value, index).key] = f"the call skips this block: {skipped}"
                continue
            if index not in blocks:
                result.left_out[names.Path(value, index).key] = "not asked for (values= or layers= left it out)"
                continue
            host = hosts.get(host_name)
            if host is None:
                result.left_out[names.Path(value, index).key] = (
                    f"unavailable on this model: {absent_host_reason(model, layer, host_name)}")
                continue
            add(host, value, index)
    for value in FORWARD_ORDER["readout"]:
        add(model, value, None)
    return result


def _location_key(host, site):
    """What identifies the tensor a plain read serves (the host, the location, the element, the layout), None for
    a site that computes on what it reads (a derived value, a sum, a multiplier)."""
    if type(site) is NormScale:  # one norm's scale, served under two names (a parallel block's one norm)
        return "scale", id(host), site.where
    if type(site) is not Read or site.plus or site.scale or site.snapshot:
        return None
    return id(host), site.where, site.element, id(site.layout)


# --------------------------------------------------------------------------- size
def _dims(model, layer, seq: int, batch: int) -> dict:
    config = model._nnterp_state.config
    # image positions: at most every position of the call (the bound a cache is refused by)
    dims = {"batch": batch, "seq": seq, "query": seq, "key": seq + model.family.positions.ahead(config),
            "image_positions": batch * seq}
    for name in DIMENSIONS:
        if name in dims:
            continue
        accessor = {"top_k": "num_experts_per_token"}.get(name, name)
        try:
            dims[name] = getattr(model, accessor)
        except Exception:  # a dimension this family has not (no router): no value of it is planned
            pass
    if layer is not None and model.family.block.dims is not None:
        dims.update(model.family.block.dims(model.layers[layer]._nnterp_context()))
    return dims


def _element_size(spec, dtype) -> int:
    if spec.layout.kind in ("Tokens", "Experts"):
        return 8
    return dtype.itemsize


def estimate_bytes(model, reads, batch: int, seq: int, positions=None, dtype=None) -> int:
    """The bytes a cache of ``reads`` holds for ``batch`` rows of ``seq`` positions, from the values' layouts."""
    total, model_dtype = 0, model.dtype
    by_layer: dict = {}  # the sizes are read from the config once per block, not once per value
    for read in reads:
        spec = BY_NAME[read.path.value]
        if not spec.layout.dims:
            continue
        dims = by_layer.get(read.path.layer)
        if dims is None:
            dims = by_layer[read.path.layer] = _dims(model, read.path.layer, seq, batch)
        sizes = []
        for dim in spec.layout.dims:
            size = dims[dim]
            if dim == "seq" and spec.layout.kind in ("Keys", "Values"):
                size = dims["key"]
            if dim in ("seq", "query") and positions is not None:
                size = len(_position_list(positions, size))
            sizes.append(size)
        total += math.prod(sizes) * _element_size(spec, dtype or model_dtype)
    return total


def _size(nbytes: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if nbytes < 1000 or unit == "TB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1000


def _available_bytes(device) -> int | None:
    device = torch.device(device)
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return free
    if device.type == "cpu":
        try:
            for line in open("/proc/meminfo"):
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            return None
    return None


# --------------------------------------------------------------------------- positions
def _position_list(positions, seq: int) -> list[int]:
    if isinstance(positions, slice):
        return list(range(seq))[positions]
    if isinstance(positions, int):
        positions = [positions]
    elif isinstance(positions, torch.Tensor):
        positions = positions.tolist()
    chosen = []
    for position in positions:
        if not -seq <= int(position) < seq:
            raise NnterpError(f"position {position} is outside the call's {seq} positions: pass positions between "
                              f"{-seq} and {seq - 1}")
        chosen.append(int(position) % seq)
    return chosen


def _keep(value, dims, positions, device, dtype):
    """The value as the cache keeps it (``dims``: its layout's): its chosen positions (a copy, so the rest is freed),
    on ``device`` in ``dtype``; the value itself when none is asked for."""
    if not isinstance(value, torch.Tensor):
        return value
    if positions is not None:
        for axis, dim in enumerate(dims):
            if dim in ("seq", "query"):
                index = torch.tensor(_position_list(positions, value.shape[axis]), device=value.device)
                value = value.index_select(axis, index)
    if device is not None or (dtype is not None and value.is_floating_point()):
        value = value.to(device=device, dtype=dtype if value.is_floating_point() else None)
    return value


# --------------------------------------------------------------------------- running
def _batches(model, prompts, batch_size):
    """The trace inputs, one per batch: the prompts as given where they are one batch; otherwise tokenized together
    (so every batch has the same positions, left-padded as a trace pads them) and cut into rows."""
    if isinstance(prompts, (str, dict)) or batch_size is None:
        return [prompts], _count(prompts)
    if isinstance(prompts, torch.Tensor):
        ids = prompts if prompts.ndim == 2 else prompts[None]
        encoded = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    else:
        prompts = list(prompts)
        if len(prompts) <= batch_size:
            return [prompts], len(prompts)
        encoded = dict(model.tokenizer(prompts, return_tensors="pt", padding=True))
    rows = encoded["input_ids"].shape[0]
    return ([{key: tensor[start:start + batch_size] for key, tensor in encoded.items()}
             for start in range(0, rows, batch_size)], rows)


def _count(prompts) -> int:
    if isinstance(prompts, str):
        return 1
    if isinstance(prompts, torch.Tensor):
        return 1 if prompts.ndim == 1 else prompts.shape[0]
    if isinstance(prompts, dict):
        return prompts["input_ids"].shape[0]
    return len(prompts)


def _positions_of(model, batch) -> int:
    if isinstance(batch, dict):
        return int(batch["input_ids"].shape[-1])
    if isinstance(batch, torch.Tensor):
        return int(batch.shape[-1])
    encoded = model.tokenizer(batch if isinstance(batch, list) else [batch], return_tensors="pt", padding=True)
    return int(encoded["input_ids"].shape[-1])


def _instrument(reads) -> None:
    """Instrument, before the forward, each host a read needs the operations of (not the whole model: a host
    instrumented runs its later forwards through nnsight's operation hooks)."""
    done = set()
    for read in reads:
        where = where_of(read.host._nnterp_site(read.path.value))
        # by location, not host: a host's values may be read in two forwards (IDEFICS's attention_output in its
        # block's, its softmax in its own)
        if isinstance(where, Call) and (id(read.host), where) not in done:
            where.instrument(read.host)
            done.add((id(read.host), where))


def _steps(model, reads, splice_reads) -> list:
    """The reads and the splices' reads, in forward order (a splice's after the plain read of the same value)."""
    block = {name: rank for rank, (_, name) in enumerate(_block_order(model))}
    model_order = {name: rank for rank, name in enumerate(FORWARD_ORDER["model"])}
    readout = {name: rank for rank, name in enumerate(FORWARD_ORDER["readout"])}

    def position(layer, name) -> tuple:
        if layer is not None:
            return layer, block[name]
        return (-1, model_order[name]) if name in model_order else (model.num_layers, readout[name])

    steps = [(position(read.path.layer, read.path.value), 0, index, read) for index, read in enumerate(reads)]
    for index, splice_read in enumerate(splice_reads):
        steps.append((position(*splice_read.starts), 1, index, ("begin", splice_read)))
        steps.append((position(*splice_read.ends), 2, index, ("end", splice_read)))
    return [step for *_, step in sorted(steps, key=lambda step: step[:3])]


def _run_one(model, batch, reads, positions, device, dtype, splice_reads=()) -> dict:
    """One batch's values. The trace edits nothing, so the values a site copies only against a later edit are the
    forward's tensors; where the forward itself changed one in place after it was read, the batch runs again with
    those sites' copies, and the model's later caches copy them from the start."""
    copied = envoy_memo(model, "_nnterp_cache").setdefault("copy_anyway", set())
    while True:
        unedited = Unedited(copy_anyway=frozenset(copied))
        kept = _read_batch(model, batch, reads, positions, device, dtype, splice_reads, unedited)
        changed = unedited.changed()
        if not changed:
            return kept
        copied |= changed


def _read_batch(model, batch, reads, positions, device, dtype, splice_reads, unedited) -> dict:
    kept: dict = {}  # made before the trace: nnsight keeps what the trace's body puts in it
    keys = [read.path.key for read in reads]
    with torch.no_grad(), model.trace(batch):
        edits_nothing(unedited)
        finishing = {}
        for step in _steps(model, reads, splice_reads):
            if isinstance(step, Planned):
                if step.same_as is None:
                    dims = BY_NAME[step.path.value].layout.dims
                    kept[step.path.key] = _keep(getattr(step.host, step.path.value), dims, positions, device,
                                                dtype).save()
            elif step[0] == "begin":
                finishing[id(step[1])] = step[1].begin()
            else:  # a splice's values: [batch seq ...], as the SAE sees them
                for key, value in finishing.pop(id(step[1]))().items():
                    kept[key] = _keep(value, ("batch", "seq"), positions, device, dtype).save()
    for read in reads:
        if read.same_as is not None:
            kept[read.path.key] = kept[read.same_as]
    planned = set(keys)
    return {key: kept[key] for key in keys + [key for key in kept if key not in planned]}


def _join(parts: list[dict]) -> dict:
    if len(parts) == 1:
        return parts[0]
    joined = {}
    for key in parts[0]:
        pieces = [part[key] for part in parts]
        if isinstance(pieces[0], torch.Tensor):
            joined[key] = torch.cat(pieces, dim=0)
        else:  # input_size: (batch, seq) of each call
            joined[key] = (sum(piece[0] for piece in pieces), *pieces[0][1:])
    return joined


def build(model, prompts, values=None, layers=None, positions=None, device=None, dtype=None, batch_size=None,
          progress=None, max_bytes=None, transformerlens: int = 3, splices=()) -> "Cache":
    """``model.cache``'s work: plan, estimate, read batch by batch, join."""
    names.generation(transformerlens)  # refused before anything runs
    batches, rows = _batches(model, prompts, batch_size)
    # the inputs the calls pass: whether they run a block a call may skip (a cross-attention block)
    given = tuple(batches[0]) if isinstance(batches[0], dict) else TEXT_CALL
    planned = plan(model, values, layers, transformerlens, given)
    splices = [splices] if hasattr(splices, "cache_reads") else list(splices or ())
    splice_reads = [splice_read for spliced in splices for splice_read in spliced.cache_reads()]
    seq = _positions_of(model, batches[0])
    estimate = estimate_bytes(model, planned.reads, rows, seq, positions, dtype)
    for splice_read in splice_reads:  # the error has the written value's size; the latents, their width a position
        layer, name = splice_read.ends
        estimate += estimate_bytes(model, [Planned(names.Path(name, layer), model)], rows, seq, positions, dtype)
        kept = seq if positions is None else len(_position_list(positions, seq))
        estimate += rows * kept * (splice_read.latents or 0) * (dtype or model.dtype).itemsize
    target = device if device is not None else model.device
    limit = max_bytes if max_bytes is not None else _available_bytes(target)
    if limit is not None and estimate > limit:
        bound = f"max_bytes={max_bytes:,} ({_size(limit)})" if max_bytes is not None else \
            f"the {_size(limit)} free on {target}"
        otherwise = ["a smaller dtype="] + ([] if torch.device(target).type == "cpu" else ["device='cpu'"]) + \
            (["a larger max_bytes="] if max_bytes is not None else [])
        raise NnterpError(
            f"the cache would hold about {_size(estimate)} ({len(planned.reads)} values of {rows} prompts × {seq} "
            f"positions), more than {bound}: name fewer values=, layers= or positions=, or pass "
            f"{' or '.join(otherwise)}")
    _instrument(planned.reads)
    show = len(batches) > 1 if progress is None else progress
    parts = []
    if show:
        from tqdm.auto import tqdm

        batches = tqdm(batches, desc=f"caching {len(planned.reads)} values (about {_size(estimate)})", unit="batch")
    for batch in batches:
        parts.append(_run_one(model, batch, planned.reads, positions, device, dtype, splice_reads))
    cache = Cache(_join(parts), planned, estimate, model, transformerlens)
    cache._aliases = {alias: key for splice_read in splice_reads for alias, key in splice_read.aliases.items()}
    return cache


# --------------------------------------------------------------------------- the cache
class Cache:
    """The values of one cached run, by standard path.

    ``cache.logits``, ``cache.layers[3].self_attn.attention_probabilities``, ``cache["layers.3.layer_output"]``,
    ``cache["blocks.3.hook_resid_post"]`` (TransformerLens names, ``nnterp.compat.names``, in the generation
    ``transformerlens`` says: 3, HookedTransformer's, or 4, TransformerBridge's), ``cache.stack("layer_output")``
    ([layers ...] over the cached blocks). ``keys()`` lists what it holds; ``left_out`` says why each other value
    is not there."""

    def __init__(self, values: dict, planned: Plan, estimated_bytes: int, model, transformerlens: int = 3) -> None:
        self._values = values
        self.left_out = dict(planned.left_out)
        self.layers_cached = planned.layers
        self.estimated_bytes = estimated_bytes
        self._num_layers = model.num_layers
        self._block_kind = model.family.block.kind(model._nnterp_state.config)
        self._family = model.family.name
        self.transformerlens = transformerlens
        self._info = ConventionInfo(model)
        self._converted: dict = {}  # TransformerLens's tensors, computed once per name
        self._aliases: dict = {}  # a splice's values under the paths code reads them by
        self.layers = _Layers(self)

    # -- by key
    def _path(self, key) -> names.Path:
        if isinstance(key, names.Path):
            return key
        return names.resolve(key, self._num_layers, self._block_kind, self._family, self.transformerlens)

    def __getitem__(self, key):
        if isinstance(key, str) and self._aliases.get(key, key) in self._values:  # a splice's latents and error
            return self._values[self._aliases.get(key, key)]
        path = self._path(key)
        refused = projected.refusal(self._info._model, path)
        if refused:
            raise NotCached(refused)
        convention = path.convention
        if not convention.same:  # a TransformerLens name: its tensor, computed from the values it reads
            converted = (path.via.name, path.key)
            if converted not in self._converted:
                values = []
                for read in path.reads(self._num_layers, self._block_kind):
                    try:
                        values.append(self[read])
                    except NotCached as missing:
                        if self.left_out.get(read.key) == computed_beside(read.value):
                            missing = f"{read.key} is {computed_beside(key)}"  # the name asked for keeps it
                        raise NotCached(f"{key!r} is TransformerLens's tensor, computed from {read.key}; {missing}") \
                            from None
                self._converted[converted] = convention.to_tl(values, self._info)
            return self._converted[converted]
        found = self._values.get(path.key)
        if found is not None or path.key in self._values:
            return found
        raise NotCached(self._why(path, key))

    def _why(self, path: names.Path, asked) -> str:
        named = path.key if isinstance(asked, names.Path) else f"{asked!r}" + (f" ({path.key})" if asked != path.key else "")
        if not path.in_vocabulary:
            return f"{named} is {path.value}, which this version of nnterp does not serve yet"
        reason = self.left_out.get(path.key)
        if reason is None:
            reason = "not read in this run"
        return f"{named} is not in this cache: {reason}"

    def __contains__(self, key) -> bool:
        if isinstance(key, str) and self._aliases.get(key, key) in self._values:
            return True
        try:
            path = self._path(key)
        except KeyError:
            return False
        if projected.refusal(self._info._model, path):
            return False
        return all(read.key in self._values for read in path.reads(self._num_layers, self._block_kind))

    def keys(self):
        return self._values.keys()

    def items(self):
        return self._values.items()

    def values(self):
        return self._values.values()

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def nbytes(self) -> int:
        return sum(v.numel() * v.element_size() for v in self._values.values() if isinstance(v, torch.Tensor))

    # -- by attribute
    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in BY_NAME and BY_NAME[name].host == "model" or names.PENDING_HOSTS.get(name) == "model":
            return self[names.Path(name)]
        raise AttributeError(f"a cache has no {name!r}: its model-level values are keyed like the model's "
                             f"(cache.logits), its blocks' under cache.layers[i]; cache.keys() lists what it holds")

    def stack(self, name: str) -> torch.Tensor:
        """A block value of every cached block, stacked: [layers ...] (``stack("layer_output")``, or by its
        TransformerLens name, ``stack("hook_resid_post")``)."""
        return torch.stack([self[_block_path(name, i, self._block_kind, self._family, self.transformerlens)]
                            for i in self.layers_cached])

    def __repr__(self) -> str:
        blocks = f"{len(self.layers_cached)} of {self._num_layers} blocks"
        return f"Cache({len(self)} values, {_size(self.nbytes)}, {blocks}; cache.keys() lists them)"


def _block_path(name: str, layer: int, block_kind: str, family: str | None = None,
                transformerlens: int = 3) -> names.Path:
    hook = names.block_hook(name)
    if hook is not None:
        return names.resolve(f"blocks.{layer}.{hook.name}", block_kind=block_kind, family=family,
                             transformerlens=transformerlens)
    if name not in BY_NAME and name not in names.PENDING_HOSTS:
        raise names.UnknownPath(names._unknown(name, [*BY_NAME, *names.TRANSFORMERLENS_BLOCK]))
    path = names.Path(name, layer)
    if path.host == "model":
        raise NnterpError(f"{name} is a model-level value: read it as cache.{name}; stack() takes a block value")
    return path


class _Layers:
    """``cache.layers[i]``: a block's cached values, by the model's paths."""

    def __init__(self, cache: Cache) -> None:
        self._cache = cache

    def __getitem__(self, index: int) -> "_Host":
        count = self._cache._num_layers
        return _Host(self._cache, names._index(index, count), "layer")

    def __len__(self) -> int:
        return self._cache._num_layers

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class _Host:
    def __init__(self, cache: Cache, layer: int, host: str) -> None:
        self._cache, self._layer, self._host = cache, layer, host

    @property
    def self_attn(self) -> "_Host":
        return _Host(self._cache, self._layer, "attention")

    @property
    def mlp(self) -> "_Host":
        return _Host(self._cache, self._layer, "mlp")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        host = BY_NAME[name].host if name in BY_NAME else names.PENDING_HOSTS.get(name)
        if host != self._host:
            where = "cache.layers[i]" + {"layer": "", "attention": ".self_attn", "mlp": ".mlp"}.get(self._host, "")
            hint = f": it is {names.Path(name, self._layer)}" if host not in (None, "model") else ""
            raise AttributeError(f"{where} has no value {name!r}{hint}")
        return self._cache[names.Path(name, self._layer)]

    def __repr__(self) -> str:
        prefix = names.Path("layer_output", self._layer).key.rsplit(".", 1)[0]
        prefix += {"layer": "", "attention": ".self_attn", "mlp": ".mlp"}[self._host]
        held = [key.rsplit(".", 1)[-1] for key in self._cache.keys() if key.rsplit(".", 1)[0] == prefix]
        return f"cache.{prefix}: {', '.join(held) or 'nothing cached'}"
