"""Stage 2: bytes of one log → a table of events, one column at a time.

The hot path never loops over lines in Python. A file's bytes are split into an Arrow
string array (newline offsets found with NumPy), container/launcher prefixes are
recognised file-wide, and each line format is a RE2 expression applied with
``pyarrow.compute.extract_regex`` to the lines no earlier format claimed. Only the rare
multi-line events (Python tracebacks, C++ stack traces) are grouped in Python.

Line formats (``format`` column):

``tf_cpp``            ``2018-03-02 08:50:57.918293: I tensorflow/core/.../master.cc:221] msg``
``absl``              ``E0130 12:34:56.789012  1234 grpc_server_lib.cc:467] msg`` (no year), and
                      ``I0000 00:00:1795320249.254368    2138 port.cc:153] msg`` (epoch seconds)
``python_logging``    ``2025-01-30 12:34:56,789 - INFO - msg`` and ``... - name - LEVEL - msg``
``python_basic``      ``INFO:tensorflow:msg``, ``WARNING:absl:msg``
``keras_progress``    ``10/10 [==============================] - 1s 5ms/step - loss: 0.1``
``python_traceback``  ``Traceback (most recent call last):`` … ``SomeError: msg`` (one event)
``cpp_stacktrace``    ``*** Begin stack trace ***`` … ``*** End stack trace ***`` (one event)
``plain``             anything else; it inherits the previous event's time

Wrappers (``wrapper`` column), recognised when most of a file's lines carry them:
``k8s_cri`` (``2025-01-30T12:34:56.789012345Z stderr F …``), ``kubectl`` (``--timestamps``),
``docker_json``, ``mpirun`` (``[1,0]<stderr>:``) and ``slurm`` (``srun --label``: ``3: ``),
``kubectl_prefix``, ``compose``, ``procfile`` (honcho / foreman), ``syslog``, ``parallel_tag``
(GNU parallel --tag) and ``svlogd`` (runit's, TAI64N or UTC stamps); and ``learned``: the prefix of a launcher
tfdiag has no rule for, learned from the file's first lines (:mod:`analyzer.prefixes`).

The package, one idea per module, in the order a file goes through them:

``catalog``    the line formats and wrappers (data)
``lines``      bytes → valid UTF-8 → :class:`Lines`, a zero-copy Arrow view of the lines
``wrappers``   the prefix a file's lines carry, found and peeled (mpirun's pieces joined)
``sections``   a file of per-source sections (dshbak's hosts, tail's ``==> file <==``)
``select``     which lines a condensed parse keeps (:class:`Keep`), before per-line work
``repeats``    message templates and the repeats they collapse
``groups``     multi-line events: tracebacks, stack traces, a warning's continuation lines
``events``     one source's lines → its table of events (:func:`parse_lines`)
``many``       many small files parsed as one (:func:`parse_many`)
"""

from analyzer.formats.catalog import (
    LINE_FORMATS,
    MAX_LINE_CHARS,
    PART_FIELDS,
    WRAPPERS,
    LineFormat,
    Wrapper,
)
from analyzer.formats.events import parse_lines
from analyzer.formats.groups import CONTINUED_FORMATS
from analyzer.formats.lines import Lines, ParsedLines, decode, split_lines
from analyzer.formats.many import SMALL_FILE, parse_many
from analyzer.formats.repeats import templates
from analyzer.formats.select import Keep

__all__ = [
    "CONTINUED_FORMATS",
    "LINE_FORMATS",
    "MAX_LINE_CHARS",
    "PART_FIELDS",
    "SMALL_FILE",
    "WRAPPERS",
    "Keep",
    "LineFormat",
    "Lines",
    "ParsedLines",
    "Wrapper",
    "decode",
    "parse_lines",
    "parse_many",
    "split_lines",
    "templates",
]
