"""clawmark: benchmark pipeline for agent harnesses (claws) crossed with models."""

__version__ = "0.1.0"

# Bumped whenever the fixed protocol (prompts, budgets, images, extraction, evaluator) changes;
# every result row carries it so rows of different protocols are never compared silently.
# 2: the closed-loop runtime preamble, watchdogs, a step limit for every claw, the $10 cost cap.
PROTOCOL_VERSION = "2"
