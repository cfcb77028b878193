#!/bin/bash
# console.sh 'COMMAND' ['COMMAND' ...]: send commands to the ops console and print its replies.
dir=/tmp_workspace/clawbench/console
printf '%s\n' "$@" > "$dir/in"
cat "$dir/out"
