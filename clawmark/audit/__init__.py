"""Secret scan of a finished sweep (`clawmark audit SWEEP_ID`): provider keys, `.privacy`
values and each task's hidden material, wherever they should never be."""

from clawmark.audit.scan import AuditIncomplete, AuditReport, Finding, audit_sweep
from clawmark.audit.secrets import Secret, environment_secrets

__all__ = ["AuditIncomplete", "AuditReport", "Finding", "Secret", "audit_sweep", "environment_secrets"]
