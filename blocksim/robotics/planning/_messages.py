"""Values shown in messages as the user wrote them: :func:`blocksim._messages.plain` (one
helper for every layer; ``f"{value!r}"`` of a numpy scalar would print ``np.float64(-0.5)``)."""

from blocksim._messages import plain

__all__ = ["plain"]
