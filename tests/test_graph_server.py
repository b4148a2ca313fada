"""``nnterp attribute`` and ``nnterp start-server``: a graph written by the command line, served offline, opened in
headless Chromium (tests/browser.py), whose page
draws the graph's nodes while asking nothing of any host but the local server."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from browser import Visit
from nnterp import cli
from nnterp.contract.numerics import assert_close
from nnterp.tools._common import ToolError
from nnterp.tools.graph import AttributionGraph
from nnterp.tools.graph_commands import load_transcoder_set
from nnterp.tools.graph_server import BUILT, serve
from nnterp.tools.splice import LocalSAE

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "The Eiffel Tower is in"


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """The folder `nnterp attribute` writes a tiny Llama's graph in, and the frontend built (`make frontend`)."""
    if not (BUILT / "index.html").exists():
        done = subprocess.run(["make", "-s", "frontend"], cwd=ROOT, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"make frontend failed: {done.stderr[-2000:]}"
    folder = tmp_path_factory.mktemp("graphs")
    cli.main(["attribute", "-m", "llama", "-t", "random", "-p", PROMPT, "--slug", "eiffel",
              "--graph_file_dir", str(folder), "-o", str(folder / "eiffel.pt"), "--batch_size", "128"])
    return folder


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def test_the_command_writes_circuit_tracers_files(graphs):
    index = json.loads((graphs / "graph-metadata.json").read_text())
    assert [entry["slug"] for entry in index["graphs"]] == ["eiffel"]
    data = json.loads((graphs / "eiffel.json").read_text())
    assert data["metadata"]["scan"] == "random" and data["metadata"]["prompt"] == PROMPT
    graph = AttributionGraph.from_pt(graphs / "eiffel.pt")
    assert graph.completeness() < 1e-4 and graph.n_features == graph.stats["active_latents"] > 0


def test_the_server_serves_the_folder_and_nothing_outside_it(graphs):
    with serve(graphs, port=0) as server:
        status, body = _get(f"{server.url}/data/graph-metadata.json")
        assert status == 200 and json.loads(body) == json.loads((graphs / "graph-metadata.json").read_text())
        status, body = _get(f"{server.url}/graph_data/eiffel.json")
        assert status == 200 and json.loads(body)["metadata"]["slug"] == "eiffel"
        assert _get(f"{server.url}/data/%2e%2e/%2e%2e/%2e%2e/etc/passwd")[0] == 404
        assert _get(f"{server.url}/graph_data/missing.json")[0] == 404
        status, page = _get(f"{server.url}/index.html")
        assert status == 200 and b"https://" not in page.split(b"<script>")[0]  # no remote script or sheet
        request = urllib.request.Request(f"{server.url}/save_graph/eiffel", method="POST",
                                         data=json.dumps({"qParams": {"pinnedIds": "E_1_0"}}).encode())
        assert urllib.request.urlopen(request).status == 200
    assert json.loads((graphs / "eiffel.json").read_text())["qParams"] == {"pinnedIds": "E_1_0"}


def test_a_folder_without_graphs_is_refused(tmp_path):
    with pytest.raises(ToolError, match="no graph-metadata.json"):
        serve(tmp_path, port=0)


def test_the_page_draws_the_graphs_nodes_offline(graphs, browser):
    data = json.loads((graphs / "eiffel.json").read_text())
    threshold = data["metadata"]["node_threshold"]
    # the frontend's pruning slider starts at the graph's node threshold: it draws every embedding and logit, and
    # the other nodes whose cumulative influence is within it (circuit-tracer's pruning keeps the one crossing it)
    shown = {node["node_id"] for node in data["nodes"]
             if node["feature_type"] in ("embedding", "logit") or node["influence"] <= threshold}
    assert any(node["feature_type"] == "cross layer transcoder" for node in data["nodes"] if node["node_id"] in shown)
    with serve(graphs, port=0) as server:
        visit = Visit(browser, f"{server.url}/index.html?slug=eiffel")
        drawn, deadline = [], time.monotonic() + 20
        while len(drawn) < len(shown) and time.monotonic() < deadline:
            time.sleep(0.1)
            drawn = visit.page.evaluate(
                "[...document.querySelectorAll('.link-graph text.node')].map(e => e.__data__.nodeId)")
        visit.close()
    assert sorted(drawn) == sorted(shown)
    assert f"{server.url}/graph_data/eiffel.json" in visit.requests
    assert [url for url in visit.requests if not url.startswith((server.url + "/", "data:"))] == []
    assert [problem for problem in visit.problems if not problem.startswith("warning")] == []


def test_a_folder_in_circuit_tracers_layout_loads_as_its_transcoders(tmp_path):
    generator = torch.Generator().manual_seed(0)
    weights = [{"W_enc": torch.randn(8, 4, generator=generator), "W_dec": torch.randn(8, 4, generator=generator),
                "b_enc": torch.randn(8, generator=generator), "b_dec": torch.randn(4, generator=generator)}
               for _ in range(2)]
    for i, one in enumerate(weights):  # circuit-tracer's SingleLayerTranscoder.to_safetensors: [d_transcoder, d_model]
        save_file(one, str(tmp_path / f"layer_{i}.safetensors"))
    loaded = load_transcoder_set(tmp_path, 2, "ln2.hook_normalized", "hook_mlp_out")
    x = torch.randn(3, 4, generator=generator)
    for i, (one, saved) in enumerate(zip(loaded, weights)):
        assert isinstance(one, LocalSAE) and one.cfg.hook_name_out == f"blocks.{i}.hook_mlp_out"
        latents = torch.relu(x @ saved["W_enc"].T + saved["b_enc"])  # circuit-tracer's encode and decode
        # sums of d_model (d_transcoder) terms and a bias, in another memory order, at the terms' magnitude
        summed = float((x.abs() @ saved["W_enc"].abs().T + saved["b_enc"].abs()).max())
        assert_close(one.encode(x), latents, length=5, magnitude=summed)
        summed = float((latents @ saved["W_dec"].abs() + saved["b_dec"].abs()).max())
        assert_close(one.decode(latents), latents @ saved["W_dec"] + saved["b_dec"], length=9, magnitude=summed)
    save_file({**weights[1], "activation_function.threshold": torch.zeros(8)}, str(tmp_path / "layer_1.safetensors"))
    with pytest.raises(ToolError, match="JumpReLU threshold or a skip"):
        load_transcoder_set(tmp_path, 2)
    with pytest.raises(ToolError, match="no layer_2.safetensors"):
        load_transcoder_set(tmp_path, 3)
