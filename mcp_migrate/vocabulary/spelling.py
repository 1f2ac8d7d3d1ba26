"""How a fix may spell a standard-library name it needs without clashing with the file's own
names."""

from __future__ import annotations

import re

import libcst as cst

from mcp_migrate.core.fix.import_block import unconditional_import_names
from mcp_migrate.core.fix.nodes import attribute_chain


class Spelling:
    """How a fix may refer to `module.name` in this file: the bare name with an added
    `from module import name`, or the dotted path with `import module`, whichever does not clash
    with a name the file already uses for something else. None when both clash."""

    def __init__(self, context) -> None:
        self.context = context
        self._identifiers: dict = {}

    def _unconditional(self) -> set:
        """Names bound by imports on every platform: one imported only under `if os.name ==
        "nt":` would be a NameError elsewhere (issue 20 §4)."""
        found = self._identifiers.get(("", "unconditional"))
        if found is None:
            found = self._identifiers[("", "unconditional")] = unconditional_import_names(self.context.module)
        return found

    def uses(self, name: str) -> bool:
        """Does the file's text hold `name` as a whole word? A superset of the identifiers the
        file binds or reads (comments and strings count too), answered from the bytes instead
        of a second walk of the module: at worst a fix takes the dotted spelling."""
        found = self._identifiers.get(name)
        if found is None:
            pattern = re.compile(rb"(?<![\w.])" + re.escape(name.encode()) + rb"(?!\w)")
            found = self._identifiers[name] = pattern.search(self.context.data) is not None
        return found

    def spell(self, module: str, name: str):
        """(expression, import) for `module.name`, or None."""
        resolver = self.context.resolver
        if resolver.qualified(cst.Name(name)) == f"{module}.{name}" and name in self._unconditional():
            return cst.Name(name), (module, name)
        if not self.uses(name):
            return cst.Name(name), (module, name)
        top = module.partition(".")[0]
        dotted = attribute_chain(f"{module}.{name}")
        if resolver.qualified(dotted) == f"{module}.{name}" or not self.uses(top):
            return dotted, (module, None)
        return None
