"""Golden fix files: fixtures/<CODE>/fix_*.py, with the expected output beside each input as
`.py.fixed` (safe fixes) and, where unsafe fixes change more, `.py.unsafe.fixed`; a display-only
rule's suggestions (never applied by fix: RT102, RT103) as `.py.suggested`."""

from pathlib import Path

import libcst as cst
import pytest

from mcp_migrate.api import fix_bytes
from mcp_migrate.core.catalog import load_catalog

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INPUTS = sorted(FIXTURES.glob("*/fix_*.py"))


def _expected(path: Path, unsafe: bool) -> bytes:
    if unsafe:
        candidate = path.with_name(path.name + ".unsafe.fixed")
        if candidate.exists():
            return candidate.read_bytes()
    return path.with_name(path.name + ".fixed").read_bytes()


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_output(path: Path, unsafe: bool):
    data = path.read_bytes()
    result = fix_bytes(data, str(path), unsafe=unsafe)
    assert not result.errors
    out = result.fixed_source if result.fixed_source is not None else data
    assert out == _expected(path, unsafe)
    cst.parse_module(out)
    compile(out, str(path), "exec", dont_inherit=True)
    # Idempotent: fixing the output changes nothing.
    again = fix_bytes(out, str(path), unsafe=unsafe)
    assert again.fixed_source is None
    assert again.applied == []


SUGGESTED = sorted(p for p in INPUTS if p.with_name(p.name + ".suggested").exists())


@pytest.mark.parametrize("path", SUGGESTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_suggestions(path: Path):
    """The display-only suggestions, taken: what a human who applies them gets (parses,
    idempotent); `fix` itself, even with unsafe fixes, leaves such a file alone."""
    data = path.read_bytes()
    result = fix_bytes(data, str(path), unsafe=True, suggestions=True)
    assert not result.errors
    assert result.fixed_source == path.with_name(path.name + ".suggested").read_bytes()
    compile(result.fixed_source, str(path), "exec", dont_inherit=True)
    assert fix_bytes(result.fixed_source, str(path), unsafe=True, suggestions=True).fixed_source is None
    assert fix_bytes(data, str(path), unsafe=True).fixed_source is None


def test_every_fix_rule_has_golden_files():
    """Every rule whose page promises a safe fix has golden files in its folder (the catalog
    says which: RT004, RT005, RT006 today), and so do fixes of several rules together."""
    folders = {p.parent.name for p in INPUTS}
    safe = {code for code, info in load_catalog().items() if info.fix == "safe"}
    assert safe >= {"RT004", "RT005", "RT006"}
    assert safe | {"mixed"} <= folders


def test_byte_level_preservation():
    crlf = fix_bytes((FIXTURES / "RT004/fix_crlf.py").read_bytes(), "x.py").fixed_source
    assert crlf is not None and b"\n" not in crlf.replace(b"\r\n", b"")
    bom = fix_bytes((FIXTURES / "RT004/fix_bom.py").read_bytes(), "x.py").fixed_source
    assert bom.startswith(b"\xef\xbb\xbf")
    latin = (FIXTURES / "RT004/fix_mixed_endings_latin1.py").read_bytes()
    out = fix_bytes(latin, "x.py").fixed_source
    assert b"caf\xe9\r\n" in out and b"\tx = 1  \r\n" in out


def test_larger_expression_is_reported_not_fixed():
    result = fix_bytes((FIXTURES / "RT004/fix_statement.py").read_bytes(), "x.py")
    assert [(f.code, f.line, f.fix) for f in result.findings] == [("RT004", 26, "none")]
