"""New syntax for fixes: nodes built from parts, and planned replacements put into a piece of
the tree (by identity of the original nodes)."""

from __future__ import annotations

import libcst as cst


class Substitute(cst.CSTTransformer):
    """Put planned replacements into a detached piece of the tree (by identity of the original)."""

    def __init__(self, new_by_id: dict):
        super().__init__()
        self.new_by_id = new_by_id

    def on_leave(self, original_node, updated_node):
        return self.new_by_id.get(id(original_node), updated_node)
