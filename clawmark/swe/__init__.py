"""Patch tasks (SWE-bench / Claw-SWE-Bench protocol).

Runner side: `environment` (instance container, history stripped and verified), `history`,
`patch` + `patch_clean` (extraction and cleaning), `predictions`, `apply` (the apply chain),
`evaluate` (one prediction in a fresh container), `evaluation_run` (a whole predictions set),
`eval_region` (the nonce-marked test region, the harness exit code, the output cap),
`instance_image`, all shell work going through the `ExecTarget` seam (clawmark/runtime/exec_target.py).
Grading side: `parsers`, `grading`, `report`, `eval_script`.
"""
