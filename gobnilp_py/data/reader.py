"""Read discrete data from a CSV file, a GOBNILP ``.dat`` file, a DataFrame or an array.

All readers end in :func:`_encode`, which turns a table of labels into integer
codes with validated arities, so every source is checked the same way.
Errors are one line and name the file, row and column at fault.

Why the CSV reader is the :mod:`csv` module and not pandas: pandas silently pads
short rows with empty strings, which would turn a ragged row into a "missing
value" at the wrong place.  Parsing is not a hot path (reading 30,000 rows takes
well under a second); counting, which is, works on the integer codes.

How text values become states (documented in ``docs/conventions.md``)
    A column is *numeric* when every value in it is a decimal number
    (``-2``, ``1``, ``1.0``, ``1e0``, ``.5``; not ``inf``, ``nan`` or ``0x1``).
    Its states are the distinct *numbers*, read exactly (as decimals, never
    through a binary float: ``9007199254740992`` and ``9007199254740993``
    are two states, as are ``1e400`` and ``2e400``), so ``1``, ``1.0``,
    ``01`` and ``1e0`` are one state, labelled by the number (an integral
    value becomes an ``int`` label of any size, any other a ``float``, which
    must then hold it exactly: ``0.10000000000000001`` is refused rather than
    merged with ``0.1``), sorted by value.  Any other column is
    *categorical*: its states are the distinct texts (after stripping
    blanks), sorted as text.  A numeric column that looks continuous (more
    than ``max(20, sqrt(N))`` distinct values, or non-integral values with
    more than 10 distinct ones) gets a :class:`ContinuousColumnWarning`
    naming it: every distinct value would become a state of its own, which
    is almost never what the user wants; discretise first.  A categorical
    column with a different value in every one of at least
    :data:`IDENTIFIER_ROWS` rows is refused: it is an identifier or free
    text (or the file is not data at all), and reading it would copy every
    line into the state names of the outputs.

Declared states (unobserved ones count)
    A pandas categorical column's categories, ``state_names=`` (as pgmpy's)
    and declared arities (``.dat`` files, ``arities=``) are the variable's
    states whether or not the data shows them all, as in pgmpy and bnlearn;
    they change BDeu (the prior's mass is split over more cells) and BIC's
    penalty (``q (r - 1)`` parameters).

Missing values
    The scores need complete data, so a missing value is an error naming the
    row and column, and the ``missing_values`` option.  In text files the
    tokens :data:`MISSING_TOKENS` are missing by default; ``missing_values=``
    replaces them (pandas' ``na_values`` with ``keep_default_na=False``), so
    ``missing_values=[]`` reads ``NA``, ``None`` and ``?`` as states (pgmpy's
    ``child`` and ``insurance`` networks have a state ``None``).  In a
    DataFrame or array only real missing values (NaN, ``None``, ``pd.NA``,
    ``NaT``) are missing unless tokens are given.  An empty field is always
    missing (a state needs a name).

Files
    CSV files may be compressed (gzip, bzip2, xz: recognised by their first
    bytes, whatever the suffix); what a compressed file holds is read in
    pieces and refused once it passes :data:`MAX_DECOMPRESSED_BYTES` (1 GiB),
    so a compression bomb costs a second and no memory.  A folder, a device,
    a binary file, a field over 131,072 characters (the :mod:`csv` module's
    limit) and a delimiter that is not one character are each refused with
    one line.  Names, values and paths in messages are escaped
    (:func:`gobnilp_py._wording.printable`), and a variable name holding a
    control character is refused.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import logging
import lzma
import math
import os
import re
import sys
import warnings
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from .._io import decode_input_text, read_input_bytes
from .._wording import excerpt, has_control, printable
from ..errors import DataError, GobnilpWarning, ParameterError
from .dataset import Dataset

__all__ = ["read_data", "as_dataset", "ConstantColumnWarning", "ContinuousColumnWarning", "MISSING_TOKENS",
           "MAX_DECOMPRESSED_BYTES", "IDENTIFIER_ROWS"]

log = logging.getLogger("gobnilp_py")

#: Tokens read as a missing value in text files by default (after stripping blanks); ``missing_values=``
#: replaces them.  Missing values are not supported by the scores, so any of these is an error.
MISSING_TOKENS = frozenset({"", "NA", "N/A", "NaN", "nan", "null", "NULL", "None", "?"})
#: The most a compressed data file may decompress to (bytes).  Reading holds the text several times over
#: (bytes, str, rows of fields), so a file past this is not readable here anyway; a compression bomb
#: (a few kilobytes that decompress to terabytes) is refused once it passes it.
MAX_DECOMPRESSED_BYTES = 1 << 30
#: A categorical column with a different value in every row, and at least this many rows, is refused
#: (an identifier, free text, or a file that is not data).
IDENTIFIER_ROWS = 10
#: How a missing-value error ends: the option that changes what is missing, in all three spellings.
_MISSING_HINT = ("the scores need complete data; if it is a state, not a missing value, read with "
                 "missing_values= without it (--missing-values, [data] missing_values), e.g. missing_values=[]")


class ConstantColumnWarning(GobnilpWarning):
    """A variable takes one value only: every parent set of it scores the same."""


class ContinuousColumnWarning(GobnilpWarning):
    """A numeric column has so many distinct values that it looks continuous (discretise it first)."""


#: A decimal number as text (what makes a column numeric).
_NUMBER_RE = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
#: More distinct values than this many non-integral ones make a numeric column look continuous.
CONTINUOUS_NONINTEGRAL = 10
#: First bytes of the compressed formats read transparently.
_MAGIC = ((b"\x1f\x8b", "gzip", lambda f: gzip.GzipFile(fileobj=f, mode="rb")), (b"BZh", "bzip2", bz2.BZ2File),
          (b"\xfd7zXZ\x00", "xz", lzma.LZMAFile))
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def _q(text: object) -> str:
    """A name or value from the data, quoted for a message: escaped, and cut at 40 characters.

    Why cut: when the "data" is some other file (a password file named by mistake), its lines
    become names and values; a message must identify them, not copy them.
    """
    return excerpt(str(text))


def continuous_threshold(n_rows: int) -> int:
    """A numeric column with more distinct values than this looks continuous: ``max(20, sqrt(N))``."""
    return max(20, int(math.sqrt(max(n_rows, 0))))


def read_data(
    source: object,
    *,
    header: bool = True,
    delimiter: str | None = None,
    arities: Sequence[int] | Mapping[str, int] | None = None,
    names: Sequence[str] | None = None,
    missing_values: str | Sequence[str] | None = None,
    state_names: Mapping[str, Sequence[object]] | None = None,
) -> Dataset:
    """Read discrete data into a :class:`Dataset`.

    Parameters
    ----------
    source : path, pandas.DataFrame, numpy.ndarray or Dataset
        A path to a CSV file (with or without a header row) or to a GOBNILP
        ``.dat`` file (names line, arities line, whitespace-delimited rows;
        chosen by the ``.dat`` suffix); a DataFrame (column labels become the
        names; a categorical column's categories are its states); or a 2-D
        array.  Values are categorical labels of any type.
    header : bool, default True
        Whether a CSV file's first row holds the variable names.  Files
        without one name their variables ``"0" … "n-1"``.  Ignored for
        ``.dat`` files, frames and arrays.
    delimiter : str, optional
        Field separator of a CSV file; by default guessed from the first
        line (comma, tab, semicolon, else any whitespace).
    arities : sequence or mapping of int, optional
        Declared numbers of states (by position, or by name).  They change
        BIC and BDeu, and must be at least the number of values observed.
        When a column's labels are exactly integers in ``0 … r-1`` its codes
        are those integers, so state ``k`` means label ``k``.
    names : sequence of str, optional
        Variable names, overriding the header or the frame's labels.
    missing_values : str or sequence of str, optional
        The texts that mean "missing" (after stripping blanks), replacing the
        default: :data:`MISSING_TOKENS` (``NA``, ``None``, ``?``, ...) for
        files, none for frames and arrays (there only NaN, ``None`` and
        ``pd.NA`` are missing).  ``[]`` reads ``NA``, ``None`` and ``?`` as
        states.  An empty field is always missing, and a missing value is
        always an error (the scores need complete data).
    state_names : mapping of str to sequence, optional
        A variable's states in order, as pgmpy's ``state_names``: every value
        of the column must be one of them, and those not observed are states
        too (they change BDeu and BIC, as declared arities do).  A text
        listed here is never missing in that column.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        Missing values, ragged rows, a declared arity below the observed
        number of values, a value outside its declared states, a number that
        cannot be kept exactly, an identifier column, duplicate names, fewer
        than 2 rows, no columns, or an unreadable file; the message names the
        file, row and column.

    Examples
    --------
    >>> import numpy as np
    >>> d = read_data(np.array([[0, 1], [1, 1], [1, 0]]))
    >>> d.names, d.arities.tolist(), d.N
    (('0', '1'), [2, 2], 3)
    """
    from .._validation import check_bool, check_missing_values, check_state_names

    header = check_bool(header, "header")
    try:
        tokens = check_missing_values(missing_values)
        declared_states = check_state_names(state_names)
    except ParameterError as exc:
        raise DataError(str(exc)) from None
    opts = _Options(tokens, declared_states)
    if isinstance(source, Dataset):
        if arities is None and names is None and tokens is None and declared_states is None:
            return source
        return _encode(_labels_of(source), names or source.names, arities, source.source, columns_given=True,
                       first_data_line=0, opts=opts.for_memory())
    # A DataFrame exists only once pandas is imported, so an array or a path
    # never pays pandas' import (0.2-0.3 s, more than scoring a small data set).
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(source, pd.DataFrame):
        return _from_frame(source, names=names, arities=arities, opts=opts.for_memory())
    if isinstance(source, np.ndarray):
        return _from_array(source, names=names, arities=arities, opts=opts.for_memory())
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        text = _read_text_file(path)
        shown = printable(path)
        try:
            from .._validation import check_delimiter

            delimiter = check_delimiter(delimiter)
        except ParameterError as exc:
            raise DataError(str(exc)) from None
        if _base_suffix(path) == ".dat":
            table, file_names, declared = _parse_dat(text, shown)
            if arities is None:
                arities = declared
            else:
                _check_same_declared(declared, arities, file_names, shown)
        else:
            table, file_names = _parse_csv(text, shown, header=header, delimiter=delimiter)
        if names is None and file_names is None:
            names = [str(j) for j in range(len(table[0]) if table else 0)]
        first = 3 if _base_suffix(path) == ".dat" else (2 if header else 1)
        return _encode(table, names or file_names, arities, shown, first_data_line=first, opts=opts.for_text())
    raise DataError(
        f"cannot read data from a {type(source).__name__}: give a file path, a pandas DataFrame or a 2-D numpy array")


class _Options:
    """The reading options that act per column: the missing tokens and the declared states."""

    def __init__(self, tokens: tuple[str, ...] | None, states: dict[str, tuple[Any, ...]] | None,
                 missing: frozenset[str] | None = None) -> None:
        self.tokens = tokens
        self.states = states
        self.missing = missing if missing is not None else frozenset({""})
        #: Whether the missing tokens were given (the error then need not suggest the option).
        self.given = tokens is not None

    def for_text(self) -> "_Options":
        """Text files: the default tokens unless given."""
        return _Options(self.tokens, self.states,
                        MISSING_TOKENS if self.tokens is None else frozenset({"", *self.tokens}))

    def for_memory(self) -> "_Options":
        """Frames, arrays, datasets: only real missing values, and the empty string, unless tokens are given."""
        return _Options(self.tokens, self.states, frozenset({"", *(self.tokens or ())}))


# ---------------------------------------------------------------- text files
def _base_suffix(path: Path) -> str:
    """The suffix that says the format (``.csv`` of ``d.csv.gz``), lower case."""
    suffixes = [x.lower() for x in path.suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED_SUFFIXES:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _read_text_file(path: Path) -> str:
    """The text of a data file (decompressed if need be); one-line DataErrors for everything else."""
    shown = printable(path)
    raw = read_input_bytes(path, "data", DataError)
    for magic, kind, opener in _MAGIC:
        if raw.startswith(magic):
            raw = _decompress(raw, kind, opener, shown)
            break
    else:
        if raw.startswith(b"PK\x03\x04"):
            raise DataError(f"data file {shown} is a zip archive; unzip it (gzip, bzip2 and xz files are read "
                            "directly)")
    return decode_input_text(raw, "data", shown, DataError)


def _decompress(raw: bytes, kind: str, opener: Any, shown: str) -> bytes:
    """``raw`` decompressed, read in 1 MiB pieces and refused once past :data:`MAX_DECOMPRESSED_BYTES`.

    Why pieces: ``gzip.decompress`` builds the whole output first, so a
    bomb (10 kB that inflate to 10 GB) exhausts memory before any check;
    the file objects decompress at most what is asked of them.
    """
    cap = MAX_DECOMPRESSED_BYTES
    parts: list[bytes] = []
    total = 0
    try:
        with opener(io.BytesIO(raw)) as fh:
            while True:
                piece = fh.read(min(1 << 20, cap + 1 - total))
                if not piece:
                    break
                parts.append(piece)
                total += len(piece)
                if total > cap:
                    raise DataError(f"data file {shown} decompresses to more than {_size(cap)} ({kind}): a "
                                    f"compression bomb, or data too large to read here; the limit is "
                                    "gobnilp_py.data.reader.MAX_DECOMPRESSED_BYTES")
    except DataError:
        raise
    except Exception as exc:  # zlib.error, OSError, EOFError, lzma.LZMAError: all mean "corrupt"
        raise DataError(f"data file {shown} looks {kind}-compressed but cannot be decompressed: "
                        f"{printable(exc)}") from None
    return b"".join(parts)


def _size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"


def _parse_csv(text: str, src: str, *, header: bool, delimiter: str | None) -> tuple[list[list[str]], list[str] | None]:
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()  # trailing blank lines are not rows
    if not lines:
        raise DataError(f"{src}: the file is empty")
    delim = delimiter if delimiter is not None else _guess_delimiter(lines[0])
    if delim in (None, " ", "whitespace"):
        rows = [ln.split() for ln in lines]
    else:
        reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delim, skipinitialspace=True)
        rows = []
        try:
            for row in reader:
                rows.append(row)
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise DataError(f"{src}, line {reader.line_num}: a field is over {csv.field_size_limit():,} "
                                "characters; this is not a table of discrete values") from None
            raise DataError(f"{src}, line {reader.line_num}: cannot parse CSV: {exc}") from None
    names: list[str] | None = None
    first_line = 1
    if header:
        names = [c.strip() for c in rows[0]]
        rows = rows[1:]
        first_line = 2
        if names and all(_is_number(c) for c in names) and rows and all(_is_number(c) for c in rows[0]):
            log.warning("%s: the header row %s looks like data; pass header=False (--no-header) if the file has no header",
                        src, _q(",".join(names[:5])))
    elif len(rows) > 1 and rows[0] and not any(_is_number(c) for c in rows[0]) and all(_is_number(c) for c in rows[1]):
        log.warning("%s: the first row %s looks like a header (no number in it, only numbers below); it is read as "
                    "data because header=False (--no-header) was given", src, _q(",".join(c.strip() for c in rows[0][:5])))
    width = len(names) if names is not None else (len(rows[0]) if rows else 0)
    if width == 1 and delimiter is not None:
        _refuse_one_field(lines[0], delimiter, src)
    for r, row in enumerate(rows):
        if not row or (len(row) == 1 and not row[0].strip() and width > 1):
            raise DataError(f"{src}, line {r + first_line}: blank line inside the data")
        if len(row) != width:
            raise DataError(f"{src}, line {r + first_line}: ragged row with {len(row)} fields, expected {width}")
    return [[c.strip() for c in row] for row in rows], names


def _parse_dat(text: str, src: str) -> tuple[list[list[str]], list[str], list[int]]:
    lines = [ln for ln in text.splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 2:
        raise DataError(f"{src}: a .dat file needs a names line and an arities line")
    names = lines[0].split()
    ar_tokens = lines[1].split()
    if len(ar_tokens) != len(names):
        raise DataError(f"{src}, line 2: {len(ar_tokens)} arities for {len(names)} variables")
    declared = []
    for tok, nm in zip(ar_tokens, names):
        try:
            a = int(tok)
        except ValueError:
            raise DataError(f"{src}, line 2, column {_q(nm)}: arity {_q(tok)} is not an integer") from None
        if a < 1:
            raise DataError(f"{src}, line 2, column {_q(nm)}: arity must be >= 1, got {a}")
        declared.append(a)
    rows = [ln.split() for ln in lines[2:]]
    for r, row in enumerate(rows):
        if len(row) != len(names):
            kind = "blank line inside the data" if not row else f"ragged row with {len(row)} fields, expected {len(names)}"
            raise DataError(f"{src}, line {r + 3}: {kind}")
    return rows, names, declared


def _refuse_one_field(line: str, delimiter: str, src: str) -> None:
    """A delimiter given by the caller that leaves one field per line, where another would split it, is refused.

    Read as asked, ``a;b;c`` with ``delimiter=","`` is one variable named
    ``a;b;c``, and every search then "proves" a one-node network optimal: a
    silent wrong answer from a typo (or from a GOBNILP settings file's
    ``gobnilp/delimiter``).  A genuine one-column file has no other delimiter
    on its first line, so it is still read.
    """
    shown = {"\t": "tab", " ": "space"}
    for other in (",", "\t", ";", " "):
        if other != delimiter and other in line.strip():
            flag = shown.get(other, repr(other))
            raise DataError(f"{src}: with delimiter {shown.get(delimiter, repr(delimiter))} every line is one "
                            f"field, but line 1 holds {flag}; give delimiter={other!r} (--delimiter {flag}) "
                            "or leave it out to guess")


def _guess_delimiter(line: str) -> str | None:
    for d in (",", "\t", ";"):
        if d in line:
            return d
    return None


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _check_same_declared(declared: list[int], arities: object, names: list[str], src: str) -> None:
    given = _arity_list(arities, names, src)
    for nm, a, b in zip(names, declared, given):
        if a != b:
            raise DataError(f"{src}: arity of {_q(nm)} declared as {a} in the file but {b} in the arities argument")


# ------------------------------------------------------------ frames, arrays
def _from_frame(frame: object, *, names: Sequence[str] | None, arities: object, opts: _Options) -> Dataset:
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    src = "<DataFrame>"
    cols = [str(c) for c in frame.columns]
    na = frame.isna().to_numpy()
    if na.any():
        r, c = np.argwhere(na)[0]
        raise DataError(f"{src}: missing value at row {r} (index {frame.index[r]!r}), column {_q(cols[c])}; the "
                        "scores need complete data: drop or fill the rows with missing values first")
    table = []
    categories: dict[int, tuple[Any, ...]] = {}
    for j in range(frame.shape[1]):
        col = frame.iloc[:, j]
        if isinstance(col.dtype, pd.CategoricalDtype):
            # The declared categories are the states, observed or not (as pgmpy's state_names).
            categories[j] = tuple(col.cat.categories.tolist())
        table.append(col.to_numpy(dtype=object))
    return _encode(table, names or cols, arities, src, columns_given=True, first_data_line=0, opts=opts,
                   categories=categories)


def _from_array(arr: np.ndarray, *, names: Sequence[str] | None, arities: object, opts: _Options) -> Dataset:
    src = "<array>"
    if arr.ndim != 2:
        raise DataError(f"{src}: expected a 2-D array (rows x variables), got {arr.ndim} dimension(s)")
    if arr.dtype.kind == "f":
        bad = np.isnan(arr)
    elif arr.dtype.kind == "O":
        bad = np.vectorize(lambda v: v is None or (isinstance(v, float) and v != v), otypes=[bool])(arr) if arr.size else np.zeros(arr.shape, bool)
    else:
        bad = None
    if bad is not None and bad.any():
        r, c = np.argwhere(bad)[0]
        raise DataError(f"{src}: missing value at row {r}, column {c}; the scores need complete data")
    table = [arr[:, j] for j in range(arr.shape[1])]
    return _encode(table, names or [str(j) for j in range(arr.shape[1])], arities, src, columns_given=True,
                   first_data_line=0, opts=opts)


def _labels_of(ds: Dataset) -> list[np.ndarray]:
    out = []
    for j in range(ds.n):
        labels = np.empty(ds.arities[j], dtype=object)
        given = list(ds.labels[j]) if ds.labels else []
        for k in range(int(ds.arities[j])):
            labels[k] = given[k] if k < len(given) else k
        out.append(labels[ds.column(j)])
    return out


# ----------------------------------------------------------------- encoding
def _arity_list(arities: object, names: Sequence[str], src: str) -> list[int | None]:
    from .._validation import check_positive_int

    def one(a: object, nm: str) -> int:
        try:
            return int(check_positive_int(a, f"arity of {_q(nm)}"))  # type: ignore[arg-type]
        except ParameterError as exc:
            raise DataError(f"{src}: {exc}") from None

    if arities is None:
        return [None] * len(names)
    if isinstance(arities, Mapping):
        unknown = [k for k in arities if str(k) not in names]
        if unknown:
            raise DataError(f"{src}: arity given for unknown variable {_q(unknown[0])}")
        given = {str(k): v for k, v in arities.items()}
        return [None if nm not in given else one(given[nm], nm) for nm in names]
    if isinstance(arities, (str, bytes)) or not isinstance(arities, Sequence | np.ndarray):
        raise DataError(f"{src}: arities must be a sequence of integers (column order) or a mapping name -> "
                        f"arity, got {type(arities).__name__}")
    seq = list(arities)
    if len(seq) != len(names):
        raise DataError(f"{src}: {len(seq)} arities given for {len(names)} variables")
    return [one(a, nm) for a, nm in zip(seq, names)]


def _check_names(names: Sequence[str], src: str) -> None:
    seen: set[str] = set()
    for nm in names:
        if nm == "":
            raise DataError(f"{src}: a variable has an empty name")
        if has_control(nm):
            raise DataError(f"{src}: variable name {excerpt(nm)} contains a control character (an escape "
                            "sequence or a line break); names are printed, so they must be plain text")
        if nm in seen:
            raise DataError(f"{src}: duplicate variable name {_q(nm)}")
        if any(ch.isspace() for ch in nm):
            raise DataError(f"{src}: variable name {_q(nm)} contains white space (score and constraint files could not name it)")
        seen.add(nm)


def _encode(
    table: Sequence[Sequence[object]],
    names: Sequence[str],
    arities: object,
    src: str,
    *,
    columns_given: bool = False,
    first_data_line: int = 1,
    opts: _Options | None = None,
    categories: Mapping[int, tuple[Any, ...]] | None = None,
) -> Dataset:
    """Turn rows (or columns, if ``columns_given``) of labels into a validated Dataset."""
    opts = opts or _Options(None, None).for_text()
    cols: list[np.ndarray]
    if columns_given:
        cols = [np.asarray(c, dtype=object) if np.asarray(c).dtype.kind == "O" else np.asarray(c) for c in table]
        n_rows = len(cols[0]) if cols else 0
    else:
        n_rows = len(table)
        arr = np.array(table, dtype=object).reshape(n_rows, -1) if n_rows else np.empty((0, len(names)), dtype=object)
        cols = [arr[:, j] for j in range(arr.shape[1])]
    names = [str(x) for x in names]
    if len(names) != len(cols):
        raise DataError(f"{src}: {len(names)} names given for {len(cols)} columns")
    if not names:
        raise DataError(f"{src}: no variables (columns) found")
    _check_names(names, src)
    if n_rows < 2:
        raise DataError(f"{src}: needs at least 2 data rows, found {n_rows}")
    declared = _arity_list(arities, names, src)
    states = _state_lists(opts.states, categories or {}, names, src)
    codes = np.empty((n_rows, len(cols)), dtype=np.int64)
    ar = np.empty(len(cols), dtype=np.int64)
    labels: list[tuple[object, ...]] = []
    constant: list[str] = []
    line = (lambda r: f"line {r + first_data_line}") if first_data_line else (lambda r: f"row {r}")
    for j, col in enumerate(cols):
        listed = states[j]
        if col.dtype.kind in "OUS":
            missing_tokens = opts.missing
            if listed is not None:  # a declared state is never missing in its column
                missing_tokens = missing_tokens - {str(x).strip() for x in listed if str(x).strip()}
            as_str = col.astype(str) if col.dtype.kind != "O" else col
            if col.dtype.kind == "O":
                missing = np.fromiter((isinstance(v, str) and v.strip() in missing_tokens for v in col), bool, n_rows)
            else:
                missing = np.isin(np.char.strip(as_str), list(missing_tokens))
            if missing.any():
                r = int(np.argmax(missing))
                raise DataError(f"{src}, {line(r)}, column {_q(names[j])}: missing value {_q(str(col[r]).strip())}; "
                                + _MISSING_HINT)
        uniq, inv, numeric, nonintegral = _unique(col, src, names[j], line)
        r_obs = len(uniq)
        if numeric and listed is None and (r_obs > continuous_threshold(n_rows)
                                           or (nonintegral and r_obs > CONTINUOUS_NONINTEGRAL)):
            kind = "non-integral numeric" if nonintegral else "numeric"
            warnings.warn(f"{src}: column {_q(names[j])} has {r_obs} distinct {kind} values in {n_rows} rows and looks "
                          f"continuous; each value becomes a state of its own ({r_obs} states): discretise it "
                          "first (e.g. into a few quantile bins)", ContinuousColumnWarning, stacklevel=3)
        r_decl = declared[j]
        if listed is not None:
            col_codes, col_labels = _declared_codes(uniq, inv, numeric, listed, src, names[j])
            if r_decl is not None and r_decl != len(col_labels):
                raise DataError(f"{src}: column {_q(names[j])} has {len(col_labels)} declared states but its declared "
                                f"arity is {r_decl}")
            codes[:, j] = col_codes
            labels.append(col_labels)
            ar[j] = len(col_labels)
        elif r_decl is not None:
            if r_decl < r_obs:
                raise DataError(f"{src}: column {_q(names[j])} has {r_obs} distinct values but its declared arity is {r_decl}")
            ints = _as_state_indices(uniq, r_decl)
            if ints is not None:
                # labels are the states 0..r-1 themselves: keep label k as code k
                codes[:, j] = ints[inv]
                labels.append(tuple(range(r_decl)))
            else:
                codes[:, j] = inv
                labels.append(tuple(uniq.tolist()) + tuple(f"<unobserved {k}>" for k in range(r_obs, r_decl)))
            ar[j] = r_decl
        else:
            if not numeric and col.dtype.kind != "b" and r_obs == n_rows >= IDENTIFIER_ROWS:
                raise DataError(f"{src}: column {_q(names[j])} has a different value in every one of its {n_rows} rows "
                                "(an identifier or free text, not a discrete variable; or the file is not a data "
                                "table); drop the column, or declare its states (state_names=) if they are meant")
            codes[:, j] = inv
            labels.append(tuple(uniq.tolist()))
            ar[j] = r_obs
        if r_obs == 1:
            constant.append(names[j])
    if len(constant) == 1:
        warnings.warn(f"{src}: variable {_q(constant[0])} is constant (one value); every parent set of it scores the "
                      "same and it is independent of everything in the data", ConstantColumnWarning, stacklevel=3)
    elif constant:
        shown = ", ".join(_q(c) for c in constant[:5]) + (f" and {len(constant) - 5} more" if len(constant) > 5 else "")
        warnings.warn(f"{src}: {len(constant)} variables are constant (one value): {shown}; every parent set of each "
                      "scores the same and each is independent of everything in the data",
                      ConstantColumnWarning, stacklevel=3)
    return Dataset(tuple(names), ar, codes, tuple(labels), src)


# ------------------------------------------------------------ declared states
def _state_lists(given: Mapping[str, tuple[Any, ...]] | None, categories: Mapping[int, tuple[Any, ...]],
                 names: Sequence[str], src: str) -> list[tuple[Any, ...] | None]:
    """Per column, its declared states: ``state_names`` first, else a categorical column's categories."""
    out: list[tuple[Any, ...] | None] = [categories.get(j) for j in range(len(names))]
    for var, listed in (given or {}).items():
        if var not in names:
            raise DataError(f"{src}: state_names given for unknown variable {_q(var)}")
        out[list(names).index(var)] = listed
    return out


def _state_key(x: Any, numeric: bool) -> tuple[str, Any]:
    """What makes two labels the same state: the exact number in a numeric column, else the stripped text."""
    if isinstance(x, np.generic):
        x = x.item()
    if numeric:
        if isinstance(x, float) and x.is_integer() and abs(x) < 2 ** 53:
            return ("n", int(x))
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return ("n", x)
        if isinstance(x, str) and _NUMBER_RE.match(x.strip()):
            return ("n", _decimal_value(Decimal(x.strip())))
    return ("s", str(x).strip())


def _decimal_value(d: Decimal) -> int | float:
    """A decimal as an exact Python number (int if integral), for comparing with labels; no range checks."""
    sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    if exp >= 0 or not any(digits[exp:]):
        if len(digits) + exp > 4300:
            return float(d)  # a key only: such a value was refused or kept as a float label when read
        return int(d)
    return float(d)


def _declared_codes(uniq: np.ndarray, inv: np.ndarray, numeric: bool, listed: tuple[Any, ...], src: str,
                    name: str) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Codes and labels of a column whose states are declared: state ``k`` is ``listed[k]``."""
    keys = [_state_key(x, numeric) for x in listed]
    position: dict[tuple[str, Any], int] = {}
    for k, key in enumerate(keys):
        if key in position:
            raise DataError(f"{src}: the declared states of {_q(name)} list {excerpt(str(listed[k]))} twice")
        position[key] = k
    mapping = np.empty(len(uniq), dtype=np.int64)
    for i, u in enumerate(uniq.tolist()):
        k = position.get(_state_key(u, numeric))
        if k is None:
            shown = ", ".join(excerpt(str(x), 20) for x in listed[:6]) + (", ..." if len(listed) > 6 else "")
            raise DataError(f"{src}: column {_q(name)} holds the value {excerpt(str(u))}, which is not one of its "
                            f"declared states ({shown})")
        mapping[i] = k
    labels = tuple(key[1] if numeric and key[0] == "n" else (x.item() if isinstance(x, np.generic) else x)
                   for key, x in zip(keys, listed))
    return mapping[inv], labels


# ------------------------------------------------------------- exact states
def _unique(col: np.ndarray, src: str, name: str,
            line: Any = lambda r: f"row {r}") -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """Sorted distinct states, inverse codes, whether the column is numeric, whether it has non-integral values.

    Numbers are compared exactly: text as decimals, Python ints as ints (of
    any size), floats as the floats they are; two values are one state only
    when they are the same number (see the module docstring).
    """
    if col.dtype.kind == "b":
        uniq, inv = np.unique(col, return_inverse=True)
        return uniq.astype(object), inv.reshape(-1), False, False
    if col.dtype.kind in "iu":
        uniq, inv = np.unique(col, return_inverse=True)
        return _int_labels(uniq), inv.reshape(-1), True, False
    if col.dtype.kind == "f":
        _refuse_infinite(col, src, name, line)
        uniq, inv = np.unique(col, return_inverse=True)
        return _number_labels(uniq), inv.reshape(-1), True, bool(np.any(uniq != np.floor(uniq)))
    if col.dtype.kind == "O" and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                                     for v in col):
        return _unique_numbers(col, src, name, line)
    text = np.array([v.strip() if isinstance(v, str) else str(v) for v in col], dtype=object) \
        if col.dtype.kind == "O" else np.char.strip(col.astype(str))
    uniq_s, inv_s = np.unique(text.astype(str), return_inverse=True)
    inv_s = inv_s.reshape(-1)
    if len(uniq_s) and all(_NUMBER_RE.match(u) for u in uniq_s):
        values = [Decimal(u) for u in uniq_s]
        order = sorted(range(len(values)), key=values.__getitem__)
        state_of = np.empty(len(values), dtype=np.int64)
        firsts: list[int] = []
        for i in order:
            if not firsts or values[i] != values[firsts[-1]]:
                firsts.append(i)
            state_of[i] = len(firsts) - 1
        labels = np.empty(len(firsts), dtype=object)
        nonintegral = False
        for k, i in enumerate(firsts):
            labels[k], integral = _decimal_label(values[i], str(uniq_s[i]), src, name)
            nonintegral = nonintegral or not integral
        return labels, state_of[inv_s], True, nonintegral
    return uniq_s.astype(object), inv_s, False, False


def _decimal_label(d: Decimal, text: str, src: str, name: str) -> tuple[int | float, bool]:
    """The exact label of a decimal read from text, and whether it is integral; a DataError if none is exact.

    An integral value is a Python ``int`` (exact at any size, up to 4,300
    digits: Python's limit for turning an int into text); any other must be
    held exactly by a ``float`` (its shortest ``repr`` is the same number),
    else two distinct values could become one state.
    """
    sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    if exp >= 0 or not any(digits[exp:]):
        if len(digits) + exp > 4300:
            raise DataError(f"{src}, column {_q(name)}: the number {excerpt(text)} has more than 4,300 digits; it "
                            "cannot be a state's label (write the column's states as short codes)")
        return int(d), True
    f = float(d)
    if not math.isfinite(f) or f == 0.0 or Decimal(repr(f)) != d:
        raise DataError(f"{src}, column {_q(name)}: the number {excerpt(text)} cannot be kept exactly (as a "
                        f"floating-point number it reads {f!r}, which other values may share); write the "
                        "column's states as integers or short codes")
    return f, False


def _refuse_infinite(col: np.ndarray, src: str, name: str, line: Any) -> None:
    bad = ~np.isfinite(col.astype(np.float64, copy=False))
    if bad.any():
        r = int(np.argmax(bad))
        raise DataError(f"{src}, {line(r)}, column {_q(name)}: the value {float(col[r])!r} is not a state (an infinite "
                        "number); discretise the column, or write its states as codes")


def _unique_numbers(col: np.ndarray, src: str, name: str, line: Any) -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """Distinct numbers of an object column of Python/numpy numbers, compared exactly (ints never through floats)."""
    values = [v.item() if isinstance(v, np.generic) else v for v in col]
    floats = [v for v in values if isinstance(v, float)]
    if any(not math.isfinite(v) for v in floats):
        _refuse_infinite(np.array([v if isinstance(v, float) else 0.0 for v in values]), src, name, line)
    if not floats:
        try:
            arr = np.array(values, dtype=np.int64)
        except OverflowError:
            arr = None
        if arr is not None:
            uniq, inv = np.unique(arr, return_inverse=True)
            return _int_labels(uniq), inv.reshape(-1), True, False
    elif len(floats) == len(values) or all(isinstance(v, float) or abs(v) < 2 ** 53 for v in values):
        arr = np.array(values, dtype=np.float64)  # exact: every int here is a float too
        uniq, inv = np.unique(arr, return_inverse=True)
        return _number_labels(uniq), inv.reshape(-1), True, bool(np.any(uniq != np.floor(uniq)))
    # Python ints beyond 2**53 beside floats (or beyond int64): Python compares int and float exactly
    distinct = sorted(set(values))
    where = {v: i for i, v in enumerate(distinct)}
    inv = np.fromiter((where[v] for v in values), dtype=np.int64, count=len(values))
    labels = np.empty(len(distinct), dtype=object)
    for i, v in enumerate(distinct):
        labels[i] = int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53 else v
    nonintegral = any(isinstance(v, float) and not v.is_integer() for v in distinct)
    return labels, inv, True, nonintegral


def _int_labels(values: np.ndarray) -> np.ndarray:
    """Python ints of an integer array's distinct values."""
    out = np.empty(len(values), dtype=object)
    out[:] = [int(v) for v in values.tolist()]
    return out


def _number_labels(values: np.ndarray) -> np.ndarray:
    """Labels of numeric states: ``int`` for integral values (exactly representable), else ``float``."""
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values.tolist()):
        out[i] = int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53 else v
    return out


def _as_state_indices(uniq: np.ndarray, arity: int) -> np.ndarray | None:
    """If the distinct labels are integers within 0..arity-1, return them as ints."""
    if not all(isinstance(u, (int, np.integer)) and not isinstance(u, (bool, np.bool_)) for u in uniq):
        return None
    if not all(0 <= int(u) < arity for u in uniq):
        return None
    return np.array([int(u) for u in uniq], dtype=np.int64)


def as_dataset(data: object, read_options: Mapping[str, object]) -> Dataset:
    """``data`` as a :class:`Dataset`, read with ``read_options`` (:func:`read_data`'s keywords) unless it is one.

    Why: ``score`` and the drivers take data as a file, frame, array or :class:`Dataset`, with the
    reading keywords beside their own; this is the one place that turns those into a dataset, and
    refuses reading keywords for data that is already read rather than ignoring them.
    """
    if isinstance(data, Dataset):
        if read_options:
            raise ParameterError(f"data options {sorted(read_options)} cannot apply to a Dataset, "
                                 "which is already read")
        return data
    from .continuous import ContinuousData

    if isinstance(data, ContinuousData):
        raise DataError(f"{data.source}: continuous data (measurements) need a Gaussian score: score=\"bic-g\", "
                        "\"aic-g\" or \"bge\"; the discrete scores count states")
    return read_data(data, **read_options)  # type: ignore[arg-type]
