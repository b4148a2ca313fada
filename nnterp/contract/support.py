"""``model.support()``: the values, by host, with where each is read and under which load.

It is data (iterable rows, JSON) that prints as the encyclopedia's "Values, by host" table.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from nnterp.declare.engine import module_of
from nnterp.declare.locations import block_hosts
from nnterp.declare.vocabulary import HOSTS, HOST_PATHS, values_of
from nnterp.runtime.envoys import absent_host_reason
from nnterp.runtime.status import UNAVAILABLE, status


@dataclass(frozen=True)
class SupportRow:
    host: str            # "model.layers[i].self_attn"
    host_class: str      # "PhiAttention"
    name: str
    layout: str
    description: str
    read_at: str
    status: str          # "served", "conditioned" or "unavailable"
    note: str = ""       # the condition (⚠︎) or the reason
    available: bool = True  # served under this load
    declared_at: str = ""   # the code that declared the value's site (path:line), where a wrong one is fixed

    @property
    def marked(self) -> bool:
        return self.status != "served"


class Support(list):
    """The rows of ``support()``; prints as a table, dumps as JSON."""

    def by_host(self):
        hosts: dict[str, list[SupportRow]] = {}
        for row in self:
            hosts.setdefault(row.host, []).append(row)
        return hosts

    def counts(self) -> dict[str, int]:
        counts = {"served": 0, "conditioned": 0, "unavailable": 0}
        for row in self:
            counts[row.status] += 1
        return counts

    def to_json(self, **kwargs) -> str:
        return json.dumps([asdict(row) for row in self], **kwargs)

    def __str__(self) -> str:
        out = []
        for host, rows in self.by_host().items():
            width = max(len(r.name) for r in rows) + 2
            lwidth = max(len(r.layout) for r in rows)
            out.append(f"{host} {rows[0].host_class}")
            for r in rows:
                mark = "⚠︎ " if r.marked else "  "
                out.append(f"  {mark}{r.name:<{width}}{r.layout:<{lwidth}}  {r.description}")
                out.append(f"    {'':<{width}}{'':<{lwidth}}  read at: {r.read_at}")
                if r.note:
                    out.append(f"    {'':<{width}}{'':<{lwidth}}  {self._note(r)}")
            out.append("")
        return "\n".join(out).rstrip()

    __repr__ = __str__

    # -- in a notebook: the same table, one per host; a condition or reason under its value
    def _note(self, row: SupportRow) -> str:
        if not row.note:
            return ""
        label = "condition" if row.status == "conditioned" else "reason"
        now = "" if row.status != "conditioned" else (" (met by this load)" if row.available else " (not met by this load)")
        return f"⚠︎ {label}: {row.note}{now}"

    def _repr_html_(self) -> str:
        from html import escape

        out = []
        for host, rows in self.by_host().items():
            body = []
            for r in rows:
                note = self._note(r)
                what = escape(r.description) + (f"<br><em>{escape(note)}</em>" if note else "")
                body.append(f"<tr><td><code>{escape(r.name)}</code></td><td>{escape(r.layout)}</td>"
                            f"<td>{what}</td><td>{escape(r.read_at)}</td></tr>")
            out.append(f"<table><caption style=\"text-align:left\"><code>{escape(host)}</code> {escape(rows[0].host_class)}"
                       f"</caption><thead><tr><th>value</th><th>layout</th><th>what it is</th><th>read at</th></tr></thead>"
                       f"<tbody>{''.join(body)}</tbody></table>")
        return "".join(out)

    def _repr_markdown_(self) -> str:
        def cell(text: str) -> str:
            return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

        out = []
        for host, rows in self.by_host().items():
            out += [f"**`{host}`** {cell(rows[0].host_class)}", "", "| value | layout | what it is | read at |",
                    "|---|---|---|---|"]
            for r in rows:
                note = self._note(r)
                what = cell(r.description) + (f"<br>*{cell(note)}*" if note else "")
                out.append(f"| `{cell(r.name)}` | {cell(r.layout)} | {what} | {cell(r.read_at)} |")
            out.append("")
        return "\n".join(out).rstrip()


def compact_indices(indices) -> str:
    """``0, 2-5``: block indices as ranges."""
    parts, start = [], None
    for position, index in enumerate(indices):
        if start is None:
            start = index
        if position + 1 == len(indices) or indices[position + 1] != index + 1:
            parts.append(str(start) if start == index else f"{start}-{index}")
            start = None
    return ", ".join(parts)


def _block_groups(model):
    """Blocks grouped by what they serve: one group on most families, one per block kind on hybrids."""
    groups: dict[tuple, list[int]] = {}
    for index, layer in enumerate(model.layers):
        hosts = block_hosts(layer)
        key = tuple(
            (type(module_of(envoy)).__name__, tuple(id(envoy._nnterp_site(n)) for n in envoy._nnterp_sites_names()))
            if envoy is not None else None
            for envoy in (hosts.get(host) for host in ("layer", "attention", "mlp"))
        )
        groups.setdefault(key, []).append(index)
    return list(groups.values())


def build_support(model) -> Support:
    rows = Support()
    groups = _block_groups(model)
    _rows_for(rows, model, {"model": model}, "")
    for indices in groups:
        layer = model.layers[indices[0]]
        suffix = "" if len(groups) == 1 else f" for i in {compact_indices(indices)}"
        _rows_for(rows, model, block_hosts(layer), suffix)
    return rows


def _absent_host_rows(rows, model, hosts, host, suffix) -> None:
    """A block without this host (a Mamba block has no MLP): its values are unavailable, with the family's reason."""
    layer = hosts.get("layer")
    if layer is None or host == "model":
        return
    reason = absent_host_reason(model, layer, host)
    for spec in values_of(host, model.family.groups):
        rows.append(SupportRow(
            host=HOST_PATHS[host] + suffix, host_class="(none)", name=spec.name, layout="scalar",
            description=f"Unavailable: {reason}", read_at="nowhere: the block has no such module",
            status=UNAVAILABLE, note=reason, available=False))


def _rows_for(rows, model, hosts, suffix) -> None:
    for host in HOSTS:
        envoy = hosts.get(host)
        if envoy is None:
            _absent_host_rows(rows, model, hosts, host, suffix)
            continue
        for spec in values_of(host, model.family.groups):
            site = envoy._nnterp_site(spec.name)
            found = status(site, model)
            if found.kind == UNAVAILABLE:
                layout, description = "scalar", f"Unavailable: {found.note}"
            else:
                layout, description = str(spec.layout), site.description or spec.description
            rows.append(SupportRow(
                host=HOST_PATHS[host] + suffix, host_class=type(module_of(envoy)).__name__, name=spec.name, layout=layout,
                description=description, read_at=site.describe(module_of(envoy)), status=found.kind, note=found.note,
                available=found.available, declared_at=getattr(site, "declared_at", ""),
            ))
