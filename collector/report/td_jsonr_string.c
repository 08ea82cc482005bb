/* td_jsonr_string: decoding of JSON strings — escapes, \u surrogate pairs,
 * strict UTF-8 validation — into the document's arena. */
#include "td_jsonr_parser.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int td_jsonr_hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char ch = p[i];
		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= ch - '0';
		else if (ch >= 'a' && ch <= 'f')
			v |= ch - 'a' + 10;
		else if (ch >= 'A' && ch <= 'F')
			v |= ch - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Length of a valid UTF-8 sequence at p (1-4), or 0 if invalid. */
static int td_jsonr_utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0];
	int n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (end - p < n)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static bool td_jsonr_sbuf_put(struct td_jsonr_parser *ps, size_t *len, const char *src, size_t n)
{
	if (*len + n > ps->lim->max_string) {
		ps->p = ps->str_start; /* point at the string, not where it overflowed */
		td_jsonr_fail(ps, "string longer than the limit of %zu bytes", ps->lim->max_string);
		return false;
	}
	if (*len + n + 1 > ps->sbuf_size) {
		size_t size = ps->sbuf_size ? ps->sbuf_size : 256;

		while (size < *len + n + 1)
			size *= 2;
		char *nb = realloc(ps->sbuf, size);
		if (!nb) {
			td_jsonr_oom(ps);
			return false;
		}
		ps->sbuf = nb;
		ps->sbuf_size = size;
	}
	memcpy(ps->sbuf + *len, src, n);
	*len += n;
	return true;
}

static size_t td_jsonr_encode_utf8(uint32_t cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Parses a string at ps->p (on the opening quote) into the arena. */
bool td_jsonr_parse_string(struct td_jsonr_parser *ps, const char **out, size_t *out_len)
{
	size_t len = 0;

	ps->str_start = ps->p;
	ps->p++; /* opening quote */
	for (;;) {
		const char *run = ps->p;

		while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\' &&
		       (unsigned char)*ps->p >= 0x20 && (unsigned char)*ps->p < 0x80)
			ps->p++;
		if (ps->p > run && !td_jsonr_sbuf_put(ps, &len, run, ps->p - run))
			return false;
		if (ps->p >= ps->end) {
			td_jsonr_fail(ps, "unterminated string");
			return false;
		}
		unsigned char ch = (unsigned char)*ps->p;
		if (ch == '"') {
			ps->p++;
			break;
		}
		if (ch < 0x20) {
			td_jsonr_fail(ps, "control character 0x%02x in a string (must be escaped)", ch);
			return false;
		}
		if (ch >= 0x80) {
			int n = td_jsonr_utf8_len((const unsigned char *)ps->p,
						  (const unsigned char *)ps->end);
			if (!n) {
				td_jsonr_fail(ps, "invalid UTF-8 in a string");
				return false;
			}
			if (!td_jsonr_sbuf_put(ps, &len, ps->p, n))
				return false;
			ps->p += n;
			continue;
		}
		/* backslash */
		if (ps->end - ps->p < 2) {
			td_jsonr_fail(ps, "unterminated string");
			return false;
		}
		char e = ps->p[1], c;
		switch (e) {
		case '"': c = '"'; break;
		case '\\': c = '\\'; break;
		case '/': c = '/'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u': {
			int hi = ps->end - ps->p >= 6 ? td_jsonr_hex4(ps->p + 2) : -1;
			uint32_t cp;
			char enc[4];

			if (hi < 0) {
				td_jsonr_fail(ps, "bad \\u escape (four hex digits expected)");
				return false;
			}
			if (hi >= 0xdc00 && hi <= 0xdfff) {
				td_jsonr_fail(ps, "lone low surrogate \\u%04x", hi);
				return false;
			}
			if (hi >= 0xd800 && hi <= 0xdbff) {
				int lo = ps->end - ps->p >= 12 && ps->p[6] == '\\' && ps->p[7] == 'u'
						 ? td_jsonr_hex4(ps->p + 8)
						 : -1;
				if (lo < 0xdc00 || lo > 0xdfff) {
					td_jsonr_fail(ps, "high surrogate \\u%04x not followed by a low one", hi);
					return false;
				}
				cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
				ps->p += 12;
			} else {
				cp = (uint32_t)hi;
				ps->p += 6;
			}
			if (!td_jsonr_sbuf_put(ps, &len, enc, td_jsonr_encode_utf8(cp, enc)))
				return false;
			continue;
		}
		default:
			ps->p++;
			td_jsonr_fail(ps, "invalid escape '\\%c'", e >= 0x20 && e < 0x7f ? e : '?');
			return false;
		}
		if (!td_jsonr_sbuf_put(ps, &len, &c, 1))
			return false;
		ps->p += 2;
	}
	char *s = td_arena_alloc(ps->doc, len + 1);
	if (!s) {
		td_jsonr_oom(ps);
		return false;
	}
	if (len)
		memcpy(s, ps->sbuf, len);
	s[len] = 0;
	*out = s;
	*out_len = len;
	return true;
}

