"""Child processes that tests interrupt with a real SIGINT."""

import signal


def sigint_default() -> None:
    """``preexec_fn`` of a child that a test stops with SIGINT: restore the default handling, so
    that Python in the child turns it into KeyboardInterrupt. A test runner's worker, or a
    suite started in the background (``cmd &`` in a script), may ignore SIGINT, and an ignored
    signal stays ignored in every child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
