"""Reference entries (man-page options, API members, configuration keys, environment variables): an
answer about one entry quotes that entry, with its term, and never the entry next to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hwqa.engine import Engine

from .conftest import LOOPBACK_FETCH, built_hash_index, write_note
from .helpers_http import LoopbackSite, Reply

# A man page as a documentation generator writes it: options in a <dl>, a definition of several
# paragraphs with an admonition ("Note") in it, a pair of opposite flags.
MAN_PAGE = """<!doctype html><html><head><title>fetchq(1)</title></head><body><main>
<h1>fetchq(1)</h1>
<h2>Options</h2>
<dl class="option">
<dt><code>-t, --timeout SECONDS</code></dt>
<dd><p>How long fetchq waits for a mirror to answer before it gives up on that mirror.</p>
<p>The default is 30.</p></dd>
<dt><code>-r, --retries COUNT</code></dt>
<dd><p>How many times a failed download is attempted again before fetchq reports an error.</p>
<div class="admonition note"><p class="admonition-title">Note</p>
<p>Each attempt waits twice as long as the one before it.</p></div>
<p>The default is 5.</p></dd>
<dt><code>--keep-alive</code></dt>
<dd><p>Keep the connection to a mirror open between downloads.</p></dd>
<dt><code>--no-keep-alive</code></dt>
<dd><p>Close the connection to a mirror after every download.</p></dd>
</dl>
</main></body></html>"""

# An API reference: each member a signature (with type annotations, longer than a heading) and its text.
API_PAGE = """<!doctype html><html><head><title>zephyr.client</title></head><body><main>
<h1>zephyr.client</h1>
<dl class="py method">
<dt class="sig" id="Client.open_stream">Client.open_stream(device: int, depth: int = 4, pinned: bool = False) &#8594; Stream</dt>
<dd><p>Create a command stream on the device with room for depth queued kernels.</p>
<p>The stream is released when the client is closed.</p></dd>
</dl>
<dl class="py method">
<dt class="sig" id="Client.sync_stream">Client.sync_stream(stream: Stream, timeout_ms: int = 2000) &#8594; None</dt>
<dd><p>Block until every kernel queued on the stream has finished, or raise TimeoutError after timeout_ms.</p>
<p>Calling it on a released stream raises ValueError.</p></dd>
</dl>
<dl class="py method">
<dt class="sig" id="Client.pin_memory">Client.pin_memory(buffer: bytes, device: int | None = None) &#8594; PinnedBuffer</dt>
<dd><p>Page-lock the host buffer so that copies to the device skip the staging area.</p></dd>
</dl>
</main></body></html>"""


# A C library's reference as Doxygen writes it: a heading, then a prototype table and its documentation.
DOXYGEN_MEMBER = """<h2 class="memtitle">&#9670;&nbsp;{name}()</h2>
<div class="memitem"><div class="memproto"><table class="memname"><tr>
<td class="memname">int {name}</td><td>(</td><td class="paramtype">struct zq_queue *&#160;</td>
<td class="paramname"><em>queue</em></td><td>)</td></tr></table></div>
<div class="memdoc"><p>{text}</p>
<dl class="section return"><dt>Returns</dt><dd>{returns}</dd></dl></div></div>"""
DOXYGEN_PAGE = (
    '<!doctype html><html><head><title>zq.h File Reference</title></head><body><div class="contents">'
    "<h1>zq.h File Reference</h1>"
    + DOXYGEN_MEMBER.format(name="zq_drain", text="Waits until every job of the queue has run.", returns="0 once drained.")
    + DOXYGEN_MEMBER.format(
        name="zq_flush", text="Drops the jobs still waiting in the queue.", returns="the number of jobs dropped."
    )
    + "</div></body></html>"
)


@pytest.fixture
def site() -> Iterator[LoopbackSite]:
    routes = {"/man/fetchq.html": Reply(body=MAN_PAGE), "/api/client.html": Reply(body=API_PAGE)}
    routes["/c/zq.html"] = Reply(body=DOXYGEN_PAGE)
    routes["/robots.txt"] = Reply(body="User-agent: *\nAllow: /\n", content_type="text/plain")
    with LoopbackSite(routes) as s:
        yield s


@pytest.fixture
def docs(tmp_path: Path, site: LoopbackSite) -> Engine:
    notes = tmp_path / "notes"
    write_note(notes, "fetchq.md", f"# fetchq\n\nThe mirror tool's [manual page]({site.url('/man/fetchq.html')}).\n")
    write_note(notes, "zephyr.md", f"# Zephyr SDK\n\nThe [client reference]({site.url('/api/client.html')}).\n")
    write_note(notes, "zq.md", f"# zq\n\nThe [zq C API]({site.url('/c/zq.html')}).\n")
    return Engine.load(built_hash_index(tmp_path, **LOOPBACK_FETCH, min_score=0.0))


def test_an_option_is_quoted_with_its_own_term_not_the_neighbouring_one(docs: Engine) -> None:
    """The retries default sits after a "Note" in its definition: the quote still names --retries, and
    states 5, not the timeout's 30. Of a pair of opposite flags, the one asked is quoted."""
    answer = docs.ask("What is the default for --retries?")
    first = answer.text.split("[1]")[0]
    assert "--retries" in first and "5" in first, answer.text
    assert "30" not in first and "--timeout" not in first, answer.text
    answer = docs.ask("What does --no-keep-alive do?")
    first = answer.text.split("[1]")[0]
    assert "--no-keep-alive: Close the connection to a mirror after every download" in first, answer.text
    assert "Keep the connection to a mirror open" not in first, answer.text


def test_an_api_member_is_quoted_with_its_signature_and_not_its_neighbours_text(docs: Engine) -> None:
    answer = docs.ask("What does Client.sync_stream do?")
    first = answer.text.split("[1]")[0]
    assert "Client.sync_stream(stream: Stream, timeout_ms: int = 2000)" in first, answer.text
    assert "Block until every kernel queued on the stream has finished" in first, answer.text
    assert "Create a command stream" not in first and "Page-lock" not in first, answer.text
    # A later paragraph of a member is quoted under its signature, never under the member above it.
    answer = docs.ask("What happens when Client.sync_stream is called on a released stream?")
    first = answer.text.split("[1]")[0]
    assert "Client.sync_stream(" in first and "raises ValueError" in first, answer.text
    assert "Client.open_stream(" not in first, answer.text


def test_a_doxygen_member_is_quoted_with_its_prototype(docs: Engine) -> None:
    answer = docs.ask("What does zq_flush return?")
    first = answer.text.split("[1]")[0]
    assert "int zq_flush(struct zq_queue * queue)" in first and "the number of jobs dropped" in first, answer.text
    assert "zq_drain" not in first and "0 once drained" not in first, answer.text


# Environment variables as notes list them: "NAME: what it does", one a line.
ENV_LINES = """
# Zephyr runtime settings

ZEPHYR_CACHE_DIR: Where compiled kernels are kept between runs. Defaults to ~/.cache/zephyr.
ZEPHYR_THREADS: How many host threads feed the device queues. Defaults to 8.
ZEPHYR_TRACE: Whether every kernel launch is written to the trace log. Defaults to off.
"""


def test_a_setting_s_default_is_quoted_with_its_name(tmp_path: Path) -> None:
    write_note(tmp_path / "notes", "zephyr-env.md", ENV_LINES)
    engine = Engine.load(built_hash_index(tmp_path, min_score=0.0))
    answer = engine.ask("What does ZEPHYR_THREADS default to?")
    first = answer.text.split("[1]")[0]
    assert "ZEPHYR_THREADS" in first and "Defaults to 8" in first, answer.text
    assert "~/.cache/zephyr" not in first and "ZEPHYR_CACHE_DIR" not in first, answer.text


# A long entry, cut between chunks: the second chunk still says which option it is about.
LONG_OPTION = "\n".join(
    [
        "<!doctype html><html><head><title>runq(1)</title></head><body><main><h1>runq(1)</h1><h2>Options</h2><dl>",
        "<dt>--placement POLICY</dt><dd>",
        *(
            f"<p>Placement rule {i} moves queued work between the boards of a rack when rule {i - 1} leaves a board idle.</p>"
            for i in range(1, 16)
        ),
        "<p>The spread policy puts each job on the least loaded board of the rack.</p></dd>",
        "<dt>--priority LEVEL</dt><dd><p>The share of the rack a job may take when the queue is full.</p></dd>",
        "</dl></main></body></html>",
    ]
)


def test_a_long_entry_cut_between_chunks_keeps_its_term(tmp_path: Path) -> None:
    with LoopbackSite({"/man/runq.html": Reply(body=LONG_OPTION)}) as s:
        write_note(tmp_path / "notes", "runq.md", f"# runq\n\nThe [runq manual]({s.url('/man/runq.html')}).\n")
        settings = built_hash_index(
            tmp_path, min_score=0.0, fetch_links=True, allow_private_hosts=True, fetch_host_delay=0.0, chunk_tokens=120
        )
    answer = Engine.load(settings).ask("Which board does the spread policy put a job on?")
    first = answer.text.split("[1]")[0]
    assert "--placement POLICY" in first and "least loaded board" in first, answer.text
    assert "--priority" not in first, answer.text


# Options as a man page prints them, copied into a note: the option, then its description indented.
MAN_OPTIONS_NOTE = """
# fetchq options

-t, --timeout SECONDS
    How long fetchq waits for a mirror to answer before it gives up on that mirror.
    The default is 30.

-r, --retries COUNT
    How many times a failed download is attempted again before fetchq reports an error.
    The default is 5.

--keep-alive
    Keep the connection to a mirror open between downloads.
"""


def test_an_option_copied_from_a_man_page_is_quoted_with_its_flag(tmp_path: Path) -> None:
    write_note(tmp_path / "notes", "fetchq.md", MAN_OPTIONS_NOTE)
    answer = Engine.load(built_hash_index(tmp_path, min_score=0.0)).ask("What is the default for --retries?")
    first = answer.text.split("[1]")[0]
    assert "--retries" in first and "The default is 5" in first, answer.text
    assert "30" not in first and "--timeout" not in first, answer.text


OWNER_ITEMS = """---
title: Credits
---
# Credits

## Spending them

* GCP: a2-highgpu-1g (1x A100 40G) is $3.67/hr on-demand in us-central1.
* AWS: p3.2xlarge (1x V100 16G) on-demand is $3.06/hr.

## Docks

* [R43SG OCuLink dock - ADT-Link](https://example.org/r43sg) - the cheap oculink route, no thunderbolt at all.
"""


def test_an_item_that_names_its_key_is_quoted_with_it_once_and_a_link_title_is_no_key(tmp_path: Path) -> None:
    """ "GCP: a2-highgpu-1g …" already says its term: the quote does not say "GCP: GCP:". A link item's title
    ("[R43SG OCuLink dock - ADT-Link](…) - comment") is not a "key - description" entry."""
    write_note(tmp_path / "notes", "credits.md", OWNER_ITEMS)
    engine = Engine.load(built_hash_index(tmp_path, min_score=0.0))
    text = engine.ask("which region is the a2-highgpu-1g instance in?").text
    assert "GCP: a2-highgpu-1g" in text and "GCP: GCP" not in text, text
    text = engine.ask("which dock is the cheap oculink route?").text
    assert "R43SG OCuLink dock" in text and "[R43SG" not in text and "dock: R43SG" not in text, text


# A function's text as GNU Texinfo writes it (FFTW's manual, @example prototypes): no <dl>, no member markup.
# A prototype under a heading, then the paragraphs that describe it; a sentence ending in ":" that the
# prototype completes; a sentence that goes on in lower case after its prototype; a tutorial's code that
# the paragraph before it already speaks of, followed by narrative that is about something else.
TEXINFO_PAGE = """<!doctype html><html><head><title>Planner and wisdom (qzfft)</title></head><body><main>
<h1>Planner and wisdom</h1>
<h4 class="subsubheading">Limiting planning time</h4>
<div class="example"><pre class="example">extern void qz_set_timelimit(double seconds);
</pre></div>
<p>This function instructs the planner to spend at most <var>seconds</var> seconds (approximately) planning.</p>
<p>If <var>seconds</var> is <code>QZ_NO_TIMELIMIT</code> (the default value, which is negative), then planning
time is unbounded.</p>
<h4>Saving plans</h4>
<p>Whenever you create a plan, the planner accumulates wisdom about the fastest algorithms.
After planning, you can save this information to disk by means of the function:</p>
<div class="example"><pre class="example">int qz_export_wisdom_to_filename(const char *filename);
</pre></div>
<p>(This function returns non-zero on success.)</p>
<p>The next time you run the program, you can restore the wisdom with <code>qz_import_wisdom_from_filename</code>.</p>
<div class="example"><pre class="example">int qz_import_wisdom_from_filename(const char *filename);
</pre></div>
<p>Wisdom is automatically used for any size to which it is applicable, as long as the flags are not more patient.</p>
<h4>Destroying plans</h4>
<p>When you are done with a plan, this function:</p>
<div class="example"><pre class="example">void qz_destroy_plan(qz_plan plan);
</pre></div>
<p>deallocates the plan and all its associated data.</p>
</main></body></html>"""


@pytest.fixture
def texinfo(tmp_path: Path) -> Iterator[Engine]:
    with LoopbackSite({"/qz/planner.html": Reply(body=TEXINFO_PAGE)}) as s:
        write_note(tmp_path / "notes", "qzfft.md", f"# qzfft\n\nThe [planner chapter]({s.url('/qz/planner.html')}).\n")
        yield Engine.load(built_hash_index(tmp_path, **LOOPBACK_FETCH, min_score=0.0))


def test_a_function_s_text_is_quoted_with_the_signature_above_it(texinfo: Engine) -> None:
    """ "This function instructs the planner …" names no function: the quote shows the prototype it describes."""
    answer = texinfo.ask("How do I limit the time the planner spends planning?")
    first = answer.text.split("[1]")[0]
    assert "qz_set_timelimit(double seconds)" in first and "at most seconds seconds" in first, answer.text
    answer = texinfo.ask("What is the default value of the planning time limit?")
    first = answer.text.split("[1]")[0]
    assert "qz_set_timelimit" in first and "QZ_NO_TIMELIMIT" in first, answer.text
    # Code the paragraph before it already speaks of is that paragraph's: the narrative after it is no entry of it.
    answer = texinfo.ask("Is wisdom used automatically for any size?")
    first = answer.text.split("[1]")[0]
    assert "Wisdom is automatically used for any size" in first, answer.text
    assert "qz_import_wisdom_from_filename(const char" not in first, answer.text


def test_a_sentence_ending_in_a_colon_is_quoted_with_the_code_it_introduces(texinfo: Engine) -> None:
    """ "… by means of the function:" is never the whole answer: the prototype it introduces is quoted with it,
    also when the sentence asked about is the one after it ("(This function returns …)")."""
    answer = texinfo.ask("Which function saves the wisdom to disk?")
    first = answer.text.split("[1]")[0]
    assert "by means of the function: `int qz_export_wisdom_to_filename(const char *filename)`" in first, answer.text
    answer = texinfo.ask("What does the function that saves wisdom to disk return on success?")
    first = answer.text.split("[1]")[0]
    assert "qz_export_wisdom_to_filename" in first and "non-zero on success" in first, answer.text
    assert "(This function returns non-zero on success.):" not in answer.text, answer.text  # a sentence is no term


def test_a_sentence_that_goes_on_after_its_prototype_is_one_sentence(texinfo: Engine) -> None:
    answer = texinfo.ask("How do I deallocate a plan?")
    first = answer.text.split("[1]")[0]
    assert "this function: void qz_destroy_plan(qz_plan plan) deallocates the plan" in first, answer.text


NODE_STATES = """
# nodeq node states

DRAINED
: The node is unavailable for use per administrator request. See the update command in the manual for how to bring it
  back into service later on.

DRAINING
: The node is currently executing a job, but will not be allocated additional jobs by the scheduler of the cluster.
  Nodes enter this state per administrator request, usually before maintenance of the rack or its power supply. The
  state changes to DRAINED when the last job on it completes. See the update command in the manual for more.
"""


def test_a_later_sentence_of_an_entry_is_quoted_after_what_the_entry_says_first(tmp_path: Path) -> None:
    """A long entry's later sentence answers, but the reader is told what the term is first."""
    write_note(tmp_path / "notes", "nodeq.md", NODE_STATES)
    answer = Engine.load(built_hash_index(tmp_path, min_score=0.0)).ask("When does the state change to DRAINED?")
    first = answer.text.split("[1]")[0]
    assert "DRAINING: The node is currently executing a job, but will not be allocated additional jobs" in first, answer.text
    assert "changes to DRAINED when the last job on it completes" in first, answer.text
    assert "unavailable for use per administrator request" not in first, answer.text


# A reference page whose sentence runs straight into its code, without a colon, and a lead-in whose code
# block holds several statements: the code is the sentence's end, all of it.
RUN_ON_PAGE = """<!doctype html><html><head><title>Staging buffers</title></head><body><main>
<h1>Staging buffers</h1>
<p>A staging buffer holds the messages that wait for a slow receiver. Each message needs room for its payload and a
fixed header. To be safe, the length given to kv_attach should be at least the value computed by</p>
<pre>kv_payload_size(20, rec_a, &amp;n1);
kv_payload_size(40, rec_b, &amp;n2);
len = n1 + n2 + 2 * KV_HEADER_BYTES;</pre>
<p>The buffer is released with kv_detach when the receiver has caught up.</p>
<h2>Sessions</h2>
<p>A session that should survive a restart of the broker is opened with its name and then marked durable:</p>
<pre>kv_open("orders", &amp;s);
kv_set_durable(s, 1);</pre>
<p>Sessions that are not durable are dropped when the broker restarts.</p>
</main></body></html>"""


def test_a_sentence_that_runs_into_its_code_is_quoted_with_all_of_it(tmp_path: Path) -> None:
    """ "… the value computed by" is no answer alone: the short code block it runs into is quoted with it, every
    line, and so is every statement of a short block after a lead-in ending in ":"."""
    with LoopbackSite({"/kv/buffers.html": Reply(body=RUN_ON_PAGE)}) as s:
        write_note(tmp_path / "notes", "kv.md", f"# kv\n\nThe [staging buffer page]({s.url('/kv/buffers.html')}).\n")
        engine = Engine.load(built_hash_index(tmp_path, **LOOPBACK_FETCH, min_score=0.0))
        answer = engine.ask("How large should the length given to kv_attach be?")
        first = answer.text.split("[1]")[0]
        assert "at least the value computed by `kv_payload_size(20, rec_a, &n1);" in first, answer.text
        assert "len = n1 + n2 + 2 * KV_HEADER_BYTES" in first, answer.text
        answer = engine.ask("How do I open a session that survives a restart of the broker?")
        first = answer.text.split("[1]")[0]
        assert 'kv_open("orders", &s)' in first and "kv_set_durable(s, 1)" in first, answer.text


# A tool's page that shows its --help output as printed: options in a code block, one a line or the
# option on its own line and its description indented under it, as man pages print them.
HELP_PAGE = """<!doctype html><html><head><title>blkcopy</title></head><body><main>
<h1>blkcopy</h1>
<p>blkcopy copies a block device to a file, block by block.</p>
<pre>usage: blkcopy [-q] [-n COUNT] [-w SECONDS] SOURCE TARGET

  -q, --quiet          do not print the progress bar
  -n, --count COUNT    stop after COUNT blocks instead of at the end of the device
  -w, --wait SECONDS   pause this many seconds between two blocks, to spare a
                       slow disk (default 0)
  --verify
         read every block back after writing it and compare it with the source
</pre>
</main></body></html>"""


def test_an_option_of_a_help_text_in_a_code_block_is_quoted_with_its_flags(tmp_path: Path) -> None:
    """An option of a --help text is an entry: the quote names the option asked and says what it does, never
    the option on the line above or below it."""
    with LoopbackSite({"/blkcopy.html": Reply(body=HELP_PAGE)}) as s:
        write_note(tmp_path / "notes", "blkcopy.md", f"# blkcopy\n\nThe [blkcopy page]({s.url('/blkcopy.html')}).\n")
        engine = Engine.load(built_hash_index(tmp_path, **LOOPBACK_FETCH, min_score=0.0))
        answer = engine.ask("Which option makes blkcopy pause between blocks to spare a slow disk?")
        first = answer.text.split("[1]")[0]
        assert "-w, --wait SECONDS: pause this many seconds between two blocks, to spare a slow disk (default 0)" in first, (
            answer.text
        )
        assert "--count" not in first and "--verify" not in first, answer.text
        answer = engine.ask("How do I make blkcopy read every block back after writing it?")
        first = answer.text.split("[1]")[0]
        assert "--verify: read every block back after writing it" in first and "--wait" not in first, answer.text


# Tables without a header row: Doxygen's parameter table and an options table written with <td> only.
# Read with its first row as a header, every row would carry the first row's text.
TERM_TABLES_PAGE = """<!doctype html><html><head><title>zq_open</title></head><body><main>
<h1>zq_open and zqls</h1>
<p>zq_open opens a queue by its name.</p>
<dl class="params"><dt>Parameters</dt><dd>
<table class="params">
<tr><td class="paramdir">[in]</td><td class="paramname">name</td><td>the queue's name, at most 31 bytes long</td></tr>
<tr><td class="paramdir">[in]</td><td class="paramname">depth</td><td>how many jobs may wait in the queue; 0 means 64</td></tr>
<tr><td class="paramdir">[out]</td><td class="paramname">queue</td><td>where the handle of the queue is written</td></tr>
</table></dd></dl>
<h2>zqls</h2>
<p>zqls lists the queues of the machine.</p>
<table>
<tr><td><code>-a</code></td><td>show all queues, the empty ones too</td></tr>
<tr><td><code>-l</code></td><td>long listing, with the depth of each queue</td></tr>
<tr><td><code>-s</code></td><td>sort the queues by the number of waiting jobs</td></tr>
</table>
</main></body></html>"""


def test_a_row_of_a_table_without_a_header_is_an_entry_of_its_own(tmp_path: Path) -> None:
    """An options or parameters table written without a header row: the quote names the row asked about
    (its option, its parameter) and says only what that row says, never the first row's text."""
    with LoopbackSite({"/zq/open.html": Reply(body=TERM_TABLES_PAGE)}) as s:
        write_note(tmp_path / "notes", "zq.md", f"# zq\n\nThe [zq_open reference]({s.url('/zq/open.html')}).\n")
        engine = Engine.load(built_hash_index(tmp_path, **LOOPBACK_FETCH, min_score=0.0))
        answer = engine.ask("What does the -l option of zqls show?")
        first = answer.text.split("[1]")[0]
        assert "-l: long listing, with the depth of each queue" in first, answer.text
        assert "show all queues" not in first and "sort the queues" not in first, answer.text
        answer = engine.ask("What does a depth of 0 mean for zq_open?")
        first = answer.text.split("[1]")[0]
        assert "depth" in first and "how many jobs may wait in the queue; 0 means 64" in first, answer.text
        assert "31 bytes" not in first, answer.text


# A man page's EXAMPLES as a definition list: each example's text is the term, its command the definition.
EXAMPLES_PAGE = """<!doctype html><html><head><title>qdel(1)</title></head><body><main>
<h1>qdel(1)</h1>
<h2>EXAMPLES</h2>
<dl compact="compact">
<dt>Remove every job of user "ann" that is still waiting to start:</dt>
<dd><pre>$ qdel --state=WAITING --user=ann</pre></dd>
<dt>Remove only task 7 of the task array 4410</dt>
<dd><pre>$ qdel 4410.7</pre></dd>
</dl>
</main></body></html>"""


def test_an_example_whose_definition_is_its_command_is_quoted_with_it(tmp_path: Path) -> None:
    with LoopbackSite({"/qdel.html": Reply(body=EXAMPLES_PAGE)}) as s:
        write_note(tmp_path / "notes", "qdel.md", f"# qdel\n\nThe [qdel manual]({s.url('/qdel.html')}).\n")
        engine = Engine.load(built_hash_index(tmp_path, **LOOPBACK_FETCH, min_score=0.0))
        answer = engine.ask("How do I remove only one task of a task array with qdel?")
        first = answer.text.split("[1]")[0]
        assert "Remove only task 7 of the task array 4410" in first and "qdel 4410.7" in first, answer.text
        answer = engine.ask("How do I remove all of a user's waiting jobs with qdel?")
        first = answer.text.split("[1]")[0]
        assert "qdel --state=WAITING --user=ann" in first, answer.text


# A configuration reference whose sections are each one directive, named by the heading and not by its sentences.
DIRECTIVES = """# Gatekeeper directives

## KeepIdleWorkers Directive

The largest number of idle worker threads each child process holds on to before it starts closing them.

## UpstreamHostHeader Directive

When enabled, the Host line of the incoming request is passed on to the upstream server instead of the upstream's own
name.

## Installation

Unpack the archive and run the installer as root.
"""


def test_a_sentence_of_a_directive_s_section_is_quoted_with_the_directive_it_describes(tmp_path: Path) -> None:
    write_note(tmp_path / "notes", "gatekeeper.md", DIRECTIVES)
    engine = Engine.load(built_hash_index(tmp_path, min_score=0.0))
    answer = engine.ask("which directive passes the original Host line on to the upstream server")
    first = answer.text.split("[1]")[0]
    assert first.startswith("UpstreamHostHeader: When enabled"), answer.text
    answer = engine.ask("how do I install gatekeeper")  # a heading of words names no term
    assert "Installation:" not in answer.text and "Unpack the archive" in answer.text, answer.text
