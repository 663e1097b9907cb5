package redislzf

// harnessC is the helper program, compiled with Redis's lzf_c.c and
// lzf_d.c. It reads the items file (writeItems) whole into one buffer, and
//
//	encode FILE        writes, per item, a little-endian uint32 n and the n
//	                   bytes lzf_compress(raw, budget) made (n = 0: it
//	                   returned 0)
//	decode FILE        the same for lzf_decompress(comp, out, len(raw))
//	time FILE ROUNDS   checks that every item encodes to its stream (when
//	                   it has one) and decodes back, then prints the least
//	                   CPU nanoseconds (of the thread) of ROUNDS passes of lzf_compress over
//	                   every item, the same for lzf_decompress over every
//	                   stream, and the number of items that failed the check
//	time-nocheck FILE ROUNDS   the same without the check (0 failed)
const harnessC = `#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lzf.h"

typedef struct {
	const unsigned char *raw, *comp;
	uint32_t ulen, clen, budget;
} item;

static uint32_t le32(const unsigned char *p) {
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double cpu_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static unsigned char *read_file(const char *path, size_t *n) {
	FILE *f = fopen(path, "rb");
	if (!f) { perror(path); exit(1); }
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(size > 0 ? (size_t)size : 1);
	if (!b || fread(b, 1, (size_t)size, f) != (size_t)size) { fprintf(stderr, "read %s\n", path); exit(1); }
	fclose(f);
	*n = (size_t)size;
	return b;
}

static item *parse(const unsigned char *b, size_t n, size_t *count, size_t *maxout) {
	size_t cap = 1024, k = 0, off = 0;
	item *it = malloc(cap * sizeof *it);
	*maxout = 1;
	while (off + 12 <= n) {
		if (k == cap) { cap *= 2; it = realloc(it, cap * sizeof *it); }
		item *x = &it[k++];
		x->ulen = le32(b + off);
		x->clen = le32(b + off + 4);
		x->budget = le32(b + off + 8);
		off += 12;
		if (off + (size_t)x->ulen + x->clen > n) { fprintf(stderr, "items file truncated\n"); exit(1); }
		x->raw = b + off;
		x->comp = b + off + x->ulen;
		off += (size_t)x->ulen + x->clen;
		if (x->budget > *maxout) *maxout = x->budget;
		if (x->ulen > *maxout) *maxout = x->ulen;
	}
	*count = k;
	return it;
}

int main(int argc, char **argv) {
	if (argc < 3) { fprintf(stderr, "usage: encode FILE | time FILE ROUNDS\n"); return 2; }
	size_t n, count, maxout;
	unsigned char *b = read_file(argv[2], &n);
	item *it = parse(b, n, &count, &maxout);
	unsigned char *out = malloc(maxout);
	if (strcmp(argv[1], "encode") == 0 || strcmp(argv[1], "decode") == 0) {
		int enc = strcmp(argv[1], "encode") == 0;
		for (size_t i = 0; i < count; i++) {
			unsigned int z = enc ? lzf_compress(it[i].raw, it[i].ulen, out, it[i].budget)
				: lzf_decompress(it[i].comp, it[i].clen, out, it[i].ulen);
			unsigned char h[4] = {z, z >> 8, z >> 16, z >> 24};
			fwrite(h, 1, 4, stdout);
			fwrite(out, 1, z, stdout);
		}
		return fflush(stdout) != 0;
	}
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	long bad = 0;
	for (size_t i = 0; i < count && strcmp(argv[1], "time") == 0; i++) {
		if (it[i].clen > 0) {
			size_t z = lzf_compress(it[i].raw, it[i].ulen, out, it[i].budget);
			bad += z != it[i].clen || memcmp(out, it[i].comp, z) != 0;
			size_t d = lzf_decompress(it[i].comp, it[i].clen, out, it[i].ulen);
			bad += d != it[i].ulen || memcmp(out, it[i].raw, d) != 0;
		}
	}
	double enc = 1e300, dec = 1e300;
	volatile size_t sink = 0;
	for (int r = 0; r < rounds; r++) {
		size_t s = 0;
		double t = cpu_ns();
		for (size_t i = 0; i < count; i++)
			s += lzf_compress(it[i].raw, it[i].ulen, out, it[i].budget);
		t = cpu_ns() - t;
		if (t < enc) enc = t;
		sink += s;
	}
	for (int r = 0; r < rounds; r++) {
		size_t s = 0;
		double t = cpu_ns();
		for (size_t i = 0; i < count; i++)
			if (it[i].clen > 0)
				s += lzf_decompress(it[i].comp, it[i].clen, out, it[i].ulen);
		t = cpu_ns() - t;
		if (t < dec) dec = t;
		sink += s;
	}
	printf("%.0f %.0f %ld\n", enc, dec, bad);
	return 0;
}
`
