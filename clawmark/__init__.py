"""clawmark: benchmark pipeline for agent harnesses (claws) crossed with models."""

__version__ = "0.1.0"

# Bumped whenever the fixed protocol (prompts, budgets, images, extraction, evaluator) changes;
# every result row carries it so rows of different protocols are never compared silently.
PROTOCOL_VERSION = "1"
