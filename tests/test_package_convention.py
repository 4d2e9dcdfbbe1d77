"""The one package convention (DEVELOPERS.md): every field package's ``__init__`` re-exports its
modules' public names with explicit imports and an explicit ``__all__``; kernels live in
``_kernels*.py`` files; notebook builders live outside the library."""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import theorylab

ROOT = Path(theorylab.__file__).parent
# the field packages (simulators); core, the command line, the HTML report and the scaffold are not fields
FIELDS = sorted(m.name for m in pkgutil.iter_modules(theorylab.__path__)
                if m.ispkg and m.name not in ("core", "cli", "report", "scaffold"))


def _public_submodules(package):
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{package.__name__}.{info.name}")


@pytest.mark.parametrize("field", FIELDS)
def test_all_is_explicit_complete_and_without_duplicates(field):
    package = importlib.import_module(f"theorylab.{field}")
    source = (ROOT / field / "__init__.py").read_text()
    tree = ast.parse(source)
    assert "importlib" not in source, f"theorylab/{field}/__init__.py must re-export with explicit imports"
    assert not any(isinstance(node, ast.Try) for node in ast.walk(tree)), "a missing module must raise on import"
    assert not any(isinstance(node, (ast.FunctionDef, ast.ClassDef)) for node in tree.body), (
        f"theorylab/{field}/__init__.py defines code: move it into a module and re-export it")
    assigned = [node for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)]
    assert len(assigned) == 1 and isinstance(assigned[0].value, ast.List), "__all__ must be one literal list"
    names = package.__all__
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    for name in names:
        assert hasattr(package, name), f"theorylab.{field}.__all__ names {name!r}, which does not exist"
        assert not inspect.ismodule(getattr(package, name)), f"{name!r} is a module, not a public name"
    imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert imported == set(names), (f"imported but not in __all__: {sorted(imported - set(names))}; "
                                    f"in __all__ but not imported: {sorted(set(names) - imported)}")


@pytest.mark.parametrize("field", FIELDS)
def test_a_reexported_name_is_the_submodules_object(field):
    """A name two modules define differently must not shadow one of them silently: where the
    package exports a submodule's public name, it is that very object (clashes are renamed)."""
    package = importlib.import_module(f"theorylab.{field}")
    for module in _public_submodules(package):
        for name in getattr(module, "__all__", ()):
            if name in package.__all__:
                assert getattr(package, name) is getattr(module, name), (
                    f"theorylab.{field}.{name} is not {module.__name__}.{name}: rename one of them on export")


def test_clashing_names_are_exported_under_a_module_prefix():
    from theorylab import stochastic, zeroth
    from theorylab.stochastic import dro, fsgdm, nsgdm
    from theorylab.zeroth import allocation, estimators, oracles, saddle

    assert stochastic.NSGDM_METHODS is nsgdm.METHODS and stochastic.FSGDM_METHODS is fsgdm.METHODS
    assert stochastic.DRO_METHODS is dro.METHODS
    assert zeroth.ESTIMATOR_LAWS is estimators.LAWS and zeroth.ALLOCATION_LAWS is allocation.LAWS
    assert zeroth.ORACLE_NOISES is oracles.NOISES and zeroth.SADDLE_NOISES is saddle.NOISES


def test_notebook_builders_live_beside_the_notebooks_one_per_notebook():
    repo = ROOT.parent
    assert not sorted(ROOT.rglob("_build_notebook*.py")), "notebook builders belong in notebooks/builders/"
    notebooks = {p.stem for p in (repo / "notebooks").glob("*.ipynb")}
    builders = {p.stem for p in (repo / "notebooks" / "builders").glob("*.py") if not p.stem.startswith("_")}
    assert notebooks == builders, (sorted(notebooks - builders), sorted(builders - notebooks))
    for paper_id in sorted(builders):
        tree = ast.parse((repo / "notebooks" / "builders" / f"{paper_id}.py").read_text())
        assert any(isinstance(n, ast.FunctionDef) and n.name == "cells" for n in tree.body), paper_id


def test_kernel_files_follow_the_naming_rule():
    """``_kernels.py``, or ``_kernels_<module>.py`` named after a module of the package."""
    for field in FIELDS:
        for path in (ROOT / field).glob("_kernels*.py"):
            topic = path.stem[len("_kernels_"):] if path.stem != "_kernels" else None
            assert topic is None or (ROOT / field / f"{topic}.py").exists(), (
                f"theorylab/{field}/{path.name}: name kernel files after the module they serve")
