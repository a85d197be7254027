// SPDX-License-Identifier: GPL-2.0
/*
 * crashimg: crash images from NOVA persistence traces (src/pmemtrace.c).
 *
 *   crashimg extract ARCHIVE DIR        the traces of a crashwork ace
 *                                        archive (found by its magic in a
 *                                        pmem backing file) -> DIR/s<S>-w<W>.pt
 *   crashimg info TRACE                  the trace's calls and events
 *   crashimg plan PACK TRACE... [--all-max N] [--sample N] [--seed S]
 *                                        build the crash-image plan
 *   crashimg check PACK DEV SCRIPT [--first N] [--count N]
 *                                        (guest) each image to DEV, then
 *                                        SCRIPT (env CI_*), PASS/FAIL lines
 *   crashimg write PACK N DEV            (guest) image N to DEV only
 *   crashimg count PACK                  the number of images in PACK
 *   crashimg selftest                    unit tests on synthetic traces
 *
 * Model.  A trace is a starting image (BASE blocks), then in order: the
 * cache lines flushed (FLUSH, with their bytes at the flush), the
 * non-temporal copies (NT), the fences, and each call's boundaries.  Each
 * FLUSH or NT is a "unit".  At a fence, every unit since the previous
 * fence is pending: the hardware may have written back any subset of them.
 * So at each fence the crash images are: every unit before the previous
 * fence, plus a subset of the pending ones (applied in program order).
 * All subsets when there are at most --all-max (default 6) pending units;
 * otherwise none, all, every single omission, and --sample (default 24)
 * random subsets.  The end of the trace is one more fence.  Images equal
 * byte for byte (64-bit hash of their lines) are checked once.  A store
 * never flushed before its call returned (MISSING: the device differed
 * from the flushed image at the call's end) is never in an image (unless
 * a later flush of its line carries it) and is reported by plan.
 *
 * An image taken at a fence in call K must recover to the state before
 * call K or after one of its atomic steps (crashwork ace verify DIR W K);
 * a fence after the last call: K = calls + 1.
 *
 * The pack (plan's output, read by check in the guest): a header, the
 * traces, and one record per image: trace, call, fence number, the count
 * of units applied whole, and the pending units applied.
 *
 * Exit status: 0 pass, 1 failure (check: any image failed; plan: a
 * missing flush), 2 usage or input error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

enum {
	PT_FLUSH = 1, PT_NT, PT_FENCE, PT_START, PT_BASE, PT_BEGIN, PT_END,
	PT_MISSING, PT_SYM, PT_STOP,
};

#define LINE		64
#define BLOCK		4096
#define ARCH_INDEX	(256 * 1024)

struct rec {			/* struct nova_pt_rec, little-endian */
	uint32_t type, len;
	uint64_t off, ip;
};

struct ev {
	int type;
	uint32_t len;
	uint64_t off, ip;
	const unsigned char *data;
	int call;		/* the call it happened in, 0: between calls */
};

struct sym {
	uint64_t ip;
	const char *name;
};

struct trace {
	char name[256];
	int w, seq;
	unsigned char *raw;
	size_t rawlen;
	uint64_t size;
	struct ev *ev;
	int nev;
	int ncalls;
	char **callname;	/* [1..ncalls] */
	struct sym *sym;
	int nsym;
	int stopped, overflow;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "crashimg: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 20, n = 0, r;
	unsigned char *buf;

	if (!f)
		die("%s: %s", path, strerror(errno));
	buf = xmalloc(cap);
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	fclose(f);
	*len = n;
	return buf;
}

/* ------------------------------------------------------------ traces */

static const char *type_name(int t)
{
	static const char *const n[] = { "?", "FLUSH", "NT", "FENCE", "START", "BASE",
		"BEGIN", "END", "MISSING", "SYM", "STOP" };

	return t > 0 && t <= PT_STOP ? n[t] : "?";
}

/* Parse @raw (kept) into @t; returns NULL or an error text */
static const char *parse_trace(struct trace *t, unsigned char *raw, size_t len)
{
	size_t pos = 0;
	int cap = 0, call = 0;

	t->raw = raw;
	t->rawlen = len;
	t->nev = t->ncalls = t->nsym = 0;
	t->ev = NULL;
	t->callname = xmalloc(sizeof(char *));
	t->sym = NULL;
	t->size = 0;
	t->stopped = t->overflow = 0;
	while (pos + sizeof(struct rec) <= len) {
		struct rec r;
		struct ev *e;

		memcpy(&r, raw + pos, sizeof(r));
		if (!r.type || r.type > PT_STOP)
			return "a record of unknown type";
		if (pos + sizeof(r) + r.len > len)
			return "a record runs past the end";
		if (pos == 0 && (r.type != PT_START || r.len != 8 || memcmp(raw + sizeof(r), "NOVAPT01", 8)))
			return "no START record (not a NOVA persistence trace)";
		if (t->nev == cap) {
			cap = cap ? cap * 2 : 1024;
			t->ev = xrealloc(t->ev, cap * sizeof(*t->ev));
		}
		e = &t->ev[t->nev++];
		e->type = r.type;
		e->len = r.len;
		e->off = r.off;
		e->ip = r.ip;
		e->data = raw + pos + sizeof(r);
		pos += sizeof(r) + ((r.len + 7) & ~7u);
		switch (r.type) {
		case PT_START:
			t->size = r.off;
			break;
		case PT_BEGIN:
			if (call)
				return "BEGIN inside a call";
			call = (int)r.off;
			if (call != t->ncalls + 1)
				return "calls out of order";
			t->ncalls = call;
			t->callname = xrealloc(t->callname, (call + 1) * sizeof(char *));
			t->callname[call] = r.len ? strndup((const char *)e->data, r.len) : strdup("?");
			break;
		case PT_END:
			if (!call)
				return "END outside a call";
			break;
		case PT_SYM:
			t->sym = xrealloc(t->sym, (t->nsym + 1) * sizeof(*t->sym));
			t->sym[t->nsym].ip = r.off;
			t->sym[t->nsym].name = strndup((const char *)e->data, r.len);
			t->nsym++;
			break;
		case PT_STOP:
			t->stopped = 1;
			t->overflow = r.off != 0;
			break;
		case PT_FLUSH: case PT_NT: case PT_BASE: case PT_MISSING:
			if (r.off + r.len > t->size || r.off + r.len < r.off)
				return "a range outside the device";
			break;
		}
		e->call = call;
		if (r.type == PT_END)
			call = 0;
		if (r.type == PT_BEGIN)
			e->call = call;
	}
	if (!t->size)
		return "empty trace";
	if (!t->stopped)
		return "no STOP record (the trace was cut)";
	if (t->overflow)
		return "the kernel's trace buffer overflowed (raise pmemtrace_mb)";
	return NULL;
}

static const char *sym_of(const struct trace *t, uint64_t ip)
{
	static char buf[32];
	int i;

	for (i = 0; i < t->nsym; i++)
		if (t->sym[i].ip == ip)
			return t->sym[i].name;
	snprintf(buf, sizeof(buf), "%#" PRIx64, ip);
	return buf;
}

static void load_trace(struct trace *t, const char *path)
{
	size_t len;
	unsigned char *raw = read_file(path, &len);
	const char *err;
	const char *b = strrchr(path, '/');

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", b ? b + 1 : path);
	t->w = t->seq = -1;
	sscanf(t->name, "s%d-w%d", &t->seq, &t->w);
	err = parse_trace(t, raw, len);
	if (err)
		die("%s: %s", path, err);
}

/* ------------------------------------------------------------ images */

struct img {
	int trace, call, fence;
	int whole;		/* units [0, whole) applied */
	int nsel;
	int *sel;		/* then these (ascending) */
	char kind[24];
};

struct plan {
	struct img *img;
	int n, cap;
	uint64_t *hash;		/* of each image, for dedup */
	int hn, hcap;
	/* statistics */
	long fences, dups, missing_lines, pending_max;
};

/* the units of a trace: indexes into ev[] of FLUSH and NT */
struct units {
	int *ev;
	int n;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t line_hash(uint64_t line, const unsigned char *p)
{
	uint64_t h = mix(line + 0x9e3779b97f4a7c15ULL), w;
	int i;

	for (i = 0; i < LINE; i += 8) {
		memcpy(&w, p + i, 8);
		h = mix(h ^ w) + i;
	}
	return h;
}

/*
 * The state of an image under construction: @img the bytes, @h the XOR of
 * line_hash over every line (so equal images have equal hashes).
 */
struct state {
	unsigned char *img;
	uint64_t size, h;
};

static void st_init(struct state *s, const struct trace *t)
{
	uint64_t l;
	int i;

	s->size = t->size;
	s->img = xmalloc(t->size);
	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == PT_BASE)
			memcpy(s->img + t->ev[i].off, t->ev[i].data, t->ev[i].len);
	s->h = 0;
	for (l = 0; l < s->size / LINE; l++)
		s->h ^= line_hash(l, s->img + l * LINE);
}

static void st_apply(struct state *s, const struct ev *e)
{
	uint64_t l0 = e->off / LINE, l1 = (e->off + e->len + LINE - 1) / LINE, l;

	for (l = l0; l < l1; l++)
		s->h ^= line_hash(l, s->img + l * LINE);
	memcpy(s->img + e->off, e->data, e->len);
	for (l = l0; l < l1; l++)
		s->h ^= line_hash(l, s->img + l * LINE);
}

/* Undo log for trying a subset on top of a state */
struct undo {
	unsigned char *save;
	uint64_t *off;
	uint32_t *len;
	int n, cap;
	size_t bytes, bcap;
};

static void try_apply(struct state *s, struct undo *u, const struct ev *e)
{
	if (u->n == u->cap) {
		u->cap = u->cap ? 2 * u->cap : 64;
		u->off = xrealloc(u->off, u->cap * sizeof(*u->off));
		u->len = xrealloc(u->len, u->cap * sizeof(*u->len));
	}
	if (u->bytes + e->len > u->bcap) {
		u->bcap = (u->bytes + e->len) * 2;
		u->save = xrealloc(u->save, u->bcap);
	}
	u->off[u->n] = e->off;
	u->len[u->n] = e->len;
	memcpy(u->save + u->bytes, s->img + e->off, e->len);
	u->bytes += e->len;
	u->n++;
	st_apply(s, e);
}

static void undo_all(struct state *s, struct undo *u)
{
	while (u->n) {
		struct ev e;

		u->n--;
		u->bytes -= u->len[u->n];
		e.off = u->off[u->n];
		e.len = u->len[u->n];
		e.data = u->save + u->bytes;
		st_apply(s, &e);
	}
}

static int seen_hash(struct plan *p, uint64_t h)
{
	int i;

	/* linear is fine for thousands; a sorted set would do for more */
	for (i = 0; i < p->hn; i++)
		if (p->hash[i] == h)
			return 1;
	if (p->hn == p->hcap) {
		p->hcap = p->hcap ? 2 * p->hcap : 1024;
		p->hash = xrealloc(p->hash, p->hcap * sizeof(*p->hash));
	}
	p->hash[p->hn++] = h;
	return 0;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct opts {
	int all_max, sample;
	uint64_t seed;
};

/* Add the image (whole + @mask of the pending units) unless seen */
static void add_image(struct plan *p, struct state *s, const struct trace *t,
		      const struct units *U, int ti, int call, int fence, int whole,
		      int npend, const unsigned char *mask, const char *kind)
{
	struct undo u = { 0 };
	struct img *im;
	int i, k = 0;

	for (i = 0; i < npend; i++)
		if (mask[i])
			try_apply(s, &u, &t->ev[U->ev[whole + i]]);
	if (seen_hash(p, s->h ^ mix((uint64_t)ti + 1))) {
		p->dups++;
		undo_all(s, &u);
		free(u.save); free(u.off); free(u.len);
		return;
	}
	undo_all(s, &u);
	free(u.save); free(u.off); free(u.len);
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->img = xrealloc(p->img, p->cap * sizeof(*p->img));
	}
	im = &p->img[p->n++];
	im->trace = ti;
	im->call = call;
	im->fence = fence;
	im->whole = whole;
	im->nsel = 0;
	for (i = 0; i < npend; i++)
		im->nsel += mask[i];
	im->sel = xmalloc((im->nsel ? im->nsel : 1) * sizeof(int));
	for (i = 0; i < npend; i++)
		if (mask[i])
			im->sel[k++] = whole + i;
	snprintf(im->kind, sizeof(im->kind), "%s", kind);
}

/* The crash images of trace @ti at one fence (@npend pending units) */
static void fence_images(struct plan *p, struct state *s, const struct trace *t,
			 const struct units *U, int ti, int call, int fence, int whole,
			 int npend, const struct opts *o)
{
	unsigned char *mask = xmalloc(npend + 1);
	uint64_t r = o->seed ^ mix(((uint64_t)ti << 32) | (unsigned)fence);
	int i, j;

	if (npend > p->pending_max)
		p->pending_max = npend;
	if (npend <= o->all_max) {
		for (j = 0; j < (1 << npend); j++) {
			for (i = 0; i < npend; i++)
				mask[i] = (j >> i) & 1;
			add_image(p, s, t, U, ti, call, fence, whole, npend, mask, "subset");
		}
	} else {
		memset(mask, 0, npend);
		add_image(p, s, t, U, ti, call, fence, whole, npend, mask, "none");
		memset(mask, 1, npend);
		add_image(p, s, t, U, ti, call, fence, whole, npend, mask, "all");
		for (j = 0; j < npend; j++) {
			memset(mask, 1, npend);
			mask[j] = 0;
			add_image(p, s, t, U, ti, call, fence, whole, npend, mask, "omit-one");
		}
		for (j = 0; j < o->sample; j++) {
			for (i = 0; i < npend; i++)
				mask[i] = rng_next(&r) & 1;
			add_image(p, s, t, U, ti, call, fence, whole, npend, mask, "random");
		}
	}
	free(mask);
}

/* All images of trace @ti; MISSING records reported on stdout */
static void plan_trace(struct plan *p, const struct trace *t, int ti, const struct opts *o)
{
	struct units U = { xmalloc(t->nev * sizeof(int)), 0 };
	struct state s;
	int i, whole = 0, fence = 0;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == PT_FLUSH || t->ev[i].type == PT_NT)
			U.ev[U.n++] = i;
	st_init(&s, t);
	for (i = 0; i < t->nev; i++) {
		const struct ev *e = &t->ev[i];
		int upto, call;

		if (e->type == PT_MISSING) {
			p->missing_lines += e->len / LINE;
			printf("MISSING-FLUSH %s: call %d (%s): %u bytes at %#" PRIx64
			       " (block %" PRIu64 " + %" PRIu64 ") stored but never flushed before the call returned\n",
			       t->name, e->call, e->call ? t->callname[e->call] : "-", e->len,
			       e->off, e->off / BLOCK, e->off % BLOCK);
		}
		if (e->type != PT_FENCE && e->type != PT_STOP)
			continue;
		/* pending: units [whole, upto) */
		for (upto = whole; upto < U.n && U.ev[upto] < i; upto++)
			;
		call = e->call;
		if (!call) {
			/* between calls: after the one before, before the next */
			int k;

			call = t->ncalls + 1;
			for (k = i; k < t->nev; k++)
				if (t->ev[k].type == PT_BEGIN) {
					call = (int)t->ev[k].off;
					break;
				}
		}
		fence++;
		p->fences++;
		fence_images(p, &s, t, &U, ti, call, fence, whole, upto - whole, o);
		for (; whole < upto; whole++)
			st_apply(&s, &t->ev[U.ev[whole]]);
	}
	free(s.img);
	free(U.ev);
}

/* ------------------------------------------------------------ the pack */

/*
 * Pack: "NOVACIP1", u32 ntraces, u32 nimages, then per trace: u32 w, u32
 * seq, u64 len, name[64], the trace (padded to 8); then per image: u32
 * trace, call, fence, whole, nsel, kind[24], nsel x u32.
 */
static void put(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		die("writing the pack: %s", strerror(errno));
}

static void put32(FILE *f, uint32_t v)
{
	put(f, &v, 4);
}

static void write_pack(const char *path, struct trace *t, int nt, const struct plan *p)
{
	FILE *f = fopen(path, "wb");
	static const char zero[8];
	char name[64];
	int i, j;

	if (!f)
		die("%s: %s", path, strerror(errno));
	put(f, "NOVACIP1", 8);
	put32(f, nt);
	put32(f, p->n);
	for (i = 0; i < nt; i++) {
		uint64_t len = t[i].rawlen;

		put32(f, t[i].w);
		put32(f, t[i].seq);
		put(f, &len, 8);
		memset(name, 0, sizeof(name));
		snprintf(name, sizeof(name), "%s", t[i].name);
		put(f, name, sizeof(name));
		put(f, t[i].raw, len);
		put(f, zero, (8 - len % 8) % 8);
	}
	for (i = 0; i < p->n; i++) {
		const struct img *im = &p->img[i];

		put32(f, im->trace);
		put32(f, im->call);
		put32(f, im->fence);
		put32(f, im->whole);
		put32(f, im->nsel);
		memset(name, 0, sizeof(name));
		snprintf(name, 24, "%s", im->kind);
		put(f, name, 24);
		for (j = 0; j < im->nsel; j++)
			put32(f, im->sel[j]);
	}
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
}

struct pack {
	struct trace *t;
	int nt;
	struct plan p;
	struct units *U;	/* per trace */
};

static void read_pack(struct pack *pk, const char *path)
{
	size_t len, pos = 16;
	unsigned char *raw = read_file(path, &len);
	uint32_t nt, ni;
	int i, j;

	if (len < 16 || memcmp(raw, "NOVACIP1", 8))
		die("%s: not a crashimg pack", path);
	memcpy(&nt, raw + 8, 4);
	memcpy(&ni, raw + 12, 4);
	memset(pk, 0, sizeof(*pk));
	pk->nt = nt;
	pk->t = xmalloc(nt * sizeof(*pk->t));
	pk->U = xmalloc(nt * sizeof(*pk->U));
	for (i = 0; i < (int)nt; i++) {
		struct trace *t = &pk->t[i];
		uint64_t tl;
		const char *err;
		uint32_t w, seq;

		if (pos + 80 > len)
			die("%s: cut short", path);
		memcpy(&w, raw + pos, 4);
		memcpy(&seq, raw + pos + 4, 4);
		memcpy(&tl, raw + pos + 8, 8);
		memset(t, 0, sizeof(*t));
		memcpy(t->name, raw + pos + 16, 64);
		t->name[63] = 0;
		t->w = w;
		t->seq = seq;
		pos += 80;
		if (pos + tl > len)
			die("%s: cut short", path);
		err = parse_trace(t, raw + pos, tl);
		if (err)
			die("%s: trace %s: %s", path, t->name, err);
		pos += (tl + 7) & ~7ULL;
		pk->U[i].ev = xmalloc(t->nev * sizeof(int));
		for (j = 0; j < t->nev; j++)
			if (t->ev[j].type == PT_FLUSH || t->ev[j].type == PT_NT)
				pk->U[i].ev[pk->U[i].n++] = j;
	}
	pk->p.n = ni;
	pk->p.img = xmalloc(ni * sizeof(struct img));
	for (i = 0; i < (int)ni; i++) {
		struct img *im = &pk->p.img[i];
		uint32_t v[5];

		if (pos + 44 > len)
			die("%s: cut short", path);
		memcpy(v, raw + pos, 20);
		im->trace = v[0];
		im->call = v[1];
		im->fence = v[2];
		im->whole = v[3];
		im->nsel = v[4];
		memcpy(im->kind, raw + pos + 20, 24);
		im->kind[23] = 0;
		pos += 44;
		if (im->trace >= (int)nt || pos + 4ULL * im->nsel > len)
			die("%s: bad image %d", path, i);
		im->sel = xmalloc((im->nsel ? im->nsel : 1) * sizeof(int));
		memcpy(im->sel, raw + pos, 4 * im->nsel);
		pos += 4 * im->nsel;
		for (j = 0; j < im->nsel; j++)
			if (im->sel[j] < 0 || im->sel[j] >= pk->U[im->trace].n)
				die("%s: bad image %d", path, i);
		if (im->whole > pk->U[im->trace].n)
			die("%s: bad image %d", path, i);
	}
}

/* The bytes of image @i into @buf (the trace's size) */
static void build_image(const struct pack *pk, int i, unsigned char *buf)
{
	const struct img *im = &pk->p.img[i];
	const struct trace *t = &pk->t[im->trace];
	const struct units *U = &pk->U[im->trace];
	int k;

	memset(buf, 0, t->size);
	for (k = 0; k < t->nev; k++)
		if (t->ev[k].type == PT_BASE)
			memcpy(buf + t->ev[k].off, t->ev[k].data, t->ev[k].len);
	for (k = 0; k < im->whole; k++)
		memcpy(buf + t->ev[U->ev[k]].off, t->ev[U->ev[k]].data, t->ev[U->ev[k]].len);
	for (k = 0; k < im->nsel; k++) {
		const struct ev *e = &t->ev[U->ev[im->sel[k]]];

		memcpy(buf + e->off, e->data, e->len);
	}
}

/* A description of image @i: the call, the fence, the units in and out */
static void describe(const struct pack *pk, int i, FILE *out)
{
	const struct img *im = &pk->p.img[i];
	const struct trace *t = &pk->t[im->trace];
	const struct units *U = &pk->U[im->trace];
	int k, j, fe = 0, s, fence_ev = t->nev;

	fprintf(out, "image %d: trace %s (workload %d, seq %d), call %d (%s), fence %d",
		i, t->name, t->w, t->seq, im->call,
		im->call >= 1 && im->call <= t->ncalls ? t->callname[im->call] : "after the last call",
		im->fence);
	/* the fence's site */
	for (k = 0; k < t->nev; k++)
		if ((t->ev[k].type == PT_FENCE || t->ev[k].type == PT_STOP) && ++fe == im->fence) {
			fence_ev = k;
			fprintf(out, " at %s", t->ev[k].type == PT_STOP ? "the end of the trace" :
				sym_of(t, t->ev[k].ip));
			break;
		}
	fprintf(out, "; %d units persisted before it; pending (%s):\n", im->whole, im->kind);
	for (s = im->whole; s < U->n && U->ev[s] < fence_ev; s++) {
		const struct ev *e = &t->ev[U->ev[s]];
		int in = 0;

		for (j = 0; j < im->nsel; j++)
			in |= im->sel[j] == s;
		fprintf(out, "    %s %s %u bytes at %#" PRIx64 " (block %" PRIu64 " + %" PRIu64
			") by %s (call %d)\n", in ? "KEPT   " : "DROPPED", type_name(e->type), e->len,
			e->off, e->off / BLOCK, e->off % BLOCK, sym_of(t, e->ip), e->call);
	}
	/* stores never flushed (by this call or an earlier one): not in it */
	for (k = 0; k < t->nev; k++)
		if (t->ev[k].type == PT_MISSING && t->ev[k].call <= im->call)
			fprintf(out, "    NEVER FLUSHED %u bytes at %#" PRIx64 " (block %" PRIu64 " + %" PRIu64
				"), stored in call %d (%s)\n", t->ev[k].len, t->ev[k].off,
				t->ev[k].off / BLOCK, t->ev[k].off % BLOCK, t->ev[k].call,
				t->callname[t->ev[k].call]);
}

/* ------------------------------------------------------------ commands */

static int cmd_info(const char *path)
{
	struct trace t;
	int i, c[PT_STOP + 1] = { 0 };
	uint64_t bytes = 0;

	load_trace(&t, path);
	for (i = 0; i < t.nev; i++) {
		const struct ev *e = &t.ev[i];

		c[e->type]++;
		if (e->type == PT_FLUSH || e->type == PT_NT)
			bytes += e->len;
		if (e->type == PT_BEGIN)
			printf("call %d: %s\n", e->call, t.callname[e->call]);
		else if (e->type == PT_FLUSH || e->type == PT_NT || e->type == PT_MISSING)
			printf("  %-7s %6u bytes at %#10" PRIx64 "  %s\n", type_name(e->type), e->len,
			       e->off, e->ip ? sym_of(&t, e->ip) : "");
		else if (e->type == PT_FENCE)
			printf("  FENCE                          %s\n", sym_of(&t, e->ip));
	}
	printf("%s: device %" PRIu64 " bytes, %d base blocks, %d calls, %d flushes, %d NT copies (%" PRIu64
	       " bytes), %d fences, %d missing-flush ranges, %d call sites\n",
	       t.name, t.size, c[PT_BASE], t.ncalls, c[PT_FLUSH], c[PT_NT], bytes, c[PT_FENCE],
	       c[PT_MISSING], t.nsym);
	return 0;
}

static int cmd_plan(int argc, char **argv)
{
	struct opts o = { 6, 24, 21 };
	const char *out = NULL;
	struct trace *t = NULL;
	struct plan p;
	int nt = 0, i, per;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--all-max") && i + 1 < argc)
			o.all_max = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sample") && i + 1 < argc)
			o.sample = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			o.seed = strtoull(argv[++i], NULL, 0);
		else if (!out)
			out = argv[i];
		else {
			t = xrealloc(t, (nt + 1) * sizeof(*t));
			load_trace(&t[nt++], argv[i]);
		}
	}
	if (!out || !nt || o.all_max < 0 || o.all_max > 16)
		die("usage: crashimg plan PACK TRACE... [--all-max N] [--sample N] [--seed S]");
	for (i = 0; i < nt; i++) {
		int before = p.n;
		long f0 = p.fences;

		p.hn = 0;	/* dedup within a trace */
		plan_trace(&p, &t[i], i, &o);
		per = p.n - before;
		printf("PLAN %s: %d calls, %ld fences, %d crash images\n", t[i].name, t[i].ncalls,
		       p.fences - f0, per);
	}
	write_pack(out, t, nt, &p);
	printf("plan: %d traces, %ld fences, %d crash images (%ld duplicates dropped, at most %ld units pending at a fence), %ld cache lines never flushed\n",
	       nt, p.fences, p.n, p.dups, p.pending_max, p.missing_lines);
	return p.missing_lines ? 1 : 0;
}

static int write_dev(const char *dev, const unsigned char *buf, uint64_t size)
{
	int fd = open(dev, O_WRONLY | O_DIRECT);
	uint64_t done = 0;

	if (fd < 0) {
		fprintf(stderr, "crashimg: %s: %s\n", dev, strerror(errno));
		return -1;
	}
	while (done < size) {
		size_t n = size - done > (8 << 20) ? (8 << 20) : size - done;
		ssize_t r = pwrite(fd, buf + done, n, done);

		if (r <= 0) {
			fprintf(stderr, "crashimg: %s: write at %" PRIu64 ": %s\n", dev, done,
				r < 0 ? strerror(errno) : "short");
			close(fd);
			return -1;
		}
		done += r;
	}
	if (fsync(fd) || close(fd))
		return -1;
	return 0;
}

static unsigned char *image_buf(const struct pack *pk)
{
	uint64_t max = 0;
	void *p;
	int i;

	for (i = 0; i < pk->nt; i++)
		if (pk->t[i].size > max)
			max = pk->t[i].size;
	if (posix_memalign(&p, 4096, max))
		die("out of memory");
	return p;
}

static int cmd_write(const char *packf, int n, const char *dev)
{
	struct pack pk;
	unsigned char *buf;

	read_pack(&pk, packf);
	if (n < 0 || n >= pk.p.n)
		die("no image %d (%d in the pack)", n, pk.p.n);
	buf = image_buf(&pk);
	build_image(&pk, n, buf);
	describe(&pk, n, stdout);
	return write_dev(dev, buf, pk.t[pk.p.img[n].trace].size) ? 2 : 0;
}

static int cmd_check(int argc, char **argv)
{
	const char *packf = NULL, *dev = NULL, *script = NULL;
	int first = 0, count = -1, i, pass = 0, fail = 0, np = 0;
	struct pack pk;
	unsigned char *buf;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--first") && i + 1 < argc)
			first = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (np == 0 && ++np)
			packf = argv[i];
		else if (np == 1 && ++np)
			dev = argv[i];
		else if (np == 2 && ++np)
			script = argv[i];
		else
			die("usage: crashimg check PACK DEV SCRIPT [--first N] [--count N]");
	}
	if (np != 3)
		die("usage: crashimg check PACK DEV SCRIPT [--first N] [--count N]");
	read_pack(&pk, packf);
	buf = image_buf(&pk);
	if (count < 0 || first + count > pk.p.n)
		count = pk.p.n - first;
	printf("check: images %d..%d of %d\n", first, first + count - 1, pk.p.n);
	fflush(stdout);
	for (i = first; i < first + count; i++) {
		const struct img *im = &pk.p.img[i];
		const struct trace *t = &pk.t[im->trace];
		char v[64], outf[64];
		int st;

		build_image(&pk, i, buf);
		if (write_dev(dev, buf, t->size)) {
			printf("IMG %d FAIL cannot write the image\n", i);
			fail++;
			continue;
		}
		snprintf(v, sizeof(v), "%d", i);
		setenv("CI_IMAGE", v, 1);
		snprintf(v, sizeof(v), "%d", t->w);
		setenv("CI_W", v, 1);
		snprintf(v, sizeof(v), "%d", t->seq);
		setenv("CI_SEQ", v, 1);
		snprintf(v, sizeof(v), "%d", im->call);
		setenv("CI_CALL", v, 1);
		fflush(stdout);
		snprintf(outf, sizeof(outf), "/tmp/crashimg-%d.out", (int)getpid());
		st = fork();
		if (st == 0) {
			int fd = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execl("/bin/sh", "sh", script, (char *)NULL);
			_exit(127);
		}
		if (st < 0 || waitpid(st, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			FILE *f = fopen(outf, "r");
			char line[1024];

			printf("IMG %d FAIL\n", i);
			printf("--- crash image %d failed its check: ", i);
			describe(&pk, i, stdout);
			printf("  why:\n");
			while (f && fgets(line, sizeof(line), f))
				printf("  %s", line);
			if (f)
				fclose(f);
			fail++;
		} else {
			printf("IMG %d PASS w%d c%d f%d %s\n", i, t->w, im->call, im->fence, im->kind);
			pass++;
		}
		fflush(stdout);
	}
	printf("check: %d images passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}

/* Find the archive of crashwork ace run in @path; its traces to @dir */
static int cmd_extract(const char *path, const char *dir)
{
	size_t len, base;
	unsigned char *raw = read_file(path, &len);
	uint64_t idx[4], cnt, i;
	char out[512];

	for (base = 0; base + ARCH_INDEX <= len; base += BLOCK)
		if (!memcmp(raw + base, "NOVAPTAR", 8))
			break;
	if (base + ARCH_INDEX > len)
		die("%s: no trace archive (magic NOVAPTAR) in it", path);
	memcpy(&cnt, raw + base + 8, 8);
	printf("archive at file offset %zu: %" PRIu64 " traces\n", base, cnt);
	mkdir(dir, 0755);
	for (i = 0; i < cnt; i++) {
		FILE *f;

		memcpy(idx, raw + base + 64 + 32 * i, 32);
		if (base + idx[0] + idx[1] > len)
			die("%s: trace %" PRIu64 " past the end", path, i);
		snprintf(out, sizeof(out), "%s/s%" PRIu64 "-w%03" PRIu64 ".pt", dir, idx[3], idx[2]);
		f = fopen(out, "wb");
		if (!f || fwrite(raw + base + idx[0], 1, idx[1], f) != idx[1] || fclose(f))
			die("%s: %s", out, strerror(errno));
	}
	printf("base %zu\n", base);
	return 0;
}

/* ------------------------------------------------------------ selftest */

struct tb {
	unsigned char *buf;
	size_t len, cap;
};

static void tb_rec(struct tb *b, int type, uint64_t off, const void *data, uint32_t len,
		   uint64_t ip)
{
	struct rec r = { type, len, off, ip };
	size_t need = sizeof(r) + ((len + 7) & ~7u);

	if (b->len + need > b->cap) {
		b->cap = (b->len + need) * 2;
		b->buf = xrealloc(b->buf, b->cap);
	}
	memcpy(b->buf + b->len, &r, sizeof(r));
	memset(b->buf + b->len + sizeof(r), 0, need - sizeof(r));
	if (len)
		memcpy(b->buf + b->len + sizeof(r), data, len);
	b->len += need;
}

static int st_fail;
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL selftest: " __VA_ARGS__); printf("\n"); st_fail++; } } while (0)

/* The bytes of @line in every image of @p, as a string of one char each */
static void images_line_bytes(struct plan *p, struct trace *t, uint64_t off, char *out)
{
	struct pack pk = { t, 1, *p, NULL };
	struct units U = { xmalloc(t->nev * sizeof(int)), 0 };
	unsigned char *img = xmalloc(t->size);
	int i;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == PT_FLUSH || t->ev[i].type == PT_NT)
			U.ev[U.n++] = i;
	pk.U = &U;
	for (i = 0; i < p->n; i++) {
		build_image(&pk, i, img);
		out[i] = img[off] ? img[off] : '0';
	}
	out[p->n] = 0;
	free(img);
	free(U.ev);
}

static int cmd_selftest(void)
{
	unsigned char line[LINE], blk[BLOCK];
	struct opts o = { 6, 4, 1 };
	struct tb b = { 0 };
	struct trace t;
	struct plan p;
	const char *err;
	char s[4096];
	int i;

	/* 1. data then commit with a fence between: never commit without data */
	memset(blk, 0, sizeof(blk));
	blk[0] = 'B';
	tb_rec(&b, PT_START, 8 * BLOCK, "NOVAPT01", 8, 0);
	tb_rec(&b, PT_BASE, 0, blk, BLOCK, 0);
	tb_rec(&b, PT_BEGIN, 1, "write", 6, 0);
	memset(line, 'D', LINE);
	tb_rec(&b, PT_NT, BLOCK, line, LINE, 0x10);
	tb_rec(&b, PT_FENCE, 0, NULL, 0, 0x11);
	memset(line, 'C', LINE);
	tb_rec(&b, PT_FLUSH, 2 * BLOCK, line, LINE, 0x12);
	tb_rec(&b, PT_FENCE, 0, NULL, 0, 0x13);
	tb_rec(&b, PT_END, 1, NULL, 0, 0);
	tb_rec(&b, PT_SYM, 0x12, "nova_log_commit+0x10/0x40", 26, 0);
	tb_rec(&b, PT_STOP, 0, NULL, 0, 0);
	memset(&t, 0, sizeof(t));
	err = parse_trace(&t, b.buf, b.len);
	EXPECT(!err, "parse: %s", err ? err : "");
	EXPECT(t.ncalls == 1 && t.size == 8 * BLOCK, "calls %d size %" PRIu64, t.ncalls, t.size);
	EXPECT(!strcmp(sym_of(&t, 0x12), "nova_log_commit+0x10/0x40"), "symbol");
	memset(&p, 0, sizeof(p));
	plan_trace(&p, &t, 0, &o);
	EXPECT(p.fences == 3, "fences %ld, expected 3 (2 + the end)", p.fences);
	/* distinct images: base; data; data+commit */
	EXPECT(p.n == 3, "%d images, expected 3", p.n);
	for (i = 0; i < p.n; i++) {
		char d[8], c[8];

		images_line_bytes(&p, &t, BLOCK, d);
		images_line_bytes(&p, &t, 2 * BLOCK, c);
		EXPECT(!(c[i] == 'C' && d[i] != 'D'), "image %d has the commit without the data", i);
	}

	/* 2. the same without the fence: an image with commit and no data */
	b.len = 0;
	tb_rec(&b, PT_START, 8 * BLOCK, "NOVAPT01", 8, 0);
	tb_rec(&b, PT_BEGIN, 1, "write", 6, 0);
	memset(line, 'D', LINE);
	tb_rec(&b, PT_NT, BLOCK, line, LINE, 0x10);
	memset(line, 'C', LINE);
	tb_rec(&b, PT_FLUSH, 2 * BLOCK, line, LINE, 0x12);
	tb_rec(&b, PT_FENCE, 0, NULL, 0, 0x13);
	tb_rec(&b, PT_END, 1, NULL, 0, 0);
	tb_rec(&b, PT_STOP, 0, NULL, 0, 0);
	err = parse_trace(&t, b.buf, b.len);
	EXPECT(!err, "parse 2: %s", err ? err : "");
	memset(&p, 0, sizeof(p));
	plan_trace(&p, &t, 0, &o);
	EXPECT(p.n == 4, "%d images, expected 4 (every subset of 2)", p.n);
	{
		char d[8], c[8];
		int bad = 0;

		images_line_bytes(&p, &t, BLOCK, d);
		images_line_bytes(&p, &t, 2 * BLOCK, c);
		for (i = 0; i < p.n; i++)
			bad |= c[i] == 'C' && d[i] != 'D';
		EXPECT(bad, "no image with the commit and without the data: %s / %s", d, c);
	}

	/* 3. many pending units: none, all, single omissions, samples; dedup */
	b.len = 0;
	tb_rec(&b, PT_START, 64 * BLOCK, "NOVAPT01", 8, 0);
	tb_rec(&b, PT_BEGIN, 1, "big", 4, 0);
	for (i = 0; i < 10; i++) {
		memset(line, 'a' + i, LINE);
		tb_rec(&b, PT_FLUSH, (uint64_t)i * LINE, line, LINE, 0x20);
	}
	tb_rec(&b, PT_FENCE, 0, NULL, 0, 0x21);
	tb_rec(&b, PT_END, 1, NULL, 0, 0);
	tb_rec(&b, PT_STOP, 0, NULL, 0, 0);
	err = parse_trace(&t, b.buf, b.len);
	EXPECT(!err, "parse 3: %s", err ? err : "");
	memset(&p, 0, sizeof(p));
	plan_trace(&p, &t, 0, &o);
	EXPECT(p.n >= 12 && p.n <= 16, "%d images for 10 pending lines (none, all, 10 omissions, <= 4 samples)", p.n);

	/* 4. the same line flushed twice: old, first or second version */
	b.len = 0;
	tb_rec(&b, PT_START, 4 * BLOCK, "NOVAPT01", 8, 0);
	tb_rec(&b, PT_BEGIN, 1, "twice", 6, 0);
	memset(line, '1', LINE);
	tb_rec(&b, PT_FLUSH, 0, line, LINE, 0x30);
	memset(line, '2', LINE);
	tb_rec(&b, PT_FLUSH, 0, line, LINE, 0x30);
	tb_rec(&b, PT_FENCE, 0, NULL, 0, 0x31);
	tb_rec(&b, PT_MISSING, LINE, line, LINE, 0);
	tb_rec(&b, PT_END, 1, NULL, 0, 0);
	tb_rec(&b, PT_STOP, 0, NULL, 0, 0);
	err = parse_trace(&t, b.buf, b.len);
	EXPECT(!err, "parse 4: %s", err ? err : "");
	memset(&p, 0, sizeof(p));
	plan_trace(&p, &t, 0, &o);
	images_line_bytes(&p, &t, 0, s);
	EXPECT(p.n == 3 && strchr(s, '0') && strchr(s, '1') && strchr(s, '2'),
	       "images of a line flushed twice: \"%s\", expected old, 1 and 2", s);
	EXPECT(p.missing_lines == 1, "missing lines %ld, expected 1", p.missing_lines);
	images_line_bytes(&p, &t, LINE, s);
	EXPECT(!strchr(s, '2'), "a never-flushed store is in an image: %s", s);

	/* 5. malformed traces are refused */
	b.len = 0;
	tb_rec(&b, PT_START, 4 * BLOCK, "NOVAPT01", 8, 0);
	tb_rec(&b, PT_FLUSH, 4 * BLOCK, line, LINE, 0);
	tb_rec(&b, PT_STOP, 0, NULL, 0, 0);
	EXPECT(parse_trace(&t, b.buf, b.len) != NULL, "a flush past the device accepted");
	b.len = 0;
	tb_rec(&b, PT_START, 4 * BLOCK, "NOVAPT01", 8, 0);
	EXPECT(parse_trace(&t, b.buf, b.len) != NULL, "a trace without STOP accepted");
	b.len = 0;
	tb_rec(&b, PT_START, 4 * BLOCK, "NOVAPT01", 8, 0);
	tb_rec(&b, PT_STOP, 1, NULL, 0, 0);
	EXPECT(parse_trace(&t, b.buf, b.len) != NULL, "an overflowed trace accepted");

	printf("%d passed, %d failed\n", st_fail ? 0 : 1, st_fail ? 1 : 0);
	return st_fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "selftest"))
		return cmd_selftest();
	if (argc == 3 && !strcmp(argv[1], "info"))
		return cmd_info(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "count")) {
		struct pack pk;

		read_pack(&pk, argv[2]);
		printf("%d\n", pk.p.n);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "plan"))
		return cmd_plan(argc - 2, argv + 2);
	if (argc >= 5 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (argc == 5 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2], atoi(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "extract"))
		return cmd_extract(argv[2], argv[3]);
	fprintf(stderr, "usage: crashimg extract|info|plan|check|write|selftest ... (see the header)\n");
	return 2;
}
