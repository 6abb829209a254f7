// SPDX-License-Identifier: MIT
/*
 * escape.c - text for a terminal or a line-based reader: the escaping that
 * the text output (format.c) and the messages on stderr (explain.c) share.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "cmd.h"

/*
 * Write @s for a terminal or a line-based reader: printable characters of
 * the locale as they are, everything else C-style (\n, \t, \\, \x01). Every
 * line of the text output is therefore exactly one value or item. Returns
 * the width on a terminal, in columns; with a NULL @f only counts it, so
 * that the mount table can line its columns up.
 */
size_t put_escaped(FILE *f, const char *s, size_t n)
{
	static const char named[] = "\a\b\t\n\v\f\r";
	static const char letter[] = "abtnvfr";
	size_t i = 0, width = 0;
	mbstate_t st;

	memset(&st, 0, sizeof(st));
	while (i < n) {
		unsigned char c = s[i];
		const char *p;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			if (f)
				putc(c, f);
			width++;
			i++;
			continue;
		}
		if (c == '\\') {
			if (f)
				fputs("\\\\", f);
			width += 2;
			i++;
			continue;
		}
		if (c && (p = memchr(named, c, sizeof(named) - 1))) {
			if (f) {
				putc('\\', f);
				putc(letter[p - named], f);
			}
			width += 2;
			i++;
			continue;
		}
		if (c >= 0x80 && MB_CUR_MAX > 1) {
			wchar_t wc;
			size_t k = mbrtowc(&wc, s + i, n - i, &st);
			int w;

			if (k != (size_t)-1 && k != (size_t)-2 && k > 0 &&
			    iswprint(wc) && (w = wcwidth(wc)) >= 0) {
				if (f)
					fwrite(s + i, 1, k, f);
				width += w;
				i += k;
				continue;
			}
			memset(&st, 0, sizeof(st));
		}
		if (f)
			fprintf(f, "\\x%02x", c);
		width += 4;
		i++;
	}
	return width;
}
