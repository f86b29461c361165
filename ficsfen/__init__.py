"""ficsfen: FEN for FICS-style chess servers."""

__version__ = "0.1.0"
