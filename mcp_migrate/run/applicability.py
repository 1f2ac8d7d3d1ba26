"""Which fixes a file's config lets `fix` apply, and as what: ruff's `fixable` / `unfixable` and
`extend-safe-fixes` / `extend-unsafe-fixes` (issue 22 §6).

- A rule that is not fixable (outside `fixable`, default all, or in `unfixable`) keeps its
  findings but loses their fixes: reported with fix `none`, never applied, no preview (ruff drops
  the diagnostic's fix).
- `extend-safe-fixes` makes a rule's unsafe fixes safe (plain `fix` applies them);
  `extend-unsafe-fixes` makes its safe fixes unsafe (only `--unsafe-fixes` applies them). When
  both name a rule, the more specific entry wins (`RT001` over `RT0` over `RT` over `ALL`), and at
  equal specificity `extend-unsafe-fixes` does, as in ruff.

The engine (`core/`) knows only a fix's own kind, and this change could not touch it; so the fix
run is staged here around `fix_bytes` with narrowed selections, and the reported kinds are
adjusted after the engine (and after the results cache, which keeps the engine's own). A knob in
the core's fix loop (which findings' fixes to take) would make this one pass; see the report of
issue 22.
"""

from __future__ import annotations

from typing import NamedTuple

from mcp_migrate.core.findings import Suppressed
from mcp_migrate.core.record import replace
from mcp_migrate.project import selection


class FixPolicy(NamedTuple):
    unfixable: frozenset = frozenset()
    forced_safe: frozenset = frozenset()
    forced_unsafe: frozenset = frozenset()

    @property
    def active(self) -> bool:
        return bool(self.unfixable or self.forced_safe or self.forced_unsafe)

    def kind(self, code: str, kind: str) -> str:
        """A finding's fix kind under this policy."""
        if kind == "none":
            return kind
        if code in self.unfixable:
            return "none"
        if kind in ("display", "marker"):  # never a fix `fix` applies: no safety to change
            return kind
        if code in self.forced_unsafe:
            return "unsafe"
        if code in self.forced_safe:
            return "safe"
        return kind

    def adjusted(self, code: str) -> bool:
        """Whether this policy changes the fixes of `code` at all."""
        return code in self.unfixable or code in self.forced_safe or code in self.forced_unsafe


NO_POLICY = FixPolicy()


def fix_policy(config) -> FixPolicy:
    """The FixPolicy of a Config's `fixable`, `unfixable`, `extend-safe-fixes`, `extend-unsafe-fixes`."""
    fixable = getattr(config, "fixable", None)
    unfixable = getattr(config, "unfixable", ())
    safe = getattr(config, "extend_safe_fixes", ())
    unsafe = getattr(config, "extend_unsafe_fixes", ())
    if fixable is None and not (unfixable or safe or unsafe):
        return NO_POLICY
    everything = selection.expand(["ALL"])
    allowed = selection.expand(fixable) if fixable is not None else everything
    forced_safe, forced_unsafe = selection.fix_safety(safe, unsafe)
    return FixPolicy(frozenset((everything - allowed) | selection.expand(unfixable)), forced_safe, forced_unsafe)


def adjust(result, policy: FixPolicy):
    """`result` with its findings' (and suppressed findings') fix kinds as the policy has them."""
    if not policy.active:
        return result

    def one(finding):
        kind = policy.kind(finding.code, finding.fix)
        return finding if kind == finding.fix else replace(finding, fix=kind)

    result.findings = [one(f) for f in result.findings]
    result.suppressed = [Suppressed(one(f), kind, reason) for f, kind, reason in result.suppressed]
    return result


def _narrowed(settings, codes: frozenset):
    return replace(
        settings,
        select=frozenset(codes),
        extend_apis=tuple(api for api in settings.extend_apis if api[0] in codes),
    )


def staged_fix(data: bytes, display: str, settings, unsafe: bool, policy: FixPolicy, fix_bytes, check_bytes):
    """What `fix_bytes(data, display, settings, unsafe=unsafe)` applies, under `policy`: first the
    promoted rules' fixes of both kinds (unless `unsafe` applies everything anyway), then every
    other allowed fix of the kinds `unsafe` allows; what remains is the full selection's check of
    the output. Findings keep the engine's kinds (the caller adjusts them)."""
    select = settings.select
    if not policy.active or not (select & (policy.unfixable | policy.forced_safe | policy.forced_unsafe)):
        return fix_bytes(data, display, settings, unsafe=unsafe)
    allowed = select - policy.unfixable
    stages = []
    if unsafe:
        stages.append((allowed, True))
    else:
        promoted = allowed & policy.forced_safe - policy.forced_unsafe
        if promoted:
            stages.append((promoted, True))
        stages.append((allowed - policy.forced_unsafe, False))
    current, applied = data, []
    for codes, kinds in stages:
        if not codes:
            continue
        step = fix_bytes(current, display, _narrowed(settings, codes), unsafe=kinds)
        if step.errors:  # a fix whose output does not parse: the file stays as it was
            result = check_bytes(data, display, settings)
            result.errors.extend(step.errors)
            return result
        if step.fixed_source is not None:
            current = step.fixed_source
            applied.extend(step.applied)
    result = check_bytes(current, display, settings)
    result.fixed_source = current if current != data else None
    result.applied = applied if result.fixed_source is not None else []
    return result
