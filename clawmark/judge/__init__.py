"""The closed-loop judge: after each executor turn, checks in code, a hidden supervisor, the
firewall, a user simulator, a deterministic rewriter, a leak audit, and the stop order.

One cycle, as the attempt runner drives it (names from the modules below):

    evidence = Evidence.from_attempt(messages, results_copy)
    checks = run_checks(task, results_copy, check_image())           # own container, network none
    judgement = judge_turn(task, evidence, checks, supervisor_chat, turn=n, max_turns=1 + followups,
                           snapshot=snapshot)                           # raises SupervisorFailed
    view = firewall(judgement.decision)                                 # four fields only
    sim = simulate(task, view, evidence, simulator_chat, turn=n, max_turns=...)   # if continue
    feedback = rewrite(view, sim, task.language); flags = audit_followup(feedback, task)
    cycle = Cycle(turn=n, gate=completion_gate(turn_result), decision=judgement.decision, ...)
    next_action(cycle, followups_left=...)  ->  None (send feedback) or the final Status
    resolve_outcome(cycles, task)           ->  ClosedLoopOutcome (status, passed, best score/turn)
"""
