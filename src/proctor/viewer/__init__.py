"""`proctor view`: a local web viewer over a results folder, on 127.0.0.1 only.

It sits above the store and the tasks (it reads runs and grades them purely, in memory, with
the task's current rules — it never writes to the store) and below the CLI.
"""

from proctor.viewer.server import HOST, ViewerServer

__all__ = ["HOST", "ViewerServer"]
