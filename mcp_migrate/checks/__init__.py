"""The rule classes, one per module. `all_rules()` is the registry the engine selects from."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def all_rules() -> tuple:
    from mcp_migrate.checks.ha001_annotation_trust import AnnotationTrust
    from mcp_migrate.checks.ha002_approval_disabled import ApprovalDisabled
    from mcp_migrate.checks.rt001_roots_request import RootsRequest
    from mcp_migrate.checks.rt002_roots_provider import RootsProvider
    from mcp_migrate.checks.rt003_roots_capability import RootsCapabilityDeclared
    from mcp_migrate.checks.rt004_list_changed_send import ListChangedSend
    from mcp_migrate.checks.rt005_list_changed_handler import ListChangedHandler
    from mcp_migrate.checks.rt006_list_changed_flag import ListChangedFlag
    from mcp_migrate.checks.rt101_root_uri_scheme import RootUriScheme
    from mcp_migrate.checks.rt102.rule import NaiveFileUri
    from mcp_migrate.checks.rt103_roots_as_sandbox import RootsAsSandbox

    return (
        RootsRequest,
        RootsProvider,
        RootsCapabilityDeclared,
        ListChangedSend,
        ListChangedHandler,
        ListChangedFlag,
        RootUriScheme,
        NaiveFileUri,
        RootsAsSandbox,
        AnnotationTrust,
        ApprovalDisabled,
    )
