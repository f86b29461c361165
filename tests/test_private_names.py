"""No module of ours uses a private name of a dependency.

A private name (one leading underscore, not a ``__dunder__`` nor an
Enum-style ``_sunder_``) of Twisted, python-chess, zope, gettext, argparse
or any other module outside ``ficsfen`` may change or vanish in any
release, silently.  Every ``.py`` file of ``ficsfen/``, ``examples/``,
``bench/``, ``tools/`` and ``twisted/plugins/`` is parsed with :mod:`ast`;
an access is reported when:

- an import names a private module or object: ``from gettext import _x``,
  ``import twisted.internet._sslverify``;
- ``X._name`` where ``X`` is, or is reached from (attributes, calls,
  subscripts), a name imported from a dependency: ``argparse._``,
  ``chess.Board()._stack``;
- ``v._name`` where the variable ``v`` holds a dependency's object, as far
  as the function shows it: assigned from such an expression
  (``t = gettext.GNUTranslations(fp)``), or a parameter annotated with a
  dependency's class (``port: tcp.Port``);
- ``v._name`` where ``v`` is a variable or attribute named ``transport`` or
  ``reactor``: in this code base those are always Twisted's objects (a
  heuristic on names, since their class is known only at run time);
- inside a class of ours that inherits from a dependency's class (found by
  importing the ``ficsfen`` modules), ``self._name`` where a dependency
  class of its MRO defines ``_name`` (in its class body, or assigns
  ``self._name`` in its source), and ``self.attr._name`` where ``attr`` is
  one the dependency sets (``self.server._realPortNumber`` in a
  ``tcp.Server``).

Underscored names documented as public are let through (:data:`DOCUMENTED`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("ficsfen", "examples", "bench", "tools", "twisted/plugins")
OURS = "ficsfen"

# Underscored names the Python documentation gives as public API.
DOCUMENTED = frozenset({
    "_exit",  # os._exit
    "_getframe",  # sys._getframe
    "_replace", "_asdict", "_fields", "_field_defaults", "_make",  # namedtuple's methods
})

# Twisted objects by their conventional name (see the module docstring).
TWISTED_NAMES = frozenset({"transport", "reactor"})

# Modules whose names describe types, not objects that have attributes.
TYPING_MODULES = frozenset({"typing", "typing_extensions", "collections", "__future__"})

def is_private(name: str) -> bool:
    if not name.startswith("_") or name.startswith("__") or name in DOCUMENTED:
        return False
    return not (len(name) > 2 and name.endswith("_"))  # Enum's _value_, _missing_...


def is_dependency(module: str | None, level: int = 0) -> bool:
    return level == 0 and module is not None and module.split(".")[0] != OURS


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def python_files() -> Iterator[Path]:
    for top in SCANNED:
        yield from sorted((ROOT / top).rglob("*.py"))


def module_name(path: Path) -> str | None:
    relative = path.relative_to(ROOT)
    if relative.parts[0] != OURS:
        return None
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__main__":  # importing it runs the command line
        return None
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def dependency_bindings(tree: ast.AST) -> dict[str, str]:
    """Local name -> dependency module it comes from, for every import of the file."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_dependency(alias.name):
                    bound[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and is_dependency(node.module, node.level):
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def private_imports(tree: ast.AST, path: str) -> Iterator[Finding]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_dependency(alias.name) and any(is_private(p) for p in alias.name.split(".")):
                    yield Finding(path, node.lineno, f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and is_dependency(node.module, node.level):
            assert node.module is not None
            if any(is_private(p) for p in node.module.split(".")):
                yield Finding(path, node.lineno, f"from {node.module} import ...")
            for alias in node.names:
                if is_private(alias.name):
                    yield Finding(path, node.lineno, f"from {node.module} import {alias.name}")


def root(node: ast.expr) -> ast.expr:
    """The innermost object of ``a.b().c[0]``: ``a``."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def annotation_names(node: ast.expr | None) -> Iterator[ast.expr]:
    """The classes an annotation allows: ``A``, ``a.B``, each side of ``A | None``, ``Optional[A]``."""
    if node is None:
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from annotation_names(node.left)
        yield from annotation_names(node.right)
    elif isinstance(node, ast.Subscript) and isinstance(root(node.value), ast.Name) \
            and ast.unparse(node.value).split(".")[-1] == "Optional":
        yield from annotation_names(node.slice)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            yield from annotation_names(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return
    elif isinstance(node, (ast.Name, ast.Attribute)):
        yield node


class FileScan:
    """The findings of one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.relative = path.relative_to(ROOT).as_posix()
        self.tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        self.bound = dependency_bindings(self.tree)
        self.module = module_name(path)

    def from_dependency(self, node: ast.expr, variables: set[str]) -> bool:
        """Whether ``node`` is a dependency's module, class or object (as far as the file shows)."""
        base = root(node)
        if isinstance(base, ast.Name):
            origin = self.bound.get(base.id)
            if origin is not None:
                return origin.split(".")[0] not in TYPING_MODULES
            return base.id in variables
        return False

    def typed_by_dependency(self, annotation: ast.expr | None) -> bool:
        return any(self.from_dependency(n, set()) for n in annotation_names(annotation))

    def findings(self) -> Iterator[Finding]:
        yield from private_imports(self.tree, self.relative)
        yield from self.scope(self.tree, set())
        yield from self.inherited()

    def scope(self, node: ast.AST, outer: set[str]) -> Iterator[Finding]:
        """Private accesses in one function (or the module), nested functions in turn."""
        variables = set(outer)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                if self.typed_by_dependency(arg.annotation):
                    variables.add(arg.arg)
                elif arg.arg in variables:
                    variables.discard(arg.arg)
        body = list(self.own_nodes(node))
        changed = True
        while changed:  # assignments in any order: a fixed point
            changed = False
            for child in body:
                for name in self.assigned_from_dependency(child, variables):
                    if name not in variables:
                        variables.add(name)
                        changed = True
        for child in body:
            if isinstance(child, ast.Attribute) and is_private(child.attr):
                value = child.value
                named = (isinstance(value, ast.Name) and value.id in TWISTED_NAMES) or (
                    isinstance(value, ast.Attribute) and value.attr in TWISTED_NAMES)
                if named or self.from_dependency(value, variables):
                    yield Finding(self.relative, child.lineno, ast.unparse(child))
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and child is not node:
                yield from self.scope(child, variables)

    def own_nodes(self, node: ast.AST) -> Iterator[ast.AST]:
        """The nodes of ``node``'s body, nested functions themselves but not their bodies."""
        stack = list(ast.iter_child_nodes(node))
        while stack:
            child = stack.pop()
            yield child
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                stack.extend(ast.iter_child_nodes(child))

    def assigned_from_dependency(self, node: ast.AST, variables: set[str]) -> Iterator[str]:
        if isinstance(node, ast.Assign) and self.from_dependency(node.value, variables):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if self.typed_by_dependency(node.annotation) or (
                    node.value is not None and self.from_dependency(node.value, variables)):
                yield node.target.id
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name) and self.from_dependency(item.context_expr, variables):
                    yield item.optional_vars.id

    def inherited(self) -> Iterator[Finding]:
        """``self._x`` on names a dependency base class defines, in our classes that inherit one."""
        if self.module is None:
            return
        module = importlib.import_module(self.module)
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.ClassDef):
                continue
            cls = getattr(module, node.name, None)
            if not isinstance(cls, type) or cls.__module__ != module.__name__:
                continue
            names, attributes = dependency_names(cls)
            if not names and not attributes:
                continue
            for child in ast.walk(node):
                if not (isinstance(child, ast.Attribute) and is_private(child.attr)):
                    continue
                value = child.value
                if isinstance(value, ast.Name) and value.id == "self" and child.attr in names:
                    yield Finding(self.relative, child.lineno, ast.unparse(child))
                elif (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                      and value.value.id == "self" and value.attr in attributes):
                    yield Finding(self.relative, child.lineno, ast.unparse(child))


_SELF_NAME = re.compile(r"\bself\.([A-Za-z_]\w*)")


@cache
def dependency_names(cls: type) -> tuple[frozenset[str], frozenset[str]]:
    """(private names, public attributes) the dependency classes of ``cls``'s MRO define."""
    private: set[str] = set()
    public: set[str] = set()
    for base in cls.__mro__:
        if base is object or base.__module__ in ("builtins", OURS) or base.__module__.startswith(OURS + "."):
            continue
        names = set(vars(base))
        try:
            names |= set(_SELF_NAME.findall(inspect.getsource(base)))
        except (OSError, TypeError):  # no source: a C type
            pass
        private |= {n for n in names if is_private(n)}
        public |= {n for n in names if not n.startswith("_")}
    return frozenset(private), frozenset(public)


def all_findings() -> list[Finding]:
    found: list[Finding] = []
    for path in python_files():
        found.extend(FileScan(path).findings())
    return sorted(set(found), key=lambda f: (f.path, f.line, f.text))


@pytest.mark.slow
def test_no_private_name_of_a_dependency_is_used():
    found = all_findings()
    assert not found, "private names of dependencies:\n" + "\n".join(map(str, found))


# -- the detector itself -------------------------------------------------------------


def scan_text(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "example.py"
    path.write_text(text, encoding="utf-8")
    scan = FileScan.__new__(FileScan)
    scan.path, scan.relative, scan.module = path, "example.py", None
    scan.tree = ast.parse(text)
    scan.bound = dependency_bindings(scan.tree)
    return sorted(f.text for f in scan.findings())


@pytest.mark.parametrize(("source", "found"), [
    ("import argparse\nargparse._ = print\n", ["argparse._"]),
    ("import gettext\n"
     "def f(fp):\n"
     "    t = gettext.GNUTranslations(fp)\n"
     "    return t._catalog, t.gettext('x')\n", ["t._catalog"]),
    ("from twisted.internet import tcp\n"
     "def f(port: tcp.Port | None):\n"
     "    return port._realPortNumber\n", ["port._realPortNumber"]),
    ("def f(protocol):\n"
     "    return protocol.transport._tempDataBuffer, protocol._mine\n", ["protocol.transport._tempDataBuffer"]),
    ("from gettext import _expand_lang\n", ["from gettext import _expand_lang"]),
    ("import twisted.internet._sslverify as v\n", ["import twisted.internet._sslverify"]),
    ("import chess\nchess.Board()._stack\n", ["chess.Board()._stack"]),
    # ours, documented, dunder and sunder names are fine
    ("from ficsfen import fen\nfen._parse('x')\nclass A:\n    def f(self):\n        return self._x\n", []),
    ("import os, enum, collections\nos._exit(0)\ncollections.namedtuple('P', 'x')(1)._replace(x=2)\n"
     "enum.Enum._missing_\nos.__name__\n", []),
    ("from typing import Any\ndef f(x: Any):\n    return x._own\n", []),
])
def test_the_detector(tmp_path, source, found):
    assert scan_text(tmp_path, source) == found


def test_inherited_private_names_are_found():
    # ficsfen's own classes over a dependency's: argparse keeps _actions, Exception nothing private
    from ficsfen.argparse_i18n import LocalizedArgumentParser

    private, public = dependency_names(LocalizedArgumentParser)
    assert "_actions" in private and "_get_formatter" in private
    assert "prog" in public and "lang" not in public
    private, _ = dependency_names(sys.modules["ficsfen.i18n"].LocalizedError)
    assert private == frozenset()
