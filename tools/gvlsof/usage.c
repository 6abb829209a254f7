// SPDX-License-Identifier: MIT
/*
 * usage.c - what gvlsof says about itself: the usage line and help of
 * -h, the field list of -F ?, the version of -v, all on standard error
 * and in lsof's words, for lsof's options as gvlsof has them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvlsof.h"

/*
 * Where lsof names its home and its FAQ, gvlsof names the project it is
 * part of, and its manual (lsof's places are not ours to send users to).
 */
#define PROJECT		"getvalues"
#define MANUAL		"gvlsof(1) and its DIFFERENCES FROM LSOF"

extern const char field_ids[];

static const char *field_name(int c)
{
	switch (c) {
	case 'a': return "access: r = read; w = write; u = read/write";
	case 'c': return "command name";
	case 'd': return "device character code";
	case 'D': return "major/minor device number as 0x<hex>";
	case 'f': return "file descriptor";
	case 'G': return "file flaGs";
	case 'i': return "inode number";
	case 'k': return "link count";
	case 'K': return "task ID (TID)";
	case 'l': return "lock: r/R = read; w/W = write; u = read/write";
	case 'L': return "login name";
	case 'm': return "marker between repeated output";
	case 'M': return "task comMand name";
	case 'n': return "comment, name, Internet addresses";
	case 'o': return "file offset as 0t<dec> or 0x<hex>";
	case 'p': return "process ID (PID)";
	case 'g': return "process group ID (PGID)";
	case 'P': return "protocol name";
	case 'r': return "raw device number as 0x<hex>";
	case 'R': return "paRent PID";
	case 's': return "file size";
	case 'S': return "stream module and device names";
	case 't': return "file type";
	case 'T': return "TCP/TPI info";
	case 'u': return "user ID (UID)";
	case 'Z': return "security context (-Z)";
	case '0': return "(zero) use NUL field terminator instead of NL";
	default: return "";
	}
}

/* lsof's two help columns */
static int in_col(int col, const char *cp)
{
	if (!cp || !*cp)
		return col;
	switch (col) {
	case 1:
		fprintf(stderr, "  %-23.23s", cp);
		break;
	case 2:
		fprintf(stderr, "  %-25.25s", cp);
		break;
	default:
		fprintf(stderr, "  %s\n", cp);
		col = 0;
	}
	return col + 1;
}

static void help(void)
{
	char buf[128];
	int col;

	fprintf(stderr, "Defaults in parentheses; comma-separated set (s) "
		"items; dash-separated ranges.\n");
	col = in_col(1, "-?|-h list help");
	col = in_col(col, "-a AND selections (OR)");
	col = in_col(col, "-b avoid kernel blocks");
	col = in_col(col, "-c c  cmd c ^c /c/[bix]");
	snprintf(buf, sizeof(buf), "+c w  COMMAND width (%d)", CMDL);
	col = in_col(col, buf);
	col = in_col(col, "+d s  dir s files");
	col = in_col(col, "-d s  select by FD set");
	col = in_col(col, "+D D  dir D tree *SLOW?*");
	col = in_col(col, "+|-e s  exempt s *RISKY*");
	col = in_col(col, "-i select IPv[46] files");
	col = in_col(col, "-K [i] list|(i)gn tasKs");
	col = in_col(col, "-l list UID numbers");
	col = in_col(col, "-n no host names");
	col = in_col(col, "-N select NFS files");
	col = in_col(col, "-o list file offset");
	col = in_col(col, "-O no overhead *RISKY*");
	col = in_col(col, "-P no port names");
	col = in_col(col, "-Q allow failed search");
	col = in_col(col, "-R list paRent PID");
	col = in_col(col, "-s list file size");
	col = in_col(col, "-t terse listing");
	col = in_col(col, "-T disable TCP/TPI info");
	col = in_col(col, "-U select Unix socket");
	col = in_col(col, "-v list version info");
	col = in_col(col, "-V verbose search");
	col = in_col(col, "+|-w  Warnings (+)");
	col = in_col(col, "-X skip TCP&UDP* files");
	col = in_col(col, "-Z Z  context [Z]");
	col = in_col(col, "-- end option scan");
	if (col != 1)
		fprintf(stderr, "\n");
	fprintf(stderr, "  %-36.36s  %s\n", "-E display endpoint info",
		"+E display endpoint info and files");
	fprintf(stderr, "  %-36.36s", "+f|-f  +filesystem or -file names");
	fprintf(stderr, "  +|-f[gG] flaGs %s%s%s%s\n",
		opt.fsv_fg ? "(" : "",
		opt.fsv_fg && opt.fsv_flagx ? "g" : "",
		opt.fsv_fg && !opt.fsv_flagx ? "G" : "",
		opt.fsv_fg ? ")" : "");
	fprintf(stderr, "  %-36.36s\n", "-F [f] select fields; -F? for help");
	fprintf(stderr, "  -J|-j  JSON, JSON lines (of -F's fields)\n");
	fprintf(stderr, "  +|-L [l] list (+) suppress (-) link counts < l "
		"(0 = all; default = 0)\n");
	fprintf(stderr, "  %-36.36s  +m [m] use|create mount supplement\n",
		"");
	fprintf(stderr, "  %-36.36s  -o o   o 0t offset digits (%d)\n",
		"+|-M   portMap registration (-)", OFFDECDIG);
	fprintf(stderr, "  %-36.36s  -S [t] t second stat timeout (%d)\n",
		"-p s   exclude(^)|select PIDs", TMLIMIT);
	fprintf(stderr, "  -T fqs TCP/TPI Fl,Q,St (s) info\n");
	fprintf(stderr, "  -g [s] exclude(^)|select and print process group "
		"IDs\n");
	fprintf(stderr, "  -i i   select by IPv[46] address: [46][proto]"
		"[@host|addr][:svc_list|port_list]\n");
	fprintf(stderr, "  +|-r [t[m<fmt>]] repeat every t seconds (%d);  + "
		"until no files, - forever.\n", RPTTM);
	fprintf(stderr, "       An optional suffix to t is m<fmt>; m must "
		"separate t from <fmt> and\n");
	fprintf(stderr, "      <fmt> is an strftime(3) format for the marker "
		"line.\n");
	fprintf(stderr, "  -s p:s  exclude(^)|select protocol (p = TCP|UDP) "
		"states by name(s).\n");
	fprintf(stderr, "  -u s   exclude(^)|select login|UID set s\n");
	fprintf(stderr, "  -x [fl] cross over +d|+D File systems or symbolic "
		"Links\n");
	fprintf(stderr, "  names  select named files or files on named file "
		"systems\n");
	fprintf(stderr, "Anyone can list all files; /dev warnings disabled; "
		"kernel ID check disabled.\n");
}

/* lsof's usage(): help, field list and version, then exit */
void usage(int err, bool fh, bool version)
{
	if (opt.fhelp || err) {
		fprintf(stderr, "%s %s\n part of %s %d.%d.%d: lsof %s's "
			"options and output on libgetvalues\n", opt.pn,
			LSOF_REVISION, PROJECT, GETVALUES_VERSION_MAJOR,
			GETVALUES_VERSION_MINOR, GETVALUES_VERSION_PATCH,
			LSOF_REVISION);
		fprintf(stderr, " manual: %s\n", MANUAL);
		fprintf(stderr, " usage: [-?abhKlnNoOPRtUvVX] [+|-c c] [+|-d s] "
			"[+D D] [+|-E] [+|-e s] [+|-f[gG]]\n"
			" [-F [f]] [-g [s]] [-i [i]] [+|-L [l]] "
			"[+m [m]] [+|-M] [-o [o]] [-p s]\n"
			" [+|-r [t]] [-s [p:s]] [-S [t]] [-T [t]] [-u s] "
			"[+|-w] [-x [fl]]%s [--] [names]\n",
			opt.cntx_status ? " [-Z [Z]]" : "");
	}
	if (err && !opt.fhelp) {
		fprintf(stderr, "Use the ``-h'' option to get more help "
			"information.\n");
		if (!fh)
			exit(err ? 1 : 0);
	}
	if (opt.fhelp)
		help();
	if (fh) {
		fprintf(stderr, "%s:\tID    field description\n", opt.pn);
		for (const char *c = field_ids; *c; c++) {
			if (*c == 'Z' && !opt.cntx_status)
				continue;
			fprintf(stderr, "\t %c    %s\n", *c, field_name(*c));
		}
	}
	if (version) {
		fprintf(stderr, "%s version information:\n", opt.pn);
		fprintf(stderr, "    revision: %s\n", LSOF_REVISION);
		fprintf(stderr, "    implementation: gvlsof, part of %s "
			"%d.%d.%d: lsof %s's interface on libgetvalues\n",
			PROJECT,
			GETVALUES_VERSION_MAJOR, GETVALUES_VERSION_MINOR,
			GETVALUES_VERSION_PATCH, LSOF_REVISION);
		fprintf(stderr, "    manual: %s\n", MANUAL);
		fprintf(stderr, "    Anyone can list all files.\n");
		fprintf(stderr, "    /dev warnings are disabled.\n");
		fprintf(stderr, "    Kernel ID check is disabled.\n");
	}
	exit(err ? 1 : 0);
}
