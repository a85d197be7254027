#!/usr/bin/python3
"""Turn one bench/results/<date>/ directory into a table, JSON and a chart.

Usage: bench/report.py DIR              writes DIR/table.txt, DIR/results.json,
                                        DIR/chart.png; prints the table
       bench/report.py --markdown DIR   prints the table as Markdown (RESULTS.md,
                                        or RESULTS-scale.md for a --scale run)

A run of `run-bench.sh --scale` (SCALE=1 in DIR/bench.conf) gives the scaling
table instead: ops/s of append-fsync, randwrite and metabench create/unlink
per file system and thread count, and a chart of ops/s against threads.

Reads DIR/raw/<fs>/<run>.json (fio --output-format=json), metabench-d*.txt,
info.txt, and DIR/progress.txt (per-run durations). Uses Debian's python3 and
python3-matplotlib only.

Ratio convention: every ratio is "> 1 = NOVA better". For throughput (ops/s,
MiB/s) it is NOVA / other; for latency it is other / NOVA.
"""
import json
import os
import re
import sys

FS = ["nova", "nova-inplace", "ext4-dax", "xfs-dax", "tmpfs"]
LABEL = {"nova": "NOVA", "nova-inplace": "NOVA-ip", "ext4-dax": "ext4-DAX",
         "xfs-dax": "XFS-DAX", "tmpfs": "tmpfs"}


def load_fio(path):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return None
    i = text.find("{")
    if i < 0:
        return None
    try:
        return json.loads(text[i:])
    except ValueError:
        return None


def pct(d, p):
    try:
        return d["percentile"]["%.6f" % p] / 1000.0  # ns -> us
    except (KeyError, TypeError):
        return None


def fio_metrics(run, data):
    """[(metric name, unit, value, higher_is_better)] for one fio run."""
    if not data or not data.get("jobs"):
        return []
    j = data["jobs"][0]
    r, w = j["read"], j["write"]
    mib = 1024.0 * 1024.0
    out = []
    if run.startswith("append-fsync"):
        out.append((run, "ops/s", w["iops"], True))
        if run.endswith("-j1"):
            s = j.get("sync", {}).get("lat_ns", {})
            c = w.get("clat_ns", {})
            for p in (50, 99):
                a, b = pct(c, p), pct(s, p)
                if a is not None and b is not None:
                    out.append(("append-fsync-j1 p%d latency" % p, "us", a + b, False))
    elif run.startswith(("randwrite", "randread")):
        out.append((run, "ops/s", w["iops"] + r["iops"], True))
    elif run.startswith(("seqwrite", "seqread")):
        out.append((run, "MiB/s", (w["bw_bytes"] + r["bw_bytes"]) / mib, True))
    else:  # the filebench-like mixes: all I/O operations per second
        out.append((run.rsplit("-j", 1)[0], "ops/s", w["iops"] + r["iops"], True))
    return out


def meta_metrics(run, path):
    out = []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return out
    for line in lines:
        m = re.match(r"metabench phase=(\w+) dirs=(\d+) files=(\d+) .*ops_per_sec=([\d.]+)", line)
        if m:
            where = "1 dir" if m.group(2) == "1" else m.group(2) + " dirs"
            t = re.search(r" threads=(\d+)", line)
            if t and t.group(1) != "1":
                where += " each, %s processes" % t.group(1)
            out.append(("meta %s (%s files, %s)" % (m.group(1), m.group(3), where),
                        "ops/s", float(m.group(4)), True))
    return out


ORDER = ["append-fsync", "randwrite", "seqwrite", "seqread", "randread",
         "fileserver", "varmail", "webproxy", "webserver", "meta"]


def order_key(name):
    for i, p in enumerate(ORDER):
        if name.startswith(p):
            lat = 0 if "latency" in name else 1
            m = re.search(r"-j(\d+)", name)
            ph = ["create", "stat", "rename", "unlink"]
            sub = next((k for k, x in enumerate(ph) if x in name), 0)
            return (i, "100 dirs" in name, lat, int(m.group(1)) if m else 0, sub, name)
    return (len(ORDER), name)


def raw_files(d):
    """(fs, file name, path) of every raw result file, file systems in FS order."""
    for fs in FS:
        fd = os.path.join(d, "raw", fs)
        if os.path.isdir(fd):
            for f in sorted(os.listdir(fd)):
                yield fs, f, os.path.join(fd, f)


def first_info(d, fss):
    """The guest's info.txt of the first file system of @fss that has one."""
    for fs in fss:
        try:
            return open(os.path.join(d, "raw", fs, "info.txt")).read()
        except OSError:
            continue
    return ""


def collect(d):
    rows = {}  # metric -> {"unit", "hib", fs: value}
    for fs, f, p in raw_files(d):
        if f.endswith(".json"):
            ms = fio_metrics(f[:-5], load_fio(p))
        elif f.startswith("metabench-d") and f.endswith(".txt"):
            ms = meta_metrics(f[:-4], p)
        else:
            continue
        for name, unit, val, hib in ms:
            row = rows.setdefault(name, {"unit": unit, "hib": hib})
            row[fs] = val
    return rows


def ratio(row, nova, other):
    a, b = row.get(nova), row.get(other)
    if not a or not b:
        return None
    return a / b if row["hib"] else b / a


def fmt(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def durations(d):
    out = {}
    try:
        for line in open(os.path.join(d, "progress.txt")):
            m = re.match(r"BENCH: fs-done (\S+) (\d+)s", line)
            if m:
                out[m.group(1)] = int(m.group(2))
    except OSError:
        pass
    return out


def table(d, rows, markdown=False):
    present = [fs for fs in FS if any(fs in r for r in rows.values())]
    head = ["workload", "unit"] + [LABEL[f] for f in present] + \
        ["NOVA/ext4", "NOVA/XFS", "NOVA-ip/ext4", "NOVA-ip/XFS"]
    body = []
    for name in sorted(rows, key=order_key):
        r = rows[name]
        cells = [name, r["unit"] + ("" if r["hib"] else " (lower=better)")]
        cells += [fmt(r.get(f)) for f in present]
        for nova in ("nova", "nova-inplace"):
            for other in ("ext4-dax", "xfs-dax"):
                cells.append(fmt(ratio(r, nova, other)))
        body.append(cells)
    conv = ("Ratios: > 1 means NOVA is better. Throughput ratio = NOVA / other; "
            "latency ratio = other / NOVA. NOVA = copy-on-write (default), "
            "NOVA-ip = inplace_data_updates=1.")
    lines = []
    if markdown:
        lines.append("| " + " | ".join(head) + " |")
        lines.append("| " + " | ".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + " |")
        for c in body:
            lines.append("| " + " | ".join(c) + " |")
        return conv, lines
    w = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    lines.append(conv)
    lines.append("  ".join(h.ljust(w[i]) if i < 2 else h.rjust(w[i]) for i, h in enumerate(head)))
    for c in body:
        lines.append("  ".join(x.ljust(w[i]) if i < 2 else x.rjust(w[i]) for i, x in enumerate(c)))
    return conv, lines


def chart(d, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [n for n in sorted(rows, key=order_key)
             if ratio(rows[n], "nova", "ext4-dax") or ratio(rows[n], "nova", "xfs-dax")]
    if not names:
        return
    series = [("nova", "ext4-dax", "NOVA / ext4-DAX"), ("nova", "xfs-dax", "NOVA / XFS-DAX"),
              ("nova-inplace", "ext4-dax", "NOVA-ip / ext4-DAX"),
              ("nova-inplace", "xfs-dax", "NOVA-ip / XFS-DAX")]
    fig, ax = plt.subplots(figsize=(max(10, 0.55 * len(names)), 6))
    width = 0.8 / len(series)
    for k, (a, b, lab) in enumerate(series):
        vals = [ratio(rows[n], a, b) or 0 for n in names]
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(names))]
        ax.bar(xs, vals, width, label=lab)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("ratio (> 1: NOVA better; log scale)")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_title("NOVA vs ext4-DAX / XFS-DAX, one QEMU (TCG) guest run: " + os.path.basename(d))
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "chart.png"), dpi=110)


# --- make bench-scale (run-bench.sh --scale): ops/s against threads ----------

SCALE_WL = [("append-fsync", "append+fsync"), ("randwrite", "random overwrite"),
            ("create", "meta create"), ("unlink", "meta unlink")]
SCALE_FS = ["nova", "nova-inplace", "ext4-dax", "xfs-dax"]
COLOR = {"nova": "C0", "nova-inplace": "C1", "ext4-dax": "C2", "xfs-dax": "C3"}


def read_conf(d):
    conf = {}
    try:
        for line in open(os.path.join(d, "bench.conf")):
            m = re.match(r"(\w+)='?(.*?)'?$", line.strip())
            if m:
                conf[m.group(1)] = m.group(2)
    except OSError:
        pass
    return conf


def scale_collect(d):
    """{(workload, threads): {fs: ops/s}}; workload as in SCALE_WL, and the
    other metabench phases (stat, rename) for results.json."""
    out = {}
    for fs, f, p in raw_files(d):
        m = re.fullmatch(r"(append-fsync|randwrite)-j(\d+)\.json", f)
        if m:
            data = load_fio(p)
            if data and data.get("jobs"):
                j = data["jobs"][0]
                v = j["write"]["iops"] + j["read"]["iops"]
                out.setdefault((m.group(1), int(m.group(2))), {})[fs] = v
            continue
        if not re.fullmatch(r"metabench-d\d+(-t\d+)?\.txt", f):
            continue
        for line in open(p, errors="replace"):
            m = re.match(r"metabench phase=(\w+) .*threads=(\d+) .*ops_per_sec=([\d.]+)", line)
            if m:
                out.setdefault((m.group(1), int(m.group(2))), {})[fs] = float(m.group(3))
    return out


def scale_order(key):
    names = [w for w, _ in SCALE_WL] + ["stat", "rename"]
    w, t = key
    return (names.index(w) if w in names else len(names), w, t)


def scale_table(rows, markdown=False):
    present = [fs for fs in SCALE_FS if any(fs in r for r in rows.values())]
    head = ["workload", "threads"] + [LABEL[f] + " ops/s" for f in present] + \
        ["NOVA/ext4", "NOVA/XFS", "NOVA-ip/ext4", "NOVA-ip/XFS"]
    label = dict(SCALE_WL)
    body = []
    for key in sorted(rows, key=scale_order):
        if key[0] not in label:
            continue
        r = dict(rows[key], hib=True)
        cells = [label[key[0]], str(key[1])] + [fmt(r.get(f)) for f in present]
        for nova in ("nova", "nova-inplace"):
            for other in ("ext4-dax", "xfs-dax"):
                cells.append(fmt(ratio(r, nova, other)))
        body.append(cells)
    if markdown:
        lines = ["| " + " | ".join(head) + " |",
                 "| " + " | ".join(["---", "---:"] + ["---:"] * (len(head) - 2)) + " |"]
        lines += ["| " + " | ".join(c) + " |" for c in body]
        return lines
    w = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    lines = ["Ratios: > 1 means NOVA is better (NOVA / other, ops/s). NOVA-ip "
             "(inplace_data_updates=1) runs the random overwrite only."]
    lines.append("  ".join(h.ljust(w[i]) if i < 1 else h.rjust(w[i]) for i, h in enumerate(head)))
    for c in body:
        lines.append("  ".join(x.ljust(w[i]) if i < 1 else x.rjust(w[i]) for i, x in enumerate(c)))
    return lines


def scale_chart(d, rows, conf):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for ax, (wl, title) in zip(axes.flat, SCALE_WL):
        keys = sorted(k for k in rows if k[0] == wl)
        threads = sorted({k[1] for k in keys})
        for fs in SCALE_FS:
            pts = [(t, rows[(wl, t)][fs]) for t in threads if fs in rows[(wl, t)]]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        color=COLOR[fs], label=LABEL[fs])
        ax.set_title(title, fontsize=10)
        if threads:
            ax.set_xscale("log", base=2)
            ax.set_xticks(threads)
            ax.set_xticklabels([str(t) for t in threads])
        ax.set_yscale("log")
        ax.set_xlabel("threads (fio jobs / metabench processes)")
        ax.set_ylabel("ops/s (log scale)")
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Throughput against threads, one QEMU (TCG) guest run, %s vCPUs: %s"
                 % (conf.get("SMP", "?"), os.path.basename(d)))
    fig.tight_layout()
    fig.savefig(os.path.join(d, "chart.png"), dpi=110)


def host_load(d):
    """(min, median, max) of the host's 1-minute load average while the guest ran."""
    vals = []
    try:
        for line in open(os.path.join(d, "hostload.txt")):
            f = line.split()
            if len(f) >= 2:
                vals.append(float(f[1]))
    except (OSError, ValueError):
        pass
    if not vals:
        return None
    vals.sort()
    return vals[0], vals[len(vals) // 2], vals[-1]


def scale_main(d, md):
    rows = scale_collect(d)
    conf = read_conf(d)
    dur = durations(d)
    load = host_load(d)
    if not md:
        text = "\n".join(scale_table(rows)) + "\n"
        if dur:
            text += "guest seconds per fs: " + ", ".join("%s=%d" % kv for kv in dur.items()) + "\n"
        if load:
            text += "host load average (1 min) while the guest ran: min %.1f, median %.1f, " \
                "max %.1f on %s cores\n" % (load + (conf.get("HOST_CPUS", "?"),))
        open(os.path.join(d, "table.txt"), "w").write(text)
        res = [dict(rows[k], workload=k[0], threads=k[1], unit="ops/s")
               for k in sorted(rows, key=scale_order)]
        json.dump({"scale": res, "conf": conf}, open(os.path.join(d, "results.json"), "w"),
                  indent=1, sort_keys=True)
        try:
            scale_chart(d, rows, conf)
        except Exception as e:  # the table matters more than the picture
            print("report: no chart: %s" % e, file=sys.stderr)
        sys.stdout.write(text)
        return
    info = first_info(d, SCALE_FS)
    m = re.search(r"^kernel=(\S+)", info, re.M)
    kernel = m.group(1) if m else ""
    m = re.search(r"^clocksource=(\S+)", info, re.M)
    clock = m.group(1) if m else ""
    print("# Scaling results (latest full `make bench-scale` run)\n")
    print("Run %s: one QEMU guest (TCG, no KVM, one host thread per vCPU; %s vCPUs "
          "on a %s-core host, %s RAM), kernel %s, one %s emulated NVDIMM (fsdax) "
          "reformatted for each file system. Threads: %s. Under TCG every number "
          "is emulated CPU time: only the ratios between file systems of the same "
          "run mean anything, not the absolute values.\n"
          % (os.path.basename(d), conf.get("SMP", "?"), conf.get("HOST_CPUS", "?"),
             conf.get("MEM", "?"), kernel or "?", conf.get("PMEM_SIZE", "?"),
             conf.get("THREADS", "?")))
    print("Rows: fio 4 KiB append + fsync (one %s file per job, deleted and "
          "rewritten) and 4 KiB random overwrite without fsync (one %s file per "
          "job), %s s each; metabench -t T: %s empty files created, then unlinked "
          "(stat and rename in between, not shown), T processes each in its own "
          "directory with N/T of them, timed from the first fork to the last "
          "exit. Every number is the aggregate ops/s of all threads.%s\n"
          % (conf.get("APPEND_SIZE", "?"), conf.get("FILE_SIZE", "?"),
             conf.get("RUNTIME", "?"), conf.get("META_N", "?"),
             " Guest clock source: %s." % clock if clock else ""))
    print("Ratios: > 1 means NOVA is better (NOVA / other). NOVA = copy-on-write "
          "(default); NOVA-ip = inplace_data_updates=1, run for the random "
          "overwrite only (the other rows take the same paths as NOVA).\n")
    print("\n".join(scale_table(rows, markdown=True)))
    print("\nChart: bench/results/%s/chart.png (not in git): ops/s against threads, "
          "one panel per row, log scales." % os.path.basename(d))
    if dur:
        print("\nGuest time per file system: " +
              ", ".join("%s %d s" % (LABEL.get(k, k), v) for k, v in dur.items()) + ".")
    if load:
        print("\nHost load average (1 min, every 30 s while the guest ran, QEMU's "
              "own vCPU threads included): min %.1f, median %.1f, max %.1f on %s "
              "cores." % (load + (conf.get("HOST_CPUS", "?"),)))
    try:
        print("\nSettings (bench.conf):\n\n```\n" +
              open(os.path.join(d, "bench.conf")).read().strip() + "\n```")
    except OSError:
        pass
    print("\nRaw fio JSON, metabench output and the console log are in "
          "bench/results/%s/ (not in git). All workloads at 1, 2 and 4 jobs: "
          "bench/RESULTS.md (`make bench`)." % os.path.basename(d))


def main():
    md = "--markdown" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--markdown"]
    if len(args) != 1:
        sys.exit(__doc__)
    d = args[0].rstrip("/")
    if read_conf(d).get("SCALE") == "1":
        scale_main(d, md)
        return
    rows = collect(d)
    dur = durations(d)
    conv, lines = table(d, rows, markdown=md)
    if md:
        conf = ""
        try:
            conf = open(os.path.join(d, "bench.conf")).read().strip()
        except OSError:
            pass
        print("# Benchmark results (latest full `make bench` run)\n")
        c = read_conf(d)
        print("Run %s: one QEMU guest (TCG, no KVM; %s vCPUs, %s RAM), Debian "
              "6.1 kernel, one %s emulated NVDIMM (fsdax) reformatted for each "
              "file system; tmpfs is the DRAM reference. Under TCG every number is "
              "emulated CPU time: only the ratios between file systems of the same "
              "run mean anything, not the absolute values.\n"
              % (os.path.basename(d), c.get("SMP", "2"), c.get("MEM", "3G"),
                 c.get("PMEM_SIZE", "2G")))
        m = re.search(r"^clocksource=(\S+)", first_info(d, FS), re.M)
        if m:
            print("Guest clock source: %s (fio and metabench read the clock once "
                  "or more per operation).\n" % m.group(1))
        print(conv + "\n")
        print("\n".join(lines))
        if dur:
            print("\nGuest time per file system: " +
                  ", ".join("%s %d s" % (LABEL.get(k, k), v) for k, v in dur.items()) + ".")
        if conf:
            print("\nSettings (bench.conf):\n\n```\n" + conf + "\n```")
        print("\nRaw fio JSON, metabench output, the chart (chart.png) and the console "
              "log are in bench/results/%s/ (not in git). Mount times: "
              "bench/RESULTS-mount.md (`make bench-mount`)." % os.path.basename(d))
        return
    text = "\n".join(lines) + "\n"
    if dur:
        text += "guest seconds per fs: " + ", ".join("%s=%d" % kv for kv in dur.items()) + "\n"
    open(os.path.join(d, "table.txt"), "w").write(text)
    json.dump(rows, open(os.path.join(d, "results.json"), "w"), indent=1, sort_keys=True)
    try:
        chart(d, rows)
    except Exception as e:  # the table matters more than the picture
        print("report: no chart: %s" % e, file=sys.stderr)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
