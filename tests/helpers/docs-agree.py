# docs-agree.py KERNODECK MAN README: every command's options are the same in
# `kernodeck --help`, the man page's SYNOPSIS and the README's Commands
# block; prints each disagreement, exit 1 when there is one.
# docs-agree.py --kinds KERNODECK MAN README: the kinds of `kernodeck
# inspect` (the KIND line of its usage, from the one table) are those the
# man page and the README's Commands block list, in the same order.
import re, subprocess, sys
if sys.argv[1] == '--kinds':
    kd, man, readme = sys.argv[2:5]
    usage = subprocess.run([kd, 'inspect', '--help'], capture_output=True, text=True).stdout
    H = re.search(r'^\s+KIND: (.*)$', usage, re.M).group(1).split()
    src = open(man).read().replace('\\-', '-')
    lst = src[src.index('is one of\n') + len('is one of\n'):]
    M = []
    for l in lst.splitlines():
        m = re.match(r'\.BR (\S+) [,.]$', l)
        if not m:
            break
        M.append(m.group(1))
    text = open(readme).read()
    blk = text[text.index('    kernodeck inspect '):]
    blk = blk[:blk.index('\n    kernodeck ', 5)]
    words = ' '.join(l.strip() for l in blk.splitlines()[1:]).split('(')[0]
    R = [w.strip() for w in words.split(',') if w.strip()]
    if H == M == R:
        sys.exit(0)
    print('inspect kinds: --help %s; man %s; README %s' % (H, M, R))
    sys.exit(1)
kd, man, readme = sys.argv[1:4]
def opts_of(text):
    return set(re.findall(r'--[a-z][a-z-]*', text.replace('\\-', '-')))
# --help: one line per command
helptext = subprocess.run([kd, '--help'], capture_output=True, text=True).stdout
H, cur = {}, None
for l in helptext.splitlines():
    m = re.match(r'\s+kernodeck (\w+)\b(.*)', l)
    if m and m.group(1) != 'COMMAND':
        cur = m.group(1)
        H[cur] = opts_of(m.group(2))
    elif cur and re.match(r'\s+\[', l):
        H[cur] |= opts_of(l)
    else:
        cur = None
# man page SYNOPSIS: from ".B kernodeck CMD" to the next ".br"
src = open(man).read()
syn = src[src.index('.SH SYNOPSIS'):src.index('.SH DESCRIPTION')]
M = {}
for block in syn.split('.br'):
    m = re.search(r'\.B kernodeck( \w+)?\n', block)
    if m and m.group(1):
        M[m.group(1).strip()] = opts_of(block[m.end():])
# README: the Commands block, a command and its continuation lines
R, cur = {}, None
text = open(readme).read()
blk = text[text.index('## Commands'):]
blk = blk[:blk.index('\n## ', 5)]
for l in blk.splitlines():
    m = re.match(r'    kernodeck (\w+)\b(.*)', l)
    syntax = lambda t: re.split(r'\S\s{3,}', t + ' ')[0]
    if m:
        cur = m.group(1)
        R.setdefault(cur, set()).update(opts_of(syntax(m.group(2))))
    elif cur and re.match(r' {5,40}\[', l):
        R[cur] |= opts_of(syntax(l.strip()))
bad = []
for c in sorted(set(H) | set(M)):
    h, m, r = H.get(c), M.get(c), R.get(c)
    if h is None or m is None or r is None:
        bad.append('%s: in --help %s, man %s, README %s' % (c, h is not None, m is not None, r is not None))
        continue
    if not (h == m == r):
        bad.append('%s: --help %s; man %s; README %s' % (c, sorted(h), sorted(m), sorted(r)))
print('\n'.join(bad))
sys.exit(1 if bad else 0)
