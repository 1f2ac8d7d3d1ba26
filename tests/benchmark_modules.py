"""A script of benchmarks/ loaded as a module for its tests, with its folder importable while it
loads (its `from corpus import ...`, `from one_file import ...`): the scripts are not a package."""

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(script: str, name: str):
    """benchmarks/`script` as the module `name`."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module
