"""Line formats: each parser on real lines (captured from TensorFlow 2.21 runs of the lab,
and from the format strings in TensorFlow's, absl's and Python's sources)."""

from __future__ import annotations

import pytest

from analyzer.formats import parse_lines

# (line, format, level, source, message) — real lines
REAL_LINES = [
    (
        "I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:57785",
        "absl",
        "INFO",
        "grpc_server_lib.cc:467",
        "Started server with target: grpc://127.0.0.1:57785",
    ),
    (
        "W0000 00:00:1795322643.621435    4392 destroy_tensor_handle_node.h:59] Ignoring an error encountered when deleting remote tensors handles: INVALID_ARGUMENT: Unable to find the relevant tensor remote_handle: Op ID: 52, Output num: 0",
        "absl",
        "WARNING",
        "destroy_tensor_handle_node.h:59",
        "Ignoring an error encountered when deleting remote tensors handles: INVALID_ARGUMENT: Unable to find the relevant tensor remote_handle: Op ID: 52, Output num: 0",
    ),
    (
        "E0130 12:34:56.789012  1234 grpc_server_lib.cc:467] Could not start gRPC server",
        "absl",
        "ERROR",
        "grpc_server_lib.cc:467",
        "Could not start gRPC server",
    ),
    (
        "2018-03-02 08:50:57.918293: I tensorflow/core/distributed_runtime/master.cc:221] CreateSession still waiting for response from worker: /job:worker/replica:0/task:1",
        "tf_cpp",
        "INFO",
        "master.cc:221",
        "CreateSession still waiting for response from worker: /job:worker/replica:0/task:1",
    ),
    (
        "2026-11-22 04:44:03,627 - ERROR -  /job:worker/task:1 encountered the following error when processing closure: UnavailableError():Graph execution error:",
        "python_logging",
        "ERROR",
        None,
        "/job:worker/task:1 encountered the following error when processing closure: UnavailableError():Graph execution error:",
    ),
    (
        "2025-01-30 12:34:56,789 - tensorflow - WARNING - slow step",
        "python_logging",
        "WARNING",
        None,
        "slow step",
    ),
    (
        "INFO:tensorflow:Graph was finalized.",
        "python_basic",
        "INFO",
        None,
        "Graph was finalized.",
    ),
    (
        "WARNING:absl:You are saving your model as an HDF5 file",
        "python_basic",
        "WARNING",
        None,
        "You are saving your model as an HDF5 file",
    ),
    (
        "10/10 [==============================] - 1s 5ms/step - loss: 0.1000",
        "keras_progress",
        None,
        None,
        "10/10 [==============================] - 1s 5ms/step - loss: 0.1000",
    ),
    (
        "Additional GRPC error information from remote target /job:ps/replica:0/task:0 while calling /tensorflow.WorkerService/RecvTensor:",
        "plain",
        None,
        None,
        "Additional GRPC error information from remote target /job:ps/replica:0/task:0 while calling /tensorflow.WorkerService/RecvTensor:",
    ),
]


@pytest.mark.parametrize(("line", "fmt", "level", "source", "message"), REAL_LINES)
def test_real_line_parses(line, fmt, level, source, message):
    table = parse_lines(line.encode() + b"\n").table.to_pylist()
    assert len(table) == 1
    row = table[0]
    assert row["format"] == fmt
    assert row["level"] == level
    assert row["source"] == source
    assert row["message"] == message
    assert row["raw"] == line


def test_python_traceback_is_one_event_with_exception_line():
    text = (
        "2026-11-22 04:44:03,627 - ERROR - training failed\n"
        "Traceback (most recent call last):\n"
        '  File "/work/main/analyzer/lab/tasks/ps_training.py", line 88, in main\n'
        "    coordinator.join()\n"
        "tensorflow.python.framework.errors_impl.UnavailableError: failed to connect to all addresses\n"
        "Additional GRPC error information from remote target /job:ps/replica:0/task:0:\n"
    )
    parsed = parse_lines(text.encode())
    rows = parsed.table.to_pylist()
    assert [r["format"] for r in rows] == ["python_logging", "python_traceback", "plain"]
    tb = rows[1]
    assert tb["message"].startswith("tensorflow.python.framework.errors_impl.UnavailableError:")
    assert (tb["line_no"], tb["line_end"]) == (2, 5)
    assert "coordinator.join()" in tb["detail"]
    assert parsed.lines_read == 6


def test_cpp_stack_trace_is_one_event():
    text = (
        "*** Begin stack trace ***\n"
        "\ttsl::CurrentStackTrace()\n"
        "\ttensorflow::GrpcServer::Init()\n"
        "*** End stack trace ***\n"
        "after\n"
    )
    rows = parse_lines(text.encode()).table.to_pylist()
    assert rows[0]["format"] == "cpp_stacktrace"
    assert (rows[0]["line_no"], rows[0]["line_end"]) == (1, 4)
    assert rows[1]["message"] == "after"


@pytest.mark.parametrize(
    ("lines", "wrapper", "inner_format"),
    [
        (
            [
                "2026-11-22T04:44:01.915983123Z stderr F I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:57785",
                "2026-11-22T04:44:02.000000000Z stdout F 2026-11-22 04:44:02,000 - INFO - step 1",
            ],
            "k8s_cri",
            "absl",
        ),
        (
            [
                '{"log":"I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:57785\\n","stream":"stderr","time":"2026-11-22T04:44:01.915983123Z"}',
                '{"log":"2026-11-22 04:44:02,000 - INFO - step \\"1\\"\\n","stream":"stdout","time":"2026-11-22T04:44:02.0Z"}',
            ],
            "docker_json",
            "absl",
        ),
        (
            [
                "[1,0]<stderr>:I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:57785",
                "[1,1]<stdout>:2026-11-22 04:44:02,000 - INFO - step 1",
            ],
            "mpirun",
            "absl",
        ),
        (
            [
                "0: I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:57785",
                "1: 2026-11-22 04:44:02,000 - INFO - step 1",
            ],
            "slurm",
            "absl",
        ),
        (
            [
                "2026-11-22T04:44:01.915983123Z I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:57785",
                "2026-11-22T04:44:02.000000000Z 2026-11-22 04:44:02,000 - INFO - step 1",
            ],
            "kubectl",
            "absl",
        ),
    ],
)
def test_wrappers_are_peeled(lines, wrapper, inner_format):
    parsed = parse_lines(("\n".join(lines) + "\n").encode())
    rows = parsed.table.to_pylist()
    assert parsed.wrapper == wrapper
    assert rows[0]["format"] == inner_format
    assert rows[0]["message"] == "Started server with target: grpc://127.0.0.1:57785"
    assert rows[1]["format"] == "python_logging"
    assert rows[1]["message"].startswith("step ")
    assert rows[0]["raw"] == lines[0]


def test_one_prefixed_line_among_others_is_no_wrapper():
    """Horovod's stall report lists ``Missing ranks:`` as ``1: [op]``: one such line in a short
    paste is not Slurm's ``--label`` prefix (most lines, at least two, must carry it); a
    one-line log still is when its line is."""
    report = (
        b"One or more tensors were submitted to be reduced by subset of ranks and are waiting "
        b"for remainder of ranks for more than 60 seconds.\nMissing ranks:\n"
        b"1: [DistributedAdam_Allreduce/HorovodAllreduce_0]\n"
    )
    assert parse_lines(report).wrapper is None
    assert parse_lines(b"2026-11-23T19:18:16.876636Z launcher: stopped\n").wrapper == "kubectl"
    assert parse_lines(b"0: step 1 loss 0.5\n1: step 1 loss 0.4\n0: done\n").wrapper == "slurm"


def test_rank_prefix_is_kept_for_node_identity():
    rows = parse_lines(b"[1,3]<stdout>:hello\n[1,3]<stdout>:again\n").table.to_pylist()
    assert {r["rank"] for r in rows} == {"3"}


def test_blank_lines_are_counted_as_rejected():
    parsed = parse_lines(b"a\n\n   \nb\n")
    assert parsed.lines_read == 4
    assert parsed.table.num_rows == 2
    assert parsed.rejected == {"blank line": 2}


def test_line_endings_crlf_and_lone_cr():
    parsed = parse_lines(b"a\r\nb\rc\n")
    assert [r["raw"] for r in parsed.table.to_pylist()] == ["a", "b", "c"]


def test_invalid_utf8_is_kept_escaped_and_reported():
    parsed = parse_lines(b"ok\nbad \xff\xfe byte\n")
    rows = parsed.table.to_pylist()
    assert rows[1]["raw"] == "bad \\xff\\xfe byte"
    assert any("UTF-8" in p for p in parsed.problems)


def test_utf16_with_bom():
    parsed = parse_lines("INFO:tensorflow:hello\n".encode("utf-16"))
    assert parsed.table.to_pylist()[0]["message"] == "hello"
    assert any("UTF-16" in p for p in parsed.problems)


def test_very_long_line_is_cut_and_reported():
    parsed = parse_lines(b"x" * (3 * 1024 * 1024) + b"\nshort\n")
    rows = parsed.table.to_pylist()
    assert len(rows[0]["raw"]) == 1024 * 1024
    assert rows[1]["raw"] == "short"
    assert any("longer than" in p for p in parsed.problems)


def test_unterminated_last_line_is_kept_and_reported():
    parsed = parse_lines(b"first\ncut mid-li")
    assert [r["raw"] for r in parsed.table.to_pylist()] == ["first", "cut mid-li"]
    assert any("no line end" in p for p in parsed.problems)


def test_group_starts_are_the_lines_the_expression_finds():
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.compute as pc

    from analyzer.formats.groups import GROUP_STARTS, group_starts
    from analyzer.formats.lines import bools

    root = Path(__file__).resolve().parent.parent
    lines = [
        line
        for folder in (root / "sample_logs", root / "tests" / "corpus" / "lab")
        for path in sorted(folder.rglob("*.log"))
        for line in path.read_text(errors="replace").splitlines()
    ]
    lines += ["Traceback (most recent call last):", " Traceback (most recent call last):",
              "Traceback (most recent call last): ", "*** Begin stack trace ***", "**", "*",
              "x *** Begin stack trace *** y", "*** Begin stack trace **", "", "é*"]  # fmt: skip
    array = pa.array(lines, pa.large_string())
    for part in (array, array.slice(7), array.slice(len(lines) - 10)):
        expected = bools(pc.match_substring_regex(part, GROUP_STARTS))
        assert expected.sum() > 0
        assert (group_starts(part) == expected).all()


@pytest.mark.parametrize("depth", [3, 31, 32, 33, 120, 700])
def test_a_traceback_of_any_length_is_one_event_to_its_exception(depth):
    frames = [f'  File "model.py", line {i}, in step\n    x = f(x)' for i in range(depth)]
    text = "\n".join(["Traceback (most recent call last):", *frames, "ValueError: bad", "after"])
    table = parse_lines((text + "\n").encode()).table
    first = table.to_pylist()[0]
    assert first["format"] == "python_traceback"
    lines = 2 * depth + 2
    expected = lines if lines <= 500 else 500  # a group is cut at _MAX_GROUP_LINES
    assert first["line_end"] == expected
    assert (first["message"] == "ValueError: bad") == (lines <= 500)


def test_colour_codes_are_removed_so_a_coloured_exception_reads_as_one() -> None:
    # (Jupyter's saved tracebacks colour the exception's name apart from its colon)
    data = b"\x1b[0;31mTypeError\x1b[0m: f() got an unexpected keyword argument 'x'\n"
    table = parse_lines(data).table
    assert table["message"].to_pylist() == ["TypeError: f() got an unexpected keyword argument 'x'"]
    # other control sequences are left for the reports to show escaped
    assert "\x1b]0;t\x07" in parse_lines(b"a \x1b]0;t\x07 b\n").table["raw"].to_pylist()[0]


def test_an_ignored_exception_is_one_event_with_its_announcement() -> None:
    data = (
        b"Exception ignored in: 'pyarrow.lib._PandasAPIShim._have_pandas_internal'\n"
        b"Traceback (most recent call last):\n"
        b'  File "pyarrow/pandas-shim.pxi", line 110, in _check_import\n'
        b"ModuleNotFoundError: No module named 'pyarrow.vendored'\n"
        b"next line\n"
    )
    table = parse_lines(data).table
    assert table["format"].to_pylist() == ["python_traceback", "plain"]
    assert table["detail"].to_pylist()[0].startswith("Exception ignored in: ")
    assert table["line_no"].to_pylist() == [1, 5]
    # a traceback after any other line starts at its own first line
    other = parse_lines(data.replace(b"Exception ignored in:", b"Something else:")).table
    assert other["format"].to_pylist() == ["plain", "python_traceback", "plain"]
