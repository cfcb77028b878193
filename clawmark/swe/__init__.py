"""Patch tasks (SWE-bench / Claw-SWE-Bench protocol).

Runner side: `environment` (instance container, history stripped and verified), `history`,
`patch` + `patch_clean` (extraction and cleaning), `predictions`, `apply` (the apply chain),
`evaluate` (one prediction in a fresh container), `evaluation_run` (a whole predictions set),
`instance_image`, all shell work going through the `shell.Shell` seam.
Grading side: `parsers`, `grading`, `report`, `eval_script`.
"""
