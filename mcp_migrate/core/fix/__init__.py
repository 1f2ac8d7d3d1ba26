"""Fix mode, one job per module: edits (what rules describe), builders (edits for common
removals), nodes (new syntax), apply (one transformer pass), imports, orphans, layout, preserve
(bytes LibCST loses) and loop (the fix loop). Importing this package loads none of them."""
