"""Fixed golden files gain no `ruff check --select F,I,E501` finding (issue 12, defect 12):
no unused import or local, no undefined name, imports where isort puts them, lines within
the file's line length (the project's `line-length`, as the fix itself reads it)."""

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mcp_migrate.core.settings import STRATEGIES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "migrate"
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


def ruff_codes(data: bytes, path: Path) -> Counter:
    proc = subprocess.run(
        [RUFF, "check", "--select", "F,I,E501", "--output-format", "json", "--stdin-filename", str(path), "-"],
        input=data,
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return Counter(item["code"] for item in json.loads(proc.stdout))


@pytest.mark.skipif(RUFF is None, reason="ruff is a test dependency")
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.py")), ids=lambda p: p.stem)
def test_fixed_golden_gains_no_ruff_finding(path: Path, strategy: str):
    fixed = path.with_name(f"{path.name}.{strategy}.fixed")
    gained = ruff_codes(fixed.read_bytes(), path) - ruff_codes(path.read_bytes(), path)
    assert gained == Counter(), gained


FIX_GOLDENS = sorted(
    (path, fixed)
    for path in (ROOT / "fixtures").glob("*/fix_*.py")
    for fixed in (path.with_name(path.name + ".fixed"), path.with_name(path.name + ".unsafe.fixed"))
    if fixed.exists() and "latin1" not in path.name  # ruff reads UTF-8 only
)


@pytest.mark.skipif(RUFF is None, reason="ruff is a test dependency")
@pytest.mark.parametrize("path, fixed", FIX_GOLDENS, ids=lambda p: p.name)
def test_rule_fix_golden_gains_no_ruff_finding(path: Path, fixed: Path):
    gained = ruff_codes(fixed.read_bytes(), path) - ruff_codes(path.read_bytes(), path)
    assert gained == Counter(), gained
