"""The import graph of the project, read from the source (every import statement, also inside
functions; not those under ``if TYPE_CHECKING:``, which never run): the library imports nothing
of the runner, the two wings share only what lies below both, and no module reaches itself
through its imports. A new arrow that breaks one of these fails here, naming it."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("pubpriv_core", "experiments")


def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the project's packages."""
    out = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules that ``name`` imports: ``import a.b`` names a.b; ``from a import b``
    names the module a.b when there is one, else a."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module
            for alias in node.names:
                sub = f"{origin}.{alias.name}"
                found.add(sub if sub in known else origin)
    return {target for target in found if target in known and target != name}


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` but those inside an ``if TYPE_CHECKING:`` block."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_library_imports_nothing_of_the_runner():
    arrows = [f"{a} -> {b}" for a, targets in graph().items() if a.startswith("pubpriv_core")
              for b in sorted(targets) if b.startswith("experiments")]
    assert arrows == []


def test_the_wings_share_only_what_lies_below_both():
    wings = ("experiments.release", "experiments.theory")
    arrows = [f"{a} -> {b}" for a, targets in graph().items() for b in sorted(targets)
              for one, other in (wings, wings[::-1])
              if a.startswith(one) and b.startswith(other)]
    assert arrows == []


def test_no_module_imports_itself_through_others():
    assert cycles(graph()) == []


def test_a_circle_is_seen():
    """The detector itself: a made-up circle of three is reported, a chain is not."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}}) == []
