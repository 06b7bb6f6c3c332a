#!/usr/bin/env python3
"""The figures the documents quote from bench/RESULTS.md, recomputed from
its generated sections.

The documents are the guide (README.md and the pages of doc/: a figure of
the guide may stand on any of them) and the manual, man/mysqlmemprof.1.
Prints each quoted phrase as the results give it and says whether the
document holds it; exits 1 when one does not, when a section it reads is
missing, or when a paragraph of the guide cites bench/RESULTS.md beside a
figure (a number with a unit) and holds none of the phrases checked here:
a figure quoted from the results must be one this script recomputes. So
after a run of make bench (which runs this last) the phrases printed as
MISSING are put in the documents in place of the old ones. Whitespace is
compared loosely: a phrase may wrap across lines. make check runs it.

    python3 bench/docfigures.py [-q] [RESULTS.md]

-q prints only what fails. Standard library only.
"""
import glob
import os
import re
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
# The guide: README.md and doc/*.md, read as one document.
GUIDE = "README.md, doc/*.md"
MAN = os.path.join(ROOT, "man", "mysqlmemprof.1")


def guide_files():
    return [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "doc", "*.md")))


class Missing(Exception):
    pass


def tables(text, name):
    """The Markdown tables of section name: a list of (header, rows), each
    row a list of cells."""
    m = re.search(r"<!-- begin: %s -->\n(.*?)<!-- end: %s -->"
                  % (re.escape(name), re.escape(name)), text, re.S)
    if not m:
        raise Missing("no section %s" % name)
    out, cur = [], None
    for line in m.group(1).splitlines():
        if not line.startswith("|"):
            cur = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cur is None:
            cur = (cells, [])
            out.append(cur)
        elif not set("".join(cells)) <= set("-: "):
            cur[1].append(cells)
    return out


def number(cell):
    """A table's cell as a float: '1,234', '21.58 µs'; None for '-'."""
    m = re.match(r"-?[\d,]+(\.\d+)?", cell.strip("*"))
    return float(m.group(0).replace(",", "")) if m else None


def cell(text, name, first_header, row, column):
    """The number in section name, in the table whose first header cell
    is first_header, at the row whose first cell is row and the column
    whose header begins with column."""
    for header, rows in tables(text, name):
        if header[0] != first_header:
            continue
        col = [i for i, h in enumerate(header) if h.startswith(column)]
        hit = [r for r in rows if r[0] == row]
        if col and hit:
            v = number(hit[0][col[0]])
            if v is None:
                raise Missing("%s: %s / %s is empty" % (name, row, column))
            return v
    raise Missing("%s: no %s / %s" % (name, row, column))


def ms(us):
    """Microseconds as the documents write milliseconds."""
    v = us / 1000.0
    return "%.0f" % v if v >= 10 else "%.1f" % v


def size(mib):
    return "%.1f GiB" % (mib / 1024.0) if mib >= 1024 else "%.0f MiB" % mib


def phrases(text):
    """(document, phrase) pairs, the phrase as the results give it."""
    def poll(kind, query, level):
        return cell(text, "poll-" + kind, "query", query, "%d idle" % level)

    def curve(row, column):
        return cell(text, "overhead", "idle connections", row, column)

    sample = "one thread's sample (for scale)"
    look = {"mariadb": "look (MariaDB's: one GROUP BY)",
            "mysql": "look (MySQL 8.0.31+: threads.TOTAL_MEMORY)"}
    peaks = {"mariadb": "look with peaks (MariaDB: PROCESSLIST)",
             "mysql": "look with peaks (MySQL: MAX_TOTAL_MEMORY)"}
    lst = {"mariadb": "--list (GROUP BY)",
           "mysql": "--list (threads.TOTAL_MEMORY)"}
    history = "history read, 2 threads"
    status = "read /proc/PID/status"
    smaps = "read /proc/PID/smaps_rollup"
    rss = "server's VmRSS (MiB, not µs)"
    growth = "growth per thread (least squares)"
    out = []

    def add(doc, fn):
        try:
            out.append((doc, fn()))
        except Missing as e:
            out.append((doc, None, str(e)))

    # The guide, what sampling costs the server.
    add(GUIDE, lambda: "about %.0f µs per thread" % curve(
        growth, "mysqlmemprof server µs/sample"))
    add(GUIDE, lambda: (
        "one thread's memory rows took %s, %s and %s ms on MariaDB 10.11 "
        "with 0, 100 and 1,000 idle connections, %s, %s and %s ms on MySQL "
        "9.7" % tuple(ms(poll(k, sample, n)) for k in ("mariadb", "mysql")
                      for n in (0, 100, 1000))))
    add(GUIDE, lambda: (
        "`--list` took %s ms there against %s ms on MariaDB, and the look "
        "%s ms against %s" % (ms(poll("mysql", lst["mysql"], 1000)),
                              ms(poll("mariadb", lst["mariadb"], 1000)),
                              ms(poll("mysql", look["mysql"], 1000)),
                              ms(poll("mariadb", look["mariadb"], 1000)))))
    # The guide, --bigger-than: its look and the history's read on MariaDB.
    add(GUIDE, lambda: (
        "the history one more: about %s ms and %s ms at 1,000 connections"
        % (ms(poll("mariadb", peaks["mariadb"], 1000)),
           ms(poll("mariadb", history, 1000)))))
    # The guide, the memory performance_schema does not see, and the man
    # page's --global: reading /proc, with no idle connections.
    add(GUIDE, lambda: (
        "(`status`: the kernel's counters, %.2f ms, where `smaps_rollup` "
        "takes %s to %s ms on the sandboxes" % ((
            max(poll(k, status, 0) for k in ("mariadb", "mysql")) / 1000.0,)
            + tuple(sorted((ms(poll(k, smaps, 0)) for k in
                            ("mariadb", "mysql")), key=float)))))
    add(MAN, lambda: "which cost some %.2f ms." % (
        max(poll(k, status, 0) for k in ("mariadb", "mysql")) / 1000.0))
    add(MAN, lambda: (
        "%s ms for a MariaDB sandbox of %s, %s ms for a MySQL of %s"
        % (ms(poll("mariadb", smaps, 0)), size(poll("mariadb", rss, 0)),
           ms(poll("mysql", smaps, 0)), size(poll("mysql", rss, 0)))))
    # The man page, --max-load: mysqlmemprof's own query time on MariaDB.
    add(MAN, lambda: "about %.0f \\(mcs per thread" % curve(
        growth, "mysqlmemprof query µs"))
    add(MAN, lambda: "at %s threads a sample costs about %s ms" % (
        "{:,.0f}".format(curve("0", "threads")),
        ms(curve("0", "mysqlmemprof query µs"))))
    add(MAN, lambda: (
        "at 1,000 connections a sample costs about %s ms, and the default "
        "stretches a 100 ms interval to about %.0f ms" % (
            ms(curve("1,000", "mysqlmemprof query µs")),
            max(100, round(curve("1,000", "mysqlmemprof query µs")
                           / 1000.0 / 0.10, -1)))))
    # The man page, "What a look costs": its table, a row a level.
    for kind in ("mariadb", "mysql"):
        for n, label in ((0, "0 connections"), (100, "100"),
                         (1000, "1,000")):
            add(MAN, lambda kind=kind, n=n, label=label: (
                ".It %s Ta %s, %s Ta %s Ta %s Ta %s" % (
                    label, ms(poll(kind, look[kind], n)),
                    ms(poll(kind, peaks[kind], n)),
                    ms(poll(kind, history, n)),
                    ms(poll(kind, sample, n)),
                    ms(poll(kind, lst[kind], n)))))
    add(MAN, lambda: "about %.0f times the look at 1,000 connections" % (
        poll("mariadb", peaks["mariadb"], 1000) /
        poll("mariadb", look["mariadb"], 1000)))
    add(MAN, lambda: "default 1000 ms, some %.0f%% of a core" % (
        (poll("mariadb", peaks["mariadb"], 1000) +
         poll("mariadb", history, 1000)) / 1e6 * 100))
    # The man page, the layers of --explain: what smaps and a whole run
    # take, with no idle connections and with 1,000.
    explain = "mysqlmemprof --explain, a whole run"
    whole_smaps = "read /proc/PID/smaps"
    add(MAN, lambda: (
        "reading smaps took %s and %s ms on the MariaDB and MySQL sandboxes, "
        "a whole run of --explain %s and %s ms (%s and %s ms with 1,000 idle "
        "connections)" % (ms(poll("mariadb", whole_smaps, 0)),
                          ms(poll("mysql", whole_smaps, 0)),
                          ms(poll("mariadb", explain, 0)),
                          ms(poll("mysql", explain, 0)),
                          ms(poll("mariadb", explain, 1000)),
                          ms(poll("mysql", explain, 1000)))))
    record_phrases(text, add)
    run_phrases(text, add)
    scale_phrases(text, add)
    heap_phrases(text, add)
    return out


def run_phrases(text, add):
    """The guide's figures of bench/run.py: mysqlmemprof's own memory over
    a long run, and the client CPU of the bare query paced."""
    def rss(after):
        return cell(text, "run", "after samples", after, "VmRSS")

    add(GUIDE, lambda: "and under %.0f MiB" % -(-rss("30,000") // 1024))
    add(GUIDE, lambda: (
        "Its memory stays flat over a long run (%s KiB after 100 samples, "
        "%s KiB after 30,000)" % ("{:,.0f}".format(rss("100")),
                                 "{:,.0f}".format(rss("30,000")))))
    add(GUIDE, lambda: (
        "every 10 ms with no formatting at all costs %s µs of client CPU"
        % cell(text, "run", "figure", "client CPU per sample (µs)",
               "floor, mmp's query, paced")))


def scale_phrases(text, add):
    """The guide's figures of bench/scale_cost.py: MariaDB's tables come
    first in its section."""
    def tick(column):
        return "{:,.0f}".format(cell(text, "scale", "idle connections",
                                     "1,000", column))

    def written(run):
        return "%.0f of 80" % cell(text, "scale", "run", "1,000 idle: " + run,
                                   "samples written")

    add(GUIDE, lambda: (
        "cost the server %s µs a tick and every tick but the first's payback "
        "had its total (%s), against %s µs and %s with the rows each tick "
        "(`--rows-every 0`) and %s µs for the Python sampler" % (
            tick("a mysqlmemprof"), written("a mysqlmemprof"),
            tick("b mysqlmemprof"), written("b mysqlmemprof --rows-every 0"),
            tick("e Python sampler"))))


def heap_phrases(text, add):
    """The man page's cost of jemalloc's profiling (bench/heap_cost.py)."""
    setting = {"jemalloc": "jemalloc: LD_PRELOAD, no MALLOC_CONF",
               "prof": "prof: prof:true (lg_prof_sample 19)",
               "recommended": "recommended: prof:true, lg_prof_interval:32"}

    def slower(who, statement, section="heap"):
        return "%.2f" % cell(text, section, "setting", setting[who],
                             statement)

    def per_run(interval):
        return "%g" % round(cell(text, "heap", "lg_prof_interval (jemalloc's"
                                 " average)", interval, "dumps a run"), 1)

    def heap(run, column):
        return cell(text, "heap", "run", run, column)

    def folder():
        m = re.search(r"runs of `user-var` left ([\d,]+) dumps, ([\d,]+) "
                      r"bytes", text)
        if not m:
            raise Missing("heap: no folder of dumps")
        return m.group(1), size(number(m.group(2)) / 2**20)

    def kept(who):
        return "%.2f" % cell(text, "heap", "setting", setting[who],
                             "TPS / off")

    add(MAN, lambda: (
        "allocates little, kept %s and %s of its throughput (jemalloc "
        "preloaded without profiling: %s)" % (
            kept("prof"), kept("recommended"), kept("jemalloc"))))
    add(MAN, lambda: (
        "took %s and %s times as long, and a user variable set to 100,000 "
        "bytes 20,000 times %s and %s times (jemalloc preloaded without "
        "profiling: %s and %s)" % (
            slower("prof", "cte-insert"), slower("recommended", "cte-insert"),
            slower("prof", "user-var"), slower("recommended", "user-var"),
            slower("jemalloc", "cte-insert"),
            slower("jemalloc", "user-var"))))
    add(MAN, lambda: (
        "the same two took %s and %s, and %s and %s times as long" % tuple(
            slower(who, st, "heap-mysql") for st in ("cte-insert", "user-var")
            for who in ("prof", "recommended"))))
    add(MAN, lambda: (
        "%s dumps a run of that user-variable statement at "
        "lg_prof_interval:32 and %s at 36; ten runs at 26 left %s dumps, "
        "%s" % ((per_run("32 (4 GiB)"), per_run("36 (64 GiB)")) +
                folder())))
    add(MAN, lambda: (
        "read the newest of them and named its frames in %.2f s with at most "
        "%.0f MiB resident, and the growth since the first in %.2f s" % (
            heap("the newest dump, text", "wall"),
            heap("the newest dump, text", "max RSS"),
            heap("--heap-base first (the first and the newest)", "wall"))))


def record_part(text, server):
    """Section record's part of server ("MariaDB", "MySQL"), as a section
    named part of its own (tables() reads it)."""
    m = re.search(r"<!-- begin: record -->\n(.*?)<!-- end: record -->",
                  text, re.S)
    if not m:
        raise Missing("no section record")
    part = re.search(r"### %s[^\n]*\n(.*?)(?=\n### |\Z)" % server,
                     m.group(1), re.S)
    if not part:
        raise Missing("no part %s in section record" % server)
    return "<!-- begin: part -->\n%s<!-- end: part -->" % part.group(1)


def record_cell(text, server, first_header, row, column):
    """As cell(), in section record's part of server ("MariaDB",
    "MySQL"): each server's tables have the same headers."""
    for header, rows in tables(record_part(text, server), "part"):
        if header[0] != first_header:
            continue
        col = next(i for i, h in enumerate(header) if h.startswith(column))
        for r in rows:
            if r[0].startswith(row):
                return number(r[col].strip("*"))
    raise Missing("no %s/%s/%s in record's %s" % (first_header, row, column,
                                                 server))


def record_phrases(text, add):
    """The black box's cost and disk, in the guide and the man page."""
    def cost(server, account):
        for line in record_part(text, server).splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) > 5 and cells[0] == "1,000" and \
                    cells[1].startswith(account):
                return number(cells[5].strip("*"))
        raise Missing("no cost of %s at 1,000 on %s" % (account, server))

    def hour(server, row):
        return record_cell(text, server, "connections", row,
                           "an hour, with segment starts")

    def where(server, account, statement):
        """The server's CPU for one statement of "Where the cost is"."""
        for header, rows in tables(record_part(text, server), "part"):
            if header[0] != "account":
                continue
            col = header.index("server CPU ms each")
            for r in rows:
                if r[0] == account and r[1].startswith("`" + statement):
                    return number(r[col])
        raise Missing("no %s's %s... in record's %s" % (account, statement,
                                                       server))

    # doc/queries.md, the connections' ways: one read at 1,000 connections.
    add(GUIDE, lambda: (
        "MySQL 9.7.4's threads way %.2f ms; MariaDB 10.11.19's `PROCESSLIST` "
        "way %.2f ms, its summed way without `PROCESS` %.2f ms" % (
            where("MySQL", "root", "SELECT t.PROCESSLIST_ID"),
            where("MariaDB", "root", "SELECT p.ID"),
            where("MariaDB", "mmp", "SELECT t.PROCESSLIST_ID"))))
    for doc in (GUIDE, MAN):
        add(doc, lambda: (
            "%.2f%% of a core on MariaDB 10.11 with PROCESS, %.2f%% "
            "without it, %.2f%% on MySQL 9.7" % (
                cost("MariaDB", "root"), cost("MariaDB", "mmp"),
                cost("MySQL", "root"))))
        add(doc, lambda: (
            "about %.1f MiB an hour at 1,000 idle connections, %.0f MiB "
            "(MariaDB) and %.0f MiB (MySQL) with 100 of them changing" % (
                hour("MariaDB", "1,000 idle"),
                hour("MariaDB", "1,000, 100 changing"),
                hour("MySQL", "1,000, 100 changing"))))


def loose(s):
    return re.sub(r"\s+", " ", s)


# A figure of the results: a number and its unit.
FIGURE_RE = re.compile(r"\d[\d,.]*\s*(µs|ms|%|MiB|GiB|KiB|times)")


def paragraphs(text):
    """The paragraphs of a Markdown text outside its fenced blocks, each
    row of a table one."""
    out, cur, fenced = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("|"):
            out.append(line)
        elif line.strip():
            cur.append(line)
        elif cur:
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


def unchecked(phrases_found):
    """The paragraphs of the guide that cite bench/RESULTS.md beside a
    figure and hold none of the phrases: (file, its start)."""
    out = []
    for path in guide_files():
        with open(path) as f:
            for para in paragraphs(f.read()):
                text = loose(para)
                if "RESULTS.md" not in text or not FIGURE_RE.search(text):
                    continue
                if not any(loose(p) in text for p in phrases_found):
                    out.append((os.path.relpath(path, ROOT), para[:70]))
    return out


def main():
    args = sys.argv[1:]
    quiet = "-q" in args
    args = [a for a in args if a != "-q"]
    results = args[0] if args else os.path.join(BENCH, "RESULTS.md")
    with open(results) as f:
        text = f.read()
    docs = {GUIDE: "", MAN: ""}
    for p in guide_files():
        with open(p) as f:
            docs[GUIDE] += loose(f.read()) + " "
    with open(MAN) as f:
        docs[MAN] = loose(f.read())
    bad = 0
    quoted = []
    for item in phrases(text):
        doc = item[0] if item[0] == GUIDE else os.path.relpath(item[0], ROOT)
        if item[1] is None:
            bad += 1
            print("%s: cannot tell: %s" % (doc, item[2]))
            continue
        quoted.append(item[1])
        if loose(item[1]) in docs[item[0]]:
            if not quiet:
                print("%s: holds %s" % (doc, item[1]))
        else:
            bad += 1
            print("%s: MISSING %s" % (doc, item[1]))
    for path, start in unchecked(quoted):
        bad += 1
        print("%s: a paragraph cites bench/RESULTS.md beside a figure, but "
              "none of its figures is one this script checks: \"%s...\"; "
              "quote one of the phrases above, or teach %s the figure"
              % (path, start, os.path.relpath(__file__, ROOT)))
    if bad:
        print("docfigures: %d figure(s) of %s not in the documents as "
              "quoted; put them in" % (bad, os.path.relpath(results)),
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
