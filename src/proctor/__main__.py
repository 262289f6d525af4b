"""`python -m proctor` and the `proctor` command: the CLI, its start-up kept out of the cyclic
collector's walks.

Importing the CLI makes objects that live as long as the process (modules, their classes,
functions and constants); the collector would walk them again at each of its passes, about a
tenth of `proctor --help` and of a short run. They are loaded with it paused and then frozen
(`gc.freeze`: never walked again, still freed by reference counting); it runs as before on
what the command itself makes."""

from __future__ import annotations

import gc


def main() -> None:
    gc.disable()
    try:
        from proctor.cli.app import main as cli
    finally:
        gc.freeze()
        gc.enable()
    cli()


if __name__ == "__main__":
    main()
