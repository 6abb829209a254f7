// SPDX-License-Identifier: MIT
/*
 * gvlsof_json.c - -J (a JSON document) and -j (JSON lines), lsof 4.99.7's
 * formats, checked against what the installed lsof says of the same
 * processes with -F0: the same processes and files, each JSON value the
 * value of its field letter (JSON's escaping undone, lsof's applied), no
 * key without its field; -j the same records, one line per file; field
 * selection with -F; the empty cases; the options they exclude.
 *
 * The JSON is read by python3 (scripts/deps.sh check installs it); where
 * there is none, those checks skip, saying so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/tap.h"

static const char compare_py[] =
"import json, sys\n"
"def esc(b):\n"
"    out = []\n"
"    for c in b:\n"
"        if c != 0x5c and 0x20 <= c <= 0x7e: out.append(chr(c))\n"
"        elif c == 0x5c: out.append('\\\\\\\\')\n"
"        elif c < 0x20:\n"
"            m = {8: 'b', 12: 'f', 10: 'n', 13: 'r', 9: 't'}\n"
"            out.append('\\\\' + m[c] if c in m else '^' + chr(c + 0x40))\n"
"        else: out.append('\\\\x%02x' % c)\n"
"    return ''.join(out)\n"
"def raw(s): return s.encode('utf-8', 'surrogateescape')\n"
"def f0(path):\n"
"    procs = []\n"
"    for line in open(path, 'rb').read().split(b'\\n'):\n"
"        if not line: continue\n"
"        fields = [x for x in line.split(b'\\0') if x]\n"
"        d = {}\n"
"        for x in fields:\n"
"            k, v = chr(x[0]), x[1:].decode('latin-1')\n"
"            if k == 'T': d.setdefault('T', []).append(v)\n"
"            else: d[k] = v\n"
"        if 'p' in d: d['files'] = []; procs.append(d)\n"
"        else: procs[-1]['files'].append(d)\n"
"    return procs\n"
"PROC = [('pid', 'p'), ('command', 'c'), ('uid', 'u'), ('login', 'L'),\n"
"        ('pgid', 'g'), ('ppid', 'R'), ('tid', 'K'), ('task_cmd', 'M')]\n"
"FILE = [('fd', 'f'), ('access', 'a'), ('lock', 'l'), ('type', 't'),\n"
"        ('device', 'd'), ('device_number', 'D'), ('size', 's'),\n"
"        ('offset', 'o'), ('inode', 'i'), ('nlink', 'k'),\n"
"        ('protocol', 'P'), ('flags', 'G'), ('name', 'n')]\n"
"def val(key, v):\n"
"    if isinstance(v, int): return str(v)\n"
"    s = esc(raw(v))\n"
"    return s\n"
"def offset(o):\n"
"    return int(o[2:], 16) if o.startswith('0x') else int(o[2:])\n"
"FLAG = {'W': 0o1, 'RW': 0o2, 'CR': 0o100, 'EXCL': 0o200, 'NTTY': 0o400,\n"
"        'TR': 0o1000, 'AP': 0o2000, 'ND': 0o4000, 'SYN': 0o4010000,\n"
"        'ASYN': 0o20000, 'DIR': 0o40000, 'DTY': 0o200000,\n"
"        'NFLK': 0o400000, 'NATM': 0o1000000, 'DSYN': 0o10000,\n"
"        'RSYN': 0o4010000, 'LG': 0o100000, 'CX': 0o2000000,\n"
"        'PATH': 0o10000000, 'TMPF': 0o20200000}\n"
"def flags(v):\n"
"    if ';' in v: return v\n"
"    bits = 0\n"
"    for n in v.split(','):\n"
"        bits |= int(n, 16) if n.startswith('0x') else FLAG[n]\n"
"    return '0x%x;0x0' % bits\n"
"def same(obj, d, table, what):\n"
"    for key, f in table:\n"
"        have = key in obj\n"
"        want = f in d and not (f in 'al' and d[f] == ' ')\n"
"        if key == 'flags' and not have and d.get(f) == '0x0;0x0':\n"
"            want = False\n"
"        if have != want:\n"
"            return '%s: key %s %s, field %s %s' % (what, key,\n"
"                have, f, want)\n"
"        if not have: continue\n"
"        if key == 'offset':\n"
"            ok = int(obj[key]) == offset(d[f])\n"
"        elif key == 'flags':\n"
"            ok = flags(obj[key]) == d[f]\n"
"        else:\n"
"            ok = val(key, obj[key]) == d[f]\n"
"        if not ok:\n"
"            return '%s: %s %r, field %s %r' % (what, key, obj[key], f,\n"
"                d[f])\n"
"    return None\n"
"def tcp(obj, d, what):\n"
"    t = obj.get('tcp_info')\n"
"    fields = d.get('T', [])\n"
"    if t is None: return None if not fields else what + ': no tcp_info'\n"
"    want = {}\n"
"    for x in fields:\n"
"        k, v = x.split('=', 1)\n"
"        want[{'ST': 'state', 'QR': 'recv_queue',\n"
"              'QS': 'send_queue'}[k]] = v\n"
"    got = {k: str(v) for k, v in t.items()}\n"
"    return None if got == want else '%s: tcp_info %r, T %r' % (what,\n"
"        got, want)\n"
"def main():\n"
"    ref = f0(sys.argv[1])\n"
"    doc = json.loads(open(sys.argv[2], 'rb').read().decode('utf-8',\n"
"                     'surrogateescape'))\n"
"    procs = doc['processes']\n"
"    if doc.get('lsof_version') != '4.95.0': return 'lsof_version'\n"
"    if len(procs) != len(ref): return 'processes: %d, lsof %d' % (\n"
"        len(procs), len(ref))\n"
"    lines = [json.loads(l.decode('utf-8', 'surrogateescape'))\n"
"             for l in open(sys.argv[3], 'rb').read().split(b'\\n') if l]\n"
"    n = 0\n"
"    for p, d in zip(procs, ref):\n"
"        e = same(p, d, PROC, 'pid %s' % d['p'])\n"
"        if e: return e\n"
"        if len(p['files']) != len(d['files']):\n"
"            return 'pid %s: %d files, lsof %d' % (d['p'],\n"
"                len(p['files']), len(d['files']))\n"
"        for f, fd in zip(p['files'], d['files']):\n"
"            what = 'pid %s fd %s' % (d['p'], fd.get('f'))\n"
"            e = same(f, fd, FILE, what) or tcp(f, fd, what)\n"
"            if e: return e\n"
"            flat = {k: v for k, v in p.items() if k != 'files'}\n"
"            flat.update(f)\n"
"            if n >= len(lines) or lines[n] != flat:\n"
"                return 'line %d of -j is not the -J record' % (n + 1)\n"
"            n += 1\n"
"    if n != len(lines): return '-j: %d lines, %d files' % (len(lines), n)\n"
"    print('OK %d %d' % (len(procs), n))\n"
"    return None\n"
"e = main()\n"
"if e: print(e); sys.exit(1)\n";

static bool have_python;

static int open_in_dir(const char *name, int flags)
{
	return ls_must(open(ls_path(name), flags | O_CREAT, 0644), name);
}

/* Files with values of every field, and names JSON must escape. */
static void hold(void *arg)
{
	static const char *const names[] = {
		"quote\"d", "back\\slash", "x\xff\xfe", "tab\there", "new\nline",
		"h\xc3\xa9", "c\x01trl",
	};
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct epoll_event ev = { .events = EPOLLIN };
	int p[2], fd, efd, ep;

	prctl(PR_SET_NAME, arg);
	fd = open_in_dir("rw", O_RDWR);
	ls_must(write(fd, "json", 4), "write");
	ls_must(pipe(p), "pipe");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		open_in_dir(names[i], O_RDONLY);
	/* a kernel without CONFIG_INET (the kcheck guest): no inet sockets */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 || errno != EAFNOSUPPORT) {
		ls_must(fd, "socket");
		ls_must(bind(fd, (void *)&sin, sizeof(sin)), "bind");
		ls_must(listen(fd, 1), "listen");
		ls_must(socket(AF_INET, SOCK_DGRAM, 0), "udp");
	}
	ls_must(socket(AF_UNIX, SOCK_STREAM, 0), "unix");
	efd = ls_must(eventfd(0, 0), "eventfd");
	ep = ls_must(epoll_create1(0), "epoll");
	ls_must(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev), "epoll_ctl");
	ls_must(open("/dev/null", O_WRONLY), "/dev/null");
}

/*
 * -F0@spec of lsof against -J and -j of gvlsof, given -F @spec when there
 * is one, with the same @args
 */
static void against_f0(const char *what, const char *spec,
		       const char *const *args)
{
	const char *av[32];
	char f0[PATH_MAX], js[PATH_MAX], jl[PATH_MAX], cmd[4 * PATH_MAX];
	char f0spec[64];
	struct ls_run r = { 0 };
	size_t n = 0;
	FILE *f;
	char res[1024] = "";

	snprintf(f0, sizeof(f0), "%s/f0", ls_dir);
	snprintf(js, sizeof(js), "%s/j", ls_dir);
	snprintf(jl, sizeof(jl), "%s/jl", ls_dir);
	snprintf(f0spec, sizeof(f0spec), "-F0%s", spec ? spec : "");
	av[n++] = "lsof";
	av[n++] = f0spec;
	for (const char *const *a = args; *a; a++)
		av[n++] = *a;
	av[n] = NULL;
	ls_run_as(&r, "C", 0, f0, (char *const *)av);
	ls_run_free(&r);
	n = 0;
	av[n++] = ls_tool;
	av[n++] = "-J";
	if (spec) {
		av[n++] = "-F";
		av[n++] = spec;
	}
	for (const char *const *a = args; *a; a++)
		av[n++] = *a;
	av[n] = NULL;
	ls_run_as(&r, "C", 0, js, (char *const *)av);
	ls_run_free(&r);
	av[1] = "-j";
	ls_run_as(&r, "C", 0, jl, (char *const *)av);
	ls_run_free(&r);
	snprintf(cmd, sizeof(cmd), "python3 %s/compare.py %s %s %s 2>&1",
		 ls_dir, f0, js, jl);
	f = popen(cmd, "r");
	if (f) {
		if (!fgets(res, sizeof(res), f))
			res[0] = 0;
		pclose(f);
	}
	res[strcspn(res, "\n")] = 0;
	if (!tap_ok(!strncmp(res, "OK ", 3),
		    "%s: -J and -j say what lsof -F0 says", what))
		tap_diag("%s", res);
}

static void json_checks(const char *pids)
{
	const char *sel[] = { "-a", "-p", pids, NULL };
	const char *sel_n[] = { "-n", "-P", "-a", "-p", pids, NULL };
	const char *sel_o[] = { "-o", "-a", "-p", pids, NULL };
	const char *tq[] = { "-n", "-Tqs", "-i", "-a", "-p", pids, NULL };

	against_f0("default fields", NULL, sel);
	against_f0("-n -P", NULL, sel_n);
	against_f0("-F pcfn", "pcfn", sel);
	against_f0("-F pcufatslDiPnG -o", "pcufatslDiPnG", sel_o);
	against_f0("-F pcgRKMLfalktdDsoikPGn", "pcgRKMLfalktdDsoikPGn", sel);
	against_f0("-Tqs -i", NULL, tq);
}

static void status_checks(void)
{
	static const struct {
		const char *args[8];
		int status;
		const char *err, *what;
	} cases[] = {
		{ { "-J", "-p", "999999999" }, 1, NULL,
		  "-J, nothing found: exit 1" },
		{ { "-j", "-p", "999999999" }, 1, NULL,
		  "-j, nothing found: exit 1" },
		{ { "-J", "-j" }, 1, "mutually exclusive", "-J -j" },
		{ { "-J", "-t" }, 1, "mutually exclusive", "-J -t" },
		{ { "-j", "-t" }, 1, "mutually exclusive", "-j -t" },
		{ { "+J" }, 1, "+J is not supported", "+J" },
		{ { "+j" }, 1, "+j is not supported", "+j" },
	};
	struct ls_run r = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ls_run(&r, ls_tool, "C", cases[i].args);
		tap_ok(r.status == cases[i].status &&
		       (!cases[i].err || strstr(r.err, cases[i].err)),
		       "%s", cases[i].what);
		ls_run_free(&r);
	}
	{
		const char *a[] = { "-J", "-p", "999999999", NULL };

		ls_run(&r, ls_tool, "C", a);
		tap_ok(!strcmp(r.out, "{\"lsof_version\":\"4.95.0\","
			       "\"processes\":[]}\n"),
		       "-J, nothing found: an empty document");
		ls_run_free(&r);
	}
	{
		const char *a[] = { "-j", "-p", "999999999", NULL };

		ls_run(&r, ls_tool, "C", a);
		tap_ok(r.out_len == 0, "-j, nothing found: nothing printed");
		ls_run_free(&r);
	}
	{
		const char *a[] = { "-j", "+r", "1", NULL };

		ls_run_repeat(&r, ls_tool, a, "}\n\n", 3, 2);
		tap_ok(r.status == 0 && strstr(r.out, "}\n\n{") &&
		       r.out_len > 4 &&
		       !strcmp(r.out + r.out_len - 4, "}\n\n\n"),
		       "-j +r: each cycle ends with an empty line");
		ls_run_free(&r);
	}
	{
		static const char empty[] =
			"{\"lsof_version\":\"4.95.0\",\"processes\":[]}\n";
		const char *a[] = { "-J", "+r", "1", NULL };
		const char *p;
		int docs = 0;

		ls_run_repeat(&r, ls_tool, a, "{\"lsof_version\"", 15, 2);
		for (p = r.out; (p = strstr(p, "{\"lsof_version\"")); p++)
			docs++;
		tap_ok(r.status == 0 && docs >= 3 &&
		       r.out_len > sizeof(empty) - 1 &&
		       !strcmp(r.out + r.out_len - (sizeof(empty) - 1), empty),
		       "-J +r: a document a cycle, the last one empty");
		ls_run_free(&r);
	}
}

int main(void)
{
	char pids[40];
	int fd;

	ls_init("gvlsof-json");
	have_python = !system("python3 -c 'import json' >/dev/null 2>&1");
	fd = open(ls_path("compare.py"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, compare_py, sizeof(compare_py) - 1) !=
		      (ssize_t)sizeof(compare_py) - 1)
		tap_bail("compare.py: %s", strerror(errno));
	close(fd);
	ls_holder(hold, "gv json", NULL);
	ls_holder(hold, "gvjson2", NULL);
	atexit(ls_kill_holders);
	snprintf(pids, sizeof(pids), "%s", ls_pids());
	if (!ls_have_lsof())
		tap_skip(6, "lsof is not installed (make check installs it "
			 "through scripts/deps.sh)");
	else if (!have_python)
		tap_skip(6, "python3 with its json module is needed to read "
			 "JSON (scripts/deps.sh check installs it)");
	else
		json_checks(pids);
	status_checks();
	ls_kill_holders();
	return tap_done();
}
