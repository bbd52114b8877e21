"""The import structure of compiler/, connectors/ and pipelines/ (docs: the developers' guide asks
for layers): no two modules import each other, directly or around a circle, and compiler/ never
imports the CLI of a package above it; the ``folio`` app is composed in pipelines/folio_cli.py.

Imports are read from the source (every ``import`` statement, also inside functions and under
``TYPE_CHECKING``): a lazy import hides a circle from Python, not from a reader."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("compiler", "connectors", "pipelines")


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_of(p): p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))}


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of this tree that ``name`` imports (a name taken from a package is its
    submodule where one is so named, else the package itself)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            subs = [f"{base}.{alias.name}" for alias in node.names]
            targets = [s for s in subs if s in known] or [base]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: _imports(name, path, known) for name, path in known.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        part.append(top)
                        if top == node:
                            break
                    if len(part) > 1:
                        circles.append(sorted(part))
    return circles


def test_no_module_imports_itself_around_a_circle() -> None:
    graph = _graph()
    circles = _circles(graph)
    tied = [[f"{a} -> {b}" for a in c for b in sorted(graph[a]) if b in c] for c in circles]
    assert not circles, tied


def test_the_circle_finder_finds_one() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_compiler_imports_no_cli_of_a_package_above_it() -> None:
    wrong = sorted((name, dep) for name, deps in _graph().items() if name.startswith("compiler")
                   for dep in deps if dep.startswith("pipelines"))
    assert not wrong, wrong


# the compiler's ground: what connectors/ stands on, so none of it may import connectors/
_BELOW_CONNECTORS = ("compiler.settings", "compiler.event_settings", "compiler.wiki_owner",
                     "compiler.provenance")


def test_connectors_stand_between_the_compile_core_and_the_compile() -> None:
    """connectors/ reads sources with the core's models and settings, and the compile
    (compiler.build) reads the corpus with connectors/: so no connector imports the compile or
    pipelines/, and neither the settings, the wiki's owner guard nor provenance imports a
    connector (what they need of the corpus is handed in: connectors.loader.corpus_identity,
    current_sources)."""
    graph = _graph()
    up = sorted((name, dep) for name, deps in graph.items() if name.startswith("connectors")
                for dep in deps if dep.startswith(("pipelines", "compiler.build")))
    down = sorted((name, dep) for name, deps in graph.items()
                  if name in _BELOW_CONNECTORS or name.startswith("compiler.provenance.")
                  for dep in deps if dep.startswith("connectors"))
    assert not up, up
    assert not down, down


def test_answering_stands_above_retrieval_and_the_compile() -> None:
    """compiler.answers (ask, its guard, filing, the commands) is built from retrieval, query
    and the compile; so nothing below it (retrieval, the compile's phases, lint) imports it:
    the question's language lives in compiler.retrieval, the answer pages the compile renders
    in compiler.answer_pages."""
    graph = _graph()
    answering = {name for name in graph if name.startswith("compiler.answers")}
    below = {name for name in graph if name.startswith(("compiler.retrieval", "compiler.query",
                                                        "compiler.page_render", "compiler.lint",
                                                        "compiler.compile_run", "compiler.build",
                                                        "compiler.answer_pages"))}
    wrong = sorted((name, dep) for name in below for dep in graph[name] if dep in answering)
    assert not wrong, wrong


def test_the_folio_script_is_the_composed_app() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["folio"] == "pipelines.folio_cli:app"
    import typer.main

    from pipelines.folio_cli import app

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    for name in ("compile", "query", "verify", "render", "connectors", "consume", "pipeline"):
        assert name in commands, sorted(commands)
