"""Data input: files, frames and arrays into integer-coded :class:`Dataset` objects."""

from .dataset import Dataset
from .reader import MISSING_TOKENS, ConstantColumnWarning, ContinuousColumnWarning, read_data

__all__ = ["Dataset", "read_data", "ConstantColumnWarning", "ContinuousColumnWarning", "MISSING_TOKENS"]
