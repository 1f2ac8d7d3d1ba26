"""The preview is the fix (issue 33 §3): on every fixture, what `check` previews with unsafe
fixes on (full output and SARIF show these proposals) is exactly what `fix --diff
--unsafe-fixes` writes, file by file, multi-file projects included (their client's fix depends
on the server's rewrite, core.coordination). No fix is applied that was not previewed, and no
preview promises a fix that is not applied.

A file's previews are one per (rule, safety), each computed alone on the checked tree; where
they touch different lines they are laid together and must give the fixed file byte for byte.
A rule whose own fixes overlap (two requests in one tool) has its preview continued pass by
pass as `fix` applies them (core.fix.loop.continued_previews). Where two rules' fixes change
the same code they nest: `fix --unsafe-fixes` applies one and the other's finding is gone with
it, while each rule's preview shows its own change (plain `fix` applies exactly that one), so
the previews are not the file's whole fix: those files are listed in NESTED, with why, and the
test fails when one of them no longer differs (unlist it)."""

from __future__ import annotations

import difflib

import pytest
from fixture_units import FIXTURES, units

from mcp_migrate.run.proposals import propose_fixes
from mcp_migrate.run.records import CheckOptions
from mcp_migrate.run.runner import run_check, run_fix

UNITS = units()
APPLIED = ("safe", "unsafe", "marker")  # display-only suggestions are never applied

#: Files whose fixes nest (two previews change the same lines), and why.
NESTED = {
    # RT003's unsafe fix removes the roots capability whose `listChanged` RT006's safe fix removes.
    "RT003/capability_shapes.py": "RT003 over RT006",
    "RT003/fix_capability_local.py": "RT003 over RT006",
    "RT003/fix_capability_sdk_under_try.py": "RT003 over RT006",
    "RT003/star_import_capabilities.py": "RT003 over RT006",
    "RT006/expected_literal.py": "RT003 over RT006",
    "RT006/fix_flags.py": "RT003 over RT006",
    "RT006/fix_off_flags.py": "RT003 over RT006",
    "RT006/mcp_alias_import.py": "RT003 over RT006",
    "RT006/raw_mapping.py": "RT003 over RT006",
    "RT006/roots_capability_v1.py": "RT003 over RT006",
    "RT006/roots_capability_v2.py": "RT003 over RT006",
    "migrate/client_computed_callback.py": "RT003 over RT006",
}


def _lines(data: bytes) -> list:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def _edits(old: bytes, new: bytes) -> list:
    a, b = _lines(old), _lines(new)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [(i1, i2, b[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def laid_together(old: bytes, news: list):
    """`old` with every preview's changes applied, or None when two change the same lines."""
    edits = sorted(edit for new in news for edit in _edits(old, new))
    out, pos = [], 0
    a = _lines(old)
    for i1, i2, repl in edits:
        if i1 < pos:
            return None
        out += a[pos:i1] + repl
        pos = i2
    return "".join(out + a[pos:]).encode("utf-8", "surrogateescape")


def previews_and_fixes(target: str) -> tuple:
    """({path: [(code, unsafe?, FixProposal)]} of `check --unsafe-fixes`'s previews of fixes
    `fix` applies, {path: fixed bytes or None} of `fix --diff --unsafe-fixes`)."""
    run = propose_fixes(run_check([target], CheckOptions(previews=True, unsafe=True)))
    applied = {(f.path, f.code, f.fix != "safe") for f in run.findings if f.fix in APPLIED}
    previews: dict = {}
    for (path, code, unsafe), proposal in sorted(run.fixes.items()):
        if (path, code, unsafe) in applied:
            previews.setdefault(path, []).append((code, unsafe, proposal))
    fixed = {o.result.path: o.result.fixed_source for o in run_fix([target], CheckOptions(unsafe=True), True).outcomes}
    return previews, fixed


@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_the_preview_is_what_fix_writes(unit, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    target = unit.path.relative_to(FIXTURES).as_posix()
    previews, fixed = previews_and_fixes(target)
    for path in sorted(set(previews) | {p for p, new in fixed.items() if new is not None}):
        mine = previews.get(path, [])
        new = fixed.get(path)
        assert mine, f"{path}: fix changes it, check previews nothing"
        assert new is not None, f"{path}: check previews {[(c, u) for c, u, _ in mine]}, fix changes nothing"
        together = laid_together(mine[0][2].old, [p.new for _, _, p in mine])
        if path in NESTED:
            assert together != new, f"{path} is listed in NESTED, but its previews now are its fix: unlist it"
            continue
        assert together is not None, f"{path}: previews {[(c, u) for c, u, _ in mine]} overlap (nested fixes?)"
        assert together.decode("utf-8", "surrogateescape") == new.decode("utf-8", "surrogateescape"), path


@pytest.mark.parametrize("cache", [False, True])
def test_the_readme_example_previews_the_client_fix_fix_applies(cache, monkeypatch):
    """README's first command: the client's RT002 preview passes the directories to the
    migrated tool, as `fix --unsafe-fixes` does, not a review comment (issue 33 §3)."""
    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    monkeypatch.chdir(FIXTURES.parent)
    monkeypatch.setenv("NO_COLOR", "1")
    args = ["check", "fixtures/example"] + ([] if cache else ["--no-cache"])
    if cache:
        CliRunner().invoke(cli, args)  # the second run's results come from the cache
    out = CliRunner().invoke(cli, args).stdout
    passes = '+             print(await session.call_tool("find_files", {"pattern": "*.py", "directories": ["/home/user/project"]}))'
    assert passes in out.splitlines()
    assert "mcp-migrate: RT002 review" not in out
