"""The one error type for bad input from a user.

Every check in :mod:`lmdk_core.foundation.validation` (and every reader, option and
setting check above it) raises :class:`InputError` with a message that says what is
wrong and how to fix it. The CLI turns it into exit status 2 and one line on stderr; the
app turns it into ``st.error``.
"""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input from a user: the message is meant to be shown as is."""
