#!/usr/bin/env python3
"""Host side of the xfstests runs (tests/xfstests/run.sh).

  results.py list TREE FSTYP [SELECTION...]
      The tests a selection names, one per line, in xfstests' order:
      -g GROUP[,GROUP] (GROUP is DIR/NAME, or NAME for generic and FSTYP's
      own directory, as ./check -g does), -x GROUP[,GROUP] (exclude), and
      test names (generic/001).
  results.py parse CONSOLE TESTS BOOT STALLED
      Read one boot's console (the guest's "NOVA-XFS: T <epoch> <line>"
      lines of ./check's output) and print the results of the tests of the
      file TESTS (the boot's list, in order) as status lines:
          test<TAB>status<TAB>seconds<TAB>boot<TAB>reason
      status is pass, fail, notrun, hung (no console output for the stall
      time while it ran: the guest was killed) or crashed (the guest died
      while it ran). A test the guest killed for running too long (its
      "NOVA-XFS: TIMEOUT <test> <seconds>" line) fails with the reason
      "timed out after N s". Tests that did not finish for another reason
      (the boot's deadline) are left out, so a resumed run runs them again.
  results.py summary RUNDIR [EXPECTED]
      Write RUNDIR/summary.md from RUNDIR/status.tsv and RUNDIR/tests.list:
      counts, time, not-run tests grouped by xfstests' reason, failures with
      their first diff lines, and the comparison with the expected-results
      file EXPECTED. Exit status 1 when a result differs from EXPECTED (in
      either direction), 0 otherwise.

Expected-results file: one test per line, "TEST STATUS REASON...", where
STATUS is fail or notrun (a test that is not listed must pass); '#' starts a
comment. See tests/xfstests/expected/README.md.
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TEST_RE = re.compile(r'^([a-z0-9]+/[0-9]+)(\s|$)')
PASS_RE = re.compile(r'^\s*(\d+s \.\.\.\s+)?\d+s\s*$')
LINE_RE = re.compile(r'NOVA-XFS: T (\d+) ?(.*)$')
TIMEOUT_RE = re.compile(r'NOVA-XFS: TIMEOUT (\S+) (\d+)')


def read_groups(tree, d):
    """{test: set(groups)} of tests/D/group.list"""
    out = {}
    path = os.path.join(tree, 'tests', d, 'group.list')
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith('#'):
                continue
            out['%s/%s' % (d, w[0])] = set(w[1:])
    return out


def cmd_list(tree, fstyp, args):
    dirs = ['generic']
    if os.path.isdir(os.path.join(tree, 'tests', fstyp)):
        dirs.append(fstyp)
    include, exclude, names = [], [], []
    it = iter(args)
    for a in it:
        if a in ('-g', '-x'):
            try:
                v = next(it)
            except StopIteration:
                sys.exit('results.py: %s needs a group' % a)
            (include if a == '-g' else exclude).extend(v.split(','))
        elif TEST_RE.match(a):
            names.append(a)
        else:
            sys.exit('results.py: cannot select "%s" (use -g GROUP, -x GROUP '
                     'or DIR/NNN)' % a)

    def members(group):
        if '/' in group:
            d, g = group.split('/', 1)
            ds = [d]
        else:
            ds, g = dirs, group
        sel = []
        for d in ds:
            groups = read_groups(tree, d)
            if not groups:
                sys.exit('results.py: no test directory tests/%s' % d)
            sel += sorted(t for t, gs in groups.items() if g in gs)
        return sel

    chosen = []
    for g in include:
        chosen += members(g)
    for n in names:
        d = n.split('/')[0]
        if n not in read_groups(tree, d):
            sys.exit('results.py: no test %s' % n)
        chosen.append(n)
    if not include and not names:
        sys.exit('results.py: empty selection')
    drop = set()
    for g in exclude:
        drop.update(members(g))
    seen = set()
    for t in chosen:
        if t not in drop and t not in seen:
            seen.add(t)
            print(t)


def classify(rest):
    """status and reason of the text that follows a test name"""
    if '[not run]' in rest:
        return 'notrun', rest.split('[not run]', 1)[1].strip()
    if '[expunged]' in rest:
        return 'notrun', 'expunged'
    if PASS_RE.match(rest):
        return 'pass', ''
    reason = re.sub(r'^\s*(\d+s \.\.\.)?\s*', '', rest).strip()
    return 'fail', reason or 'failed'


def cmd_parse(console, tests_file, boot, stalled):
    with open(tests_file) as f:
        tests = [t.strip() for t in f if t.strip()]
    results = {}
    timeouts = {}
    detail = collections.defaultdict(list)
    last_t = None
    current = None
    started = done = False
    with open(console, errors='replace') as f:
        for raw in f:
            raw = raw.rstrip('\r\n')
            if 'NOVA-XFS: START' in raw:
                started = True
            if 'NOVA-XFS: DONE' in raw:
                done = True
            m = TIMEOUT_RE.search(raw)
            if m:
                timeouts[m.group(1)] = int(m.group(2))
                continue
            m = LINE_RE.search(raw)
            if not m:
                continue
            t, line = int(m.group(1)), m.group(2)
            tm = TEST_RE.match(line)
            if tm and tm.group(1) in tests:
                name = tm.group(1)
                rest = line[len(name):]
                current = name
                if 'Interrupted' in rest or not rest.strip() or \
                        re.match(r'^\s*(\d+s \.\.\.)?\s*$', rest):
                    # killed at the deadline before its result: run it again
                    results.pop(name, None)
                else:
                    st, why = classify(rest)
                    if name in timeouts and st == 'fail':
                        why = 'timed out after %d s (--test-timeout): %s' % (
                            timeouts[name], why)
                    secs = t - last_t if last_t is not None else 0
                    results[name] = [st, secs, why]
            elif current and line.startswith('    ') and \
                    results.get(current, ['pass'])[0] == 'fail':
                detail[current].append(line)
            last_t = t
    if started and not done:
        # The guest stopped before its end: the first test without a result
        # was running then.
        for name in tests:
            if name not in results:
                why = ('no console output for the stall time: guest killed'
                       if stalled == '1' else 'the guest died while it ran')
                results[name] = ['hung' if stalled == '1' else 'crashed',
                                 0, why]
                break
    for name in tests:
        if name in results:
            st, secs, why = results[name]
            if detail[name] and st == 'fail':
                why = why + ' | ' + ' / '.join(l.strip() for l in
                                               detail[name][:6])
            print('%s\t%s\t%d\t%s\t%s' % (name, st, secs, boot,
                                          why.replace('\t', ' ')))


def read_status(path):
    res = collections.OrderedDict()
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                w = line.rstrip('\n').split('\t')
                if len(w) >= 5:
                    res[w[0]] = (w[1], int(w[2]), w[3], w[4])
    return res


def read_expected(path):
    exp = {}
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            w = line.split(None, 2)
            if len(w) < 2 or w[1] not in ('fail', 'notrun') or \
                    not TEST_RE.match(w[0]):
                sys.exit('%s:%d: want "TEST fail|notrun REASON"' % (path, n))
            exp[w[0]] = (w[1], w[2] if len(w) > 2 else '')
    return exp


def cmd_summary(rundir, expected_path):
    status = read_status(os.path.join(rundir, 'status.tsv'))
    with open(os.path.join(rundir, 'tests.list')) as f:
        tests = [t.strip() for t in f if t.strip()]
    conf = {}
    if os.path.exists(os.path.join(rundir, 'run.conf')):
        with open(os.path.join(rundir, 'run.conf')) as f:
            for line in f:
                if '=' in line:
                    k, v = line.rstrip('\n').split('=', 1)
                    conf[k] = v.strip("'")
    count = collections.Counter(s[0] for s in status.values())
    missing = [t for t in tests if t not in status]
    secs = sum(s[1] for s in status.values())
    exp = read_expected(expected_path)
    out = []
    out.append('# xfstests on %s (%s, kernel %s)' % (
        conf.get('fstyp', '?'), conf.get('release', '?'),
        conf.get('kver', '?')))
    out.append('')
    out.append('Selection: `%s`, %d tests; commit %s; started %s.' % (
        conf.get('selection', '?'), len(tests), conf.get('commit', '?'),
        conf.get('stamp', '?')))
    out.append('')
    out.append('| passed | failed | not run | hung | crashed | not reached '
               '| test time |')
    out.append('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    out.append('| %d | %d | %d | %d | %d | %d | %d min |' % (
        count['pass'], count['fail'], count['notrun'], count['hung'],
        count['crashed'], len(missing), secs // 60))
    out.append('')
    bad = [(t, s) for t, s in status.items() if s[0] in
           ('fail', 'hung', 'crashed')]
    if bad:
        out.append('## Failed')
        out.append('')
        for t, s in bad:
            out.append('- %s (%s, %d s, boot %s): %s' % (t, s[0], s[1], s[2],
                                                       s[3][:300]))
        out.append('')
    reasons = collections.defaultdict(list)
    for t, s in status.items():
        if s[0] == 'notrun':
            reasons[s[3]].append(t)
    if reasons:
        out.append('## Not run, by reason')
        out.append('')
        for why, ts in sorted(reasons.items(), key=lambda x: -len(x[1])):
            out.append('- %d: %s: %s' % (len(ts), why, ' '.join(ts)))
        out.append('')
    diffs = []
    if exp is not None:
        for t, s in status.items():
            want = exp.get(t, ('pass', ''))[0]
            got = 'fail' if s[0] in ('hung', 'crashed') else s[0]
            if got != want:
                diffs.append('%s: expected %s, got %s%s' % (
                    t, want, s[0], (' (' + s[3][:200] + ')') if s[3] else ''))
        out.append('## Against %s' % os.path.relpath(expected_path, ROOT))
        out.append('')
        if diffs:
            out += ['- ' + d for d in diffs]
        else:
            out.append('Every result as expected (%d tests compared).' %
                       len(status))
        out.append('')
    if missing:
        out.append('Not reached (resume the run to run them): %d tests, '
                   'first %s.' % (len(missing), missing[0]))
        out.append('')
    text = '\n'.join(out)
    with open(os.path.join(rundir, 'summary.md'), 'w') as f:
        f.write(text)
    print(text)
    if diffs:
        print('%d results differ from %s' % (len(diffs), expected_path))
    return 1 if diffs else 0


def main():
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == 'list':
        cmd_list(a[1], a[2] if len(a) > 2 else 'NOVA', a[3:])
    elif len(a) == 5 and a[0] == 'parse':
        cmd_parse(*a[1:])
    elif len(a) in (2, 3) and a[0] == 'summary':
        sys.exit(cmd_summary(a[1], a[2] if len(a) > 2 else None))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
