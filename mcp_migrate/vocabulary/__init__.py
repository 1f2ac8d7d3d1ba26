"""The vocabulary the rules share, one floor below them: calls, receivers, the Roots wire
words, a project's own roots API, types and stores, identifier words, spellings, and what lies
one call or one import away (wrappers, imported asks). Nothing here is a catalog rule, and
nothing here imports a rule (tests/test_architecture.py): a rule's own parts live beside it in
`mcp_migrate/rules/`."""
