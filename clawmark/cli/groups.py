"""A Typer group whose first argument, when it is not a sub-command, goes to a default command:
`clawmark report SWEEP_ID` next to `clawmark report pareto PATH`."""

from __future__ import annotations

from typer.core import TyperGroup


def default_command_group(default: str) -> type[TyperGroup]:
    class DefaultCommandGroup(TyperGroup):
        def resolve_command(self, ctx, args):  # type: ignore[no-untyped-def]
            if args and args[0] not in self.commands and not args[0].startswith("-"):
                args = [default, *args]
            return super().resolve_command(ctx, args)

    return DefaultCommandGroup
