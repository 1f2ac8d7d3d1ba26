"""RT102 naive-file-uri, the largest rule, in parts: rule (what the walk collects and
reports), frames (what it learns per function), fixes (the rewrites it proposes),
vocabulary (messages, names and small predicates)."""
