"""circuit-tracer's local graph server, offline: ``serve(graph_file_dir, port)``.

The frontend is circuit-tracer 0.5.0's (``frontend/circuit-tracer``, MIT, its notice kept), built into
``frontend/build`` by ``make frontend`` (``npm ci`` then ``npm run build``): the libraries it loads from CDNs at run
time (d3 with jetpack's helpers, dagre, pako) come from the npm registry at build time, pinned by
``frontend/package-lock.json``, and the feature-example URLs that point at huggingface.co and circuit-tracer's
cloudfront bucket point at this server. The page then fetches nothing from the internet.

As circuit-tracer's ``frontend.local_server``: ``/data/...`` and ``/graph_data/...`` are the graph folder's files
(``graph-metadata.json``, ``<slug>.json``: what ``AttributionGraph.write`` writes), ``/features/...`` its
``features/`` folder (feature examples, where there are any), every other path the frontend's; a POST to
``/save_graph/<slug>`` keeps the page's ``qParams`` (pinned nodes, supernodes) in the graph's file.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

from nnterp.tools._common import ToolError

FRONTEND = Path(__file__).resolve().parent / "frontend"
BUILT = FRONTEND / "build"
DEFAULT_PORT = 8041  # circuit-tracer's command line's
COMPRESSION_THRESHOLD_BYTES = 1024 ** 2  # circuit-tracer's: larger graph files go gzipped
DATA_PREFIXES = ("/data/", "/graph_data/")


def built_frontend() -> Path:
    """The built frontend, or a refusal that says how to build it."""
    if not (BUILT / "index.html").exists():
        raise ToolError(f"the graph frontend is not built ({BUILT} is missing): run `make frontend` (npm ci and npm "
                        "run build in nnterp/tools/frontend; npm fetches its libraries from the npm registry once)")
    return BUILT


def _inside(folder: Path, relative: str) -> Path | None:
    """``folder/relative`` if it stays inside ``folder`` (no ``..`` out of it), else None."""
    path = (folder / unquote(relative)).resolve()
    return path if path.is_relative_to(folder.resolve()) else None


class GraphHandler(http.server.SimpleHTTPRequestHandler):
    """The frontend's files, and the graph folder's under /data/, /graph_data/ and /features/."""

    def __init__(self, *args, data_dir: Path, log: list, **kwargs) -> None:
        self.data_dir, self.log = data_dir, log
        super().__init__(*args, **kwargs)

    def log_message(self, format, *args) -> None:
        self.log.append(format % args)

    def _data_file(self) -> Path | None | bool:
        """The graph folder's file this GET asks for (None if outside it), or False for a frontend path."""
        path = urlsplit(self.path).path
        for prefix in DATA_PREFIXES:
            if path.startswith(prefix):
                return _inside(self.data_dir, path[len(prefix):])
        if path.startswith("/features/"):
            return _inside(self.data_dir, path[1:])
        return False

    def do_GET(self) -> None:
        if urlsplit(self.path).path == "/favicon.ico":  # the frontend has no icon; a browser asks for one anyway
            self.send_response(204)
            return self.end_headers()
        local = self._data_file()
        if local is False:
            return super().do_GET()
        if local is None or not local.is_file():
            return self.send_error(404)
        content = local.read_bytes()
        self.send_response(200)
        if len(content) > COMPRESSION_THRESHOLD_BYTES:
            content = gzip.compress(content, compresslevel=3)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(content)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(content)

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if not path.startswith("/save_graph/"):
            return self.send_error(404)
        local = _inside(self.data_dir, path[len("/save_graph/"):].strip("/") + ".json")
        if local is None or not local.is_file():
            return self.send_error(404)
        posted = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        graph = json.loads(local.read_text())
        graph["qParams"] = posted["qParams"]
        local.write_text(json.dumps(graph, indent=2))
        self.send_response(200)
        self.end_headers()


class Server:
    """A running server: ``url``, ``port``, ``logs`` (one line a request) and ``stop()``; a context manager."""

    def __init__(self, httpd: http.server.ThreadingHTTPServer, thread: threading.Thread, logs: list) -> None:
        self.httpd, self.thread, self.logs = httpd, thread, logs
        self.port = httpd.server_address[1]
        self.url = f"http://localhost:{self.port}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve(data_dir, frontend_dir: Path | None = None, port: int = DEFAULT_PORT, host: str = "localhost") -> Server:
    """circuit-tracer's ``serve``: the graphs of ``data_dir`` and the frontend at ``http://localhost:port``, from a
    thread; ``port=0`` takes a free one (``server.port``). Returns the ``Server``; ``stop()`` ends it."""
    data_dir = Path(data_dir)
    if not (data_dir / "graph-metadata.json").is_file():
        raise ToolError(f"{data_dir} holds no graph-metadata.json, the index the frontend reads first: write a graph "
                        "there with graph.write(folder, slug) or `nnterp attribute --slug ... --graph_file_dir ...`")
    logs: list = []
    handler = functools.partial(GraphHandler, directory=str(frontend_dir or built_frontend()),
                                data_dir=data_dir.resolve(), log=logs)
    try:
        httpd = http.server.ThreadingHTTPServer((host, port), handler)
    except OSError as error:
        raise ToolError(f"port {port} cannot be served ({error.strerror}): pass another --port") from None
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    return Server(httpd, thread, logs)
