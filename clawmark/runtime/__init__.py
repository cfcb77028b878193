"""Docker runtime: engine check (`engine`), content-hashed images (`images`), disposable
sandboxes with limits and host-side deadlines (`sandbox`), the gateway network policy
(`network`) and the leak janitor (`janitor`). Typed errors live in `errors`."""
