"""The closed-loop judge: after each executor turn, checks in code, a hidden supervisor, the
firewall, a user simulator, a deterministic rewriter, a leak audit that stops leaking
follow-ups, and the stop order. Everything the executor produced reaches the judges inside the
attempt's fence (fence.py): data, never instructions.

One cycle, as the attempt runner drives it (names from the modules below):

    evidence = Evidence.from_attempt(messages, results_copy)
    checks = run_checks(task, results_copy, check_image())           # own container, network none
    fence = Fence.new()                                                 # once per attempt
    judgement = judge_turn(task, evidence, checks, supervisor_chat, turn=n, max_turns=1 + followups,
                           snapshot=snapshot, fence=fence)              # raises SupervisorFailed
    view = firewall(judgement.decision)                                 # four fields only
    sent = gated_follow_up(task, view, evidence, simulator_chat, turn=n, max_turns=..., snapshot=snapshot,
                           fence=fence)  # if continue: simulate, rewrite, leak audit, redacted retry, neutral line
    cycle = Cycle(turn=n, gate=completion_gate(turn_result), decision=judgement.decision,
                  feedback=sent.message, leak_flags=sent.flags, leak_blocked=sent.blocked, ...)
    next_action(cycle, followups_left=...)  ->  None (send feedback) or the final Status
    resolve_outcome(cycles, task)           ->  ClosedLoopOutcome (status, passed, best score/turn)
"""
