"""The table of what tfdiag can read: line formats and the wrappers around lines.

A :class:`LineFormat` is one RE2 pattern with named groups among :data:`PART_FIELDS`; a
:class:`Wrapper` is a prefix a container runtime, collector or launcher puts before every line
(named groups ``inner``, ``wts``, ``stream``, ``rank``). Data only: applied by
:mod:`analyzer.formats.wrappers` and :mod:`analyzer.formats.events`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Lines longer than this are cut to it in the timeline (a dumped tensor can be 200 MB).
MAX_LINE_CHARS = 1024 * 1024

TS_ISO = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})"
#: ISO 8601 with a zone with or without its colon (journalctl's short-iso: ``+0000``)
_TS_ISO_LOOSE = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})"
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTHS = "|".join(MONTH_NAMES)
#: Open MPI's output tag, after --timestamp-output's ctime() text when there is one
MPIRUN_TAG = (
    rf"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:{MONTHS}) [ \d]\d \d\d:\d\d:\d\d \d{{4}})?"
    r"\[\d+,(?P<rank>\d+)\]<(?P<stream>stdout|stderr|stddiag)>:"
)


@dataclass(frozen=True)
class LineFormat:
    """One line format: a RE2 pattern with named groups among :data:`PART_FIELDS`."""

    name: str
    pattern: str
    #: a cheap RE2 test of the line start that must hold before ``pattern`` is tried
    start: str


PART_FIELDS = ("date", "time", "md", "tz", "level", "source", "thread", "logger", "message")

LINE_FORMATS: tuple[LineFormat, ...] = (
    LineFormat(
        "tf_cpp",
        r"^(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{2}:\d{2}:\d{2}(?:\.\d+)?): (?P<level>[IWEF]) "
        r"(?P<source>[^\s\]]+:\d+)\] ?(?P<message>.*)$",
        r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.\d]*: [IWEF] ",
    ),
    LineFormat(
        "absl",
        r"^(?P<level>[IWEF])(?P<md>\d{4}) (?P<time>\d{2}:\d{2}:\d+(?:\.\d+)?) +(?P<thread>\d+) "
        r"(?P<source>[^\s\]]+:\d+)\] ?(?P<message>.*)$",
        r"^[IWEF]\d{4} \d\d:\d\d:\d",
    ),
    LineFormat(
        "python_logging",
        r"^\[?(?P<date>\d{4}-\d{2}-\d{2})[ T](?P<time>\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)"
        r"(?P<tz>Z|[+-]\d{2}:?\d{2})?\]?(?:\s*[-|:]\s*|\s+)"
        r"(?:\[?(?P<logger>[\w.-]+)\]?(?:\s*[-|:]\s*|\s+))?"
        r"\[?(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?(?:\s*[-|:]\s*|\s+|$)"
        r"(?P<message>.*)$",
        r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d",
    ),
    # log4j's pattern "%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m" (Apache Spark's default for its
    # daemons, drivers and executors: conf/log4j2.properties.template): a two-digit year
    LineFormat(
        "log4j_short",
        r"^(?P<date>\d{2}/\d{2}/\d{2}) (?P<time>\d{2}:\d{2}:\d{2}(?:[.,]\d+)?) "
        r"(?P<level>TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL) (?P<logger>[\w.$-]+): "
        r"(?P<message>.*)$",
        r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d",
    ),
    LineFormat(
        "python_basic",
        r"^(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL):(?P<logger>[\w.]+):(?P<message>.*)$",
        r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):",
    ),
    LineFormat(
        "keras_progress",
        r"^(?P<message>\s*(?:\d+/\d+ \[[=>.]*\].*|\d+/\d+ - \d+m?s .*|Epoch \d+/\d+\s*))$",
        r"^\s*(?:\d+/\d+ |Epoch \d)",
    ),
)


@dataclass(frozen=True)
class Wrapper:
    """A prefix that a container runtime or launcher puts before every line."""

    name: str
    #: named groups: inner (required), wts, stream, rank (the line's source in a stream of
    #: several: a rank number, or a pod's name)
    pattern: str


WRAPPERS: tuple[Wrapper, ...] = (
    Wrapper("k8s_cri", rf"^(?P<wts>{TS_ISO}) (?P<stream>stdout|stderr) [FP] (?P<inner>.*)$"),
    Wrapper(
        "docker_json",
        r'^\{"log":"(?P<inner>(?:[^"\\]|\\.)*)","stream":"(?P<stream>\w+)","time":"(?P<wts>[^"]+)"\}$',
    ),
    # Open MPI's ``mpirun --tag-output`` (orte/mca/iof/base/iof_base_output.c): "[job,rank]<stream>:"
    # before every piece a rank writes, with --timestamp-output behind ctime()'s text and no
    # space ("Tue Nov 24 22:21:34 2026[1,0]<stdout>:"); a piece without its newline is followed
    # on the same line by the next piece's tag (see :func:`_mpirun_pieces`)
    Wrapper("mpirun", rf"^{MPIRUN_TAG}(?P<inner>.*)$"),
    # `kubectl logs -l SELECTOR --prefix [--timestamps]`: every pod's lines in one stream,
    # each behind "[pod/<pod>/<container>] " (kubectl's logs.go addPrefixIfNeeded); the pod
    # name is the line's source, as a rank is
    Wrapper(
        "kubectl_prefix",
        rf"^\[pod/(?P<rank>[^/\]\s]+)/[^\]\s]+\] (?:(?P<wts>{TS_ISO}) )?(?P<inner>.*)$",
    ),
    # ``docker compose logs`` / ``up`` (docker/compose cmd/formatter/logs.go): every line
    # behind ``fmt.Sprintf("%-<width>s | ", name)``, width one more than the longest container
    # name, in color unless --no-color; with --timestamps a time and a space after it. The
    # container's name is the line's source, as a pod's is.
    Wrapper(
        "compose",
        r"^(?:\x1b\[[\d;]*m)?(?P<rank>[A-Za-z0-9][\w.-]*) +\| (?:\x1b\[[\d;]*m)?"
        rf"(?:(?P<wts>{TS_ISO}) )?(?P<inner>.*)$",
    ),
    # honcho / foreman (a Procfile's processes in one stream): every line behind
    # "HH:MM:SS <name> | " (honcho's printer.py: the time, the process name padded to the
    # longest, " | "), honcho's own lines under the name "system"; in color on a terminal
    # (removed where the log is read). The process's name is the line's source, as a
    # container's is; the time has no date, and the lines keep their own.
    Wrapper(
        "procfile",
        r"^\d\d:\d\d:\d\d (?P<rank>[A-Za-z0-9][\w.-]*) +\| (?P<inner>.*)$",
    ),
    # syslog / the systemd journal: ``journalctl``'s short, short-precise, short-iso and
    # short-iso-precise output (systemd src/shared/logs-show.c output_short: time, host,
    # identifier[pid], ": ", message) and rsyslog's traditional or RFC 3339 file lines. The
    # host is the line's source (a merged journal or a central syslog holds every host's
    # lines); a year-less time ("Nov 24 17:06:15") takes the file's year as an absl time does.
    Wrapper(
        "syslog",
        rf"^(?:(?P<wts>{_TS_ISO_LOOSE})|(?P<mon>{MONTHS}) (?P<day>[ \d]\d) "
        r"(?P<clock>\d\d:\d\d:\d\d(?:\.\d{1,9})?)) (?P<rank>[A-Za-z0-9][\w.-]*) "
        r"[^\s\[\]:]+(?:\[\d+\])?: (?P<inner>.*)$",
    ),
    # Ray's driver output: every line a worker process prints, copied to the driver behind
    # "(<actor or task name> pid=<pid>[, ip=<ip>]) " in color (python/ray/_private/worker.py,
    # print_worker_logs); the raylet's and autoscaler's own lines behind "(raylet) ". The
    # process is the line's source, named by what it says (its pid is no task index).
    Wrapper(
        "ray",
        r"^(?:\x1b\[[\d;]*m)?\((?:(?P<rank>(?:[\w.<>:-]+ )?pid=\d+)(?:, ip=[\w.:-]+)?"
        r"|raylet|autoscaler)\)(?:\x1b\[[\d;]*m)? (?P<inner>.*)$",
    ),
    # GNU parallel --tag (parallel(1)): each line of a job behind its arguments, joined by
    # spaces, and a TAB ("worker 1<TAB>..."); the arguments are the line's source, as a
    # container's name is (a job and its index: worker:1). parallel's own lines carry none.
    Wrapper(
        "parallel_tag",
        r"^(?P<rank>[A-Za-z][\w.@:/-]*(?: [\w.@:/-]+){0,3})\t(?P<inner>.*)$",
    ),
    # runit's svlogd (and daemontools' multilog, s6-log): the time it read each line, before
    # it: TAI64N ("@4000000069f1c0de1b64d71c ", -t), or UTC with five decimals
    # ("2026-11-25_12:31:26.79252 ", -tt; "2026-11-25T12:31:26.79252 ", -ttt). A read time, not
    # the line's own: not taken as a time (the lines a task wrote at once share it).
    Wrapper(
        "svlogd",
        r"^(?:@4[0-9a-f]{23}|\d{4}-\d\d-\d\d[_T]\d\d:\d\d:\d\d\.\d{5}) (?P<inner>.*)$",
    ),
    Wrapper("kubectl", rf"^(?P<wts>{TS_ISO}) (?P<inner>.*)$"),
    Wrapper("slurm", r"^ {0,4}(?P<rank>\d{1,5}): (?P<inner>.*)$"),
)

LEVELS = {
    "I": "INFO",
    "W": "WARNING",
    "E": "ERROR",
    "F": "FATAL",
    "WARN": "WARNING",
    "CRITICAL": "FATAL",
    "TRACE": "DEBUG",
}
TRACEBACK_START = "Traceback (most recent call last):"
TRACEBACK_JOINERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)

#: Keras's interactive progress bar (a terminal, a notebook) redraws itself with ``\r`` and no
#: newline; a log line another thread writes meanwhile is glued to the bar's last text
#: (``19/20 [====>.] - ETA: 0s - loss: 39.47542026-11-25 15:01:56,192 - INFO - ...``, TensorFlow's
#: ``...loss: 38.4754E0000 00:00:1795618923.636966 ... ring_alg.cc:291] ...``): the bar's text
#: (``BAR_TEXT``) runs up to where the glued line's own prefix starts (``GLUED_LINE_START``).
BAR_TEXT = r"\d+/\d+ \[[=>.]*\][^\n]*?"
GLUED_LINE_START = r"(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d)"
