/* SPDX-License-Identifier: MIT */
/* UTF-8 as RFC 3629 defines it, for text that came from outside (a result file's
 * strings, a file name on the command line) before it is trusted or printed as JSON. */
#ifndef FUTEXSIM_UTF8_H
#define FUTEXSIM_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at s (of at most n bytes, n >= 1), or 0
 * when it is not one: no overlong forms, no surrogates, nothing above U+10FFFF. */
static inline size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		     : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

#endif
