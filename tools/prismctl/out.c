// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl output: text lines or JSON, built in memory and written out
 * only once the whole command succeeded.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prismctl.h"

#define MAX_DEPTH	16

static struct {
	FILE	*f;
	char	*buf;
	size_t	len;
	bool	json;
	bool	pretty;
	int	depth;			/* open objects and arrays */
	bool	first[MAX_DEPTH];	/* JSON: no member yet at this depth */
	int	tdepth;			/* text: open objects */
	bool	tspace;			/* text: a separator is due */
} o;

static void die_nomem(void)
{
	fprintf(stderr, "prismctl: out of memory\n");
	exit(1);
}

void out_init(bool json, bool pretty)
{
	o.json = json;
	o.pretty = pretty;
	o.f = open_memstream(&o.buf, &o.len);
	if (!o.f)
		die_nomem();
}

bool out_json(void)
{
	return o.json;
}

int out_flush(void)
{
	if (fclose(o.f)) {
		o.f = NULL;
		die_nomem();
	}
	o.f = NULL;
	if (o.len && fwrite(o.buf, 1, o.len, stdout) != o.len) {
		fprintf(stderr, "prismctl: writing output: %s\n",
			strerror(errno));
		return -1;
	}
	free(o.buf);
	o.buf = NULL;
	if (fflush(stdout)) {
		fprintf(stderr, "prismctl: writing output: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * JSON
 */
static void j_indent(int depth)
{
	int i;

	if (!o.pretty)
		return;
	fputc('\n', o.f);
	for (i = 0; i < depth; i++)
		fputs("    ", o.f);
}

static void j_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', o.f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", o.f);
			break;
		case '\\':
			fputs("\\\\", o.f);
			break;
		case '\n':
			fputs("\\n", o.f);
			break;
		case '\t':
			fputs("\\t", o.f);
			break;
		default:
			/* Bytes >= 0x80 pass through: names are UTF-8 or ASCII. */
			if (*p < 0x20 || *p == 0x7f)
				fprintf(o.f, "\\u%04x", *p);
			else
				fputc(*p, o.f);
		}
	}
	fputc('"', o.f);
}

/* Separator, indentation and "key": before a value. */
static void j_member(const char *key)
{
	if (o.depth > 0) {
		if (!o.first[o.depth])
			fputc(',', o.f);
		o.first[o.depth] = false;
		j_indent(o.depth);
	}
	if (key) {
		j_string(key);
		fputs(o.pretty ? ": " : ":", o.f);
	}
}

static void j_open(const char *key, char c)
{
	j_member(key);
	fputc(c, o.f);
	if (++o.depth >= MAX_DEPTH) {
		fprintf(stderr, "prismctl: output nested too deep\n");
		exit(1);
	}
	o.first[o.depth] = true;
}

static void j_close(char c)
{
	bool empty = o.first[o.depth];

	o.depth--;
	if (!empty)
		j_indent(o.depth);
	fputc(c, o.f);
	if (!o.depth)
		fputc('\n', o.f);
}

/* ------------------------------------------------------------------------
 * Text
 */
static void t_sep(void)
{
	if (o.tspace)
		fputc(' ', o.f);
	o.tspace = true;
}

static void t_label(const char *label)
{
	t_sep();
	if (*label)
		fprintf(o.f, "%s ", label);
}

/* ------------------------------------------------------------------------
 * Interface
 */
void out_obj_begin_label(const char *key, const char *label)
{
	if (o.json) {
		j_open(key, '{');
		return;
	}
	/* A nested object continues on an indented line. */
	if (o.tdepth > 0) {
		fputc('\n', o.f);
		fprintf(o.f, "%*s", 4 * o.tdepth, "");
		o.tspace = false;
	}
	o.tdepth++;
	if (label) {
		t_sep();
		fputs(label, o.f);
	}
}

void out_obj_begin(const char *key)
{
	out_obj_begin_label(key, NULL);
}

void out_obj_end(void)
{
	if (o.json) {
		j_close('}');
		return;
	}
	if (--o.tdepth == 0) {
		if (o.tspace)
			fputc('\n', o.f);
		o.tspace = false;
	}
}

void out_arr_begin(const char *key)
{
	if (o.json)
		j_open(key, '[');
}

void out_arr_end(void)
{
	if (o.json)
		j_close(']');
}

void out_u64(const char *key, const char *label, uint64_t v)
{
	if (o.json) {
		if (key) {
			j_member(key);
			fprintf(o.f, "%" PRIu64, v);
		}
	} else if (label) {
		t_label(label);
		fprintf(o.f, "%" PRIu64, v);
	}
}

void out_hex(const char *key, const char *label, uint64_t v)
{
	if (o.json) {
		if (key) {
			j_member(key);
			fprintf(o.f, "\"0x%" PRIx64 "\"", v);
		}
	} else if (label) {
		t_label(label);
		fprintf(o.f, "0x%" PRIx64, v);
	}
}

void out_str(const char *key, const char *label, const char *s)
{
	if (o.json) {
		if (key) {
			j_member(key);
			j_string(s);
		}
	} else if (label) {
		t_label(label);
		fputs(s, o.f);
	}
}

void out_hidden(const char *key, const char *label)
{
	if (o.json) {
		if (key) {
			j_member(key);
			fputs("null", o.f);
		}
	} else if (label) {
		t_label(label);
		fputs("hidden", o.f);
	}
}

void out_strs(const char *key, const char *label, const char *const *s,
	      int n)
{
	int i;

	if (o.json) {
		if (!key)
			return;
		j_member(key);
		fputc('[', o.f);
		for (i = 0; i < n; i++) {
			if (i)
				fputs(o.pretty ? ", " : ",", o.f);
			j_string(s[i]);
		}
		fputc(']', o.f);
	} else if (label) {
		t_label(label);
		for (i = 0; i < n; i++)
			fprintf(o.f, "%s%s", i ? "," : "", s[i]);
		if (!n)
			fputs("none", o.f);
	}
}

void out_tpair(const char *label, const char *fmt, ...)
{
	va_list ap;

	if (o.json)
		return;
	t_label(label);
	va_start(ap, fmt);
	vfprintf(o.f, fmt, ap);
	va_end(ap);
}

void out_text(const char *fmt, ...)
{
	va_list ap;

	if (o.json)
		return;
	va_start(ap, fmt);
	vfprintf(o.f, fmt, ap);
	va_end(ap);
}
