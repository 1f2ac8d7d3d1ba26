"""Migration rewrites off Roots (SEP-2577): tool parameters, resource URIs, server configuration.

Rules call these builders when they report; the builders return a `Fix` (always unsafe: the
tool's interface or the server's start-up contract changes) or say why no rewrite applies.
Rewrites import the core only, never a rule: a rule says where a rewrite is wanted, the rewrite
decides whether one is safe. Importing this package loads none of its modules.
"""
