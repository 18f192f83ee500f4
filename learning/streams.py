"""Independent random streams from one seed: one per role, so that no two draw in lockstep.

Handing the same seed to two policies makes them draw the same numbers: with seed 7 the engine's
path and tool picks matched one for one, which correlates their exploration. `stream_seed(seed,
i)` is the seed of the i-th child of `numpy.random.SeedSequence(seed).spawn(...)`, computed
directly (a child's entropy is the parent's with `spawn_key=(i,)`), so a caller needs no shared
`SeedSequence` object and the same (seed, i) always gives the same stream.

>>> stream_seed(7, 0) == stream_seed(7, 0), stream_seed(7, 0) == stream_seed(7, 1)
(True, False)
>>> stream_seed(None, 3) is None
True
"""

import numpy as np

__all__ = ["stream_seed"]


def stream_seed(seed: int | None, stream: int) -> int | None:
    """The seed of stream `stream` derived from `seed` (None stays None: fresh entropy).

    Equal to the first word of `SeedSequence(seed).spawn(stream + 1)[stream]`'s state:

    >>> child = np.random.SeedSequence(5).spawn(3)[2]
    >>> stream_seed(5, 2) == int(child.generate_state(1, np.uint64)[0])
    True
    """
    if seed is None:
        return None
    child = np.random.SeedSequence(seed, spawn_key=(stream,))
    return int(child.generate_state(1, np.uint64)[0])
