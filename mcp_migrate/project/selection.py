"""Rule selection: code prefixes, ruff-style select/ignore layering, per-file Settings.

Kept apart from config.py so the CLI and the config loader validate codes the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import UNFILTERED_CODES
from mcp_migrate.core.settings import Settings

#: The one message for an empty code, from the CLI (`--select ""`) and the config (`select = [""]`) alike.
EMPTY_CODE = "empty rule code (name codes or prefixes, such as RT001 or RT)"


class UnknownCodeError(ValueError):
    """A code or prefix that names no rule; the caller adds where it came from."""

    def __init__(self, code: str):
        super().__init__(f"unknown rule code: {code}" if code.strip() else EMPTY_CODE)
        self.code = code


def split_codes(text: str) -> tuple:
    """`"RT001, RT4"` -> `("RT001", "RT4")` (CLI form: comma-separated)."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def expand(specs: Iterable[str]) -> frozenset:
    """Rule codes named by codes or prefixes (`RT` = every RT rule, `RT00` = RT001..RT009,
    `ALL`). E999/E902 are accepted but expand to nothing: they are never filtered."""
    codes = load_catalog()
    out: set[str] = set()
    for spec in specs:
        if not isinstance(spec, str):
            raise UnknownCodeError(repr(spec))
        key = spec.strip().upper()
        if key == "ALL":
            out.update(codes)
            continue
        matched = [c for c in codes if c.startswith(key)] if key else []
        if not matched and not any(u.startswith(key) for u in UNFILTERED_CODES if key):
            raise UnknownCodeError(spec)
        out.update(matched)
    return frozenset(out)


def specificity(spec: str) -> int:
    """How narrowly a code or prefix names rules, for settling entries that disagree: `ALL`
    least, then longer prefixes, a full code most (ruff's selector specificity)."""
    key = spec.strip().upper()
    return 0 if key == "ALL" else len(key)


def fix_safety(extend_safe: Sequence = (), extend_unsafe: Sequence = ()) -> tuple:
    """(codes whose fixes are all safe, codes whose fixes are all unsafe) for the config keys
    `extend-safe-fixes` and `extend-unsafe-fixes`, as ruff settles them: for a rule both name,
    the more specific entry wins, and `extend-unsafe-fixes` at equal specificity."""
    chosen: dict = {}
    for specs, kind in ((extend_safe, "safe"), (extend_unsafe, "unsafe")):
        for spec in specs:
            weight = specificity(spec)
            for code in expand([spec]):
                if code not in chosen or weight >= chosen[code][0]:
                    chosen[code] = (weight, kind)
    safe = frozenset(code for code, (_, kind) in chosen.items() if kind == "safe")
    return safe, frozenset(chosen) - safe


def check_exact(code: str) -> str:
    """A single full rule code (for `extend-apis` keys and `explain`)."""
    key = code.strip().upper()
    if key not in load_catalog():
        raise UnknownCodeError(code)
    return key


def resolve(layers: Sequence) -> frozenset:
    """Apply `(select, ignore[, extend_select])` layers in priority order, lowest first, like
    ruff: a layer's `select` (when not None) replaces the set, so a CLI `--select` also drops
    config ignores; its `extend-select` is added; its `ignore` is then removed."""
    selected = frozenset(load_catalog())
    for layer in layers:
        select, ignore = layer[0], layer[1]
        extend = layer[2] if len(layer) > 2 else None
        if select is not None:
            selected = expand(select)
        if extend:
            selected = selected | expand(extend)
        if ignore:
            selected = selected - expand(ignore)
    return selected


class RuleSelector:
    """Builds each file's engine Settings: the selection minus matching `per-file-ignores`,
    plus the run's migration settings (strategy, parameter, env_var; only those set).

    Settings objects are shared between files with the same selection (cheap to pickle and
    compare)."""

    def __init__(
        self, selected: frozenset, per_file_ignores: Sequence = (), extend_apis: Sequence = (), migration=None
    ):
        # per_file_ignores: [(PatternSet, frozenset of codes)]
        self.selected = selected
        self.per_file_ignores = list(per_file_ignores)
        self.extend_apis = tuple(extend_apis)
        self.migration = dict(migration or {})
        self._cache: dict = {}

    def settings_for(self, path: str):
        """The file's Settings, without their rule classes: `mcp_migrate.api` adds those when a
        file passes its selection's gate (core.gates), so planning a run imports no rule."""
        select = self.selected
        for patterns, codes in self.per_file_ignores:
            if patterns.matches_with_parents(os.path.abspath(path)):
                select = select - codes
        settings = self._cache.get(select)
        if settings is None:
            apis = tuple((code, names) for code, names in self.extend_apis if code in select)
            settings = self._cache[select] = Settings(select=select, extend_apis=apis, **self.migration)
        return settings


def selection_for(
    config,
    cli_select: Sequence | None,
    cli_ignore: Sequence | None,
    cli_strategy: str | None = None,
    cli_extend_select: Sequence | None = None,
    apply_suggestions: bool = False,
) -> RuleSelector:
    """The RuleSelector for a loaded Config plus CLI overrides (codes already split)."""
    selected = resolve(
        [(config.select, config.ignore, config.extend_select), (cli_select, cli_ignore, cli_extend_select)]
    )
    migration = {
        "strategy": cli_strategy or config.strategy,
        "parameter": config.parameter,
        "env_var": config.env_var,
        "max_file_size": config.max_file_size,
        "apply_suggestions": apply_suggestions or None,
    }
    migration = {key: value for key, value in migration.items() if value is not None}
    return RuleSelector(selected, config.per_file_ignore_sets(), config.extend_apis, migration)
