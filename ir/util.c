/* util.c - arenas, growable arrays and internal-error reporting. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ir.h"

/* An arena is a chain of blocks; everything goes at once in arena_free,
 * or back to a mark in arena_release.  Blocks are numbered in the order
 * they are made, so a release frees exactly the blocks newer than its
 * mark: they sit at the head of the chain, or (big ones) right behind
 * the block that was the head then.
 *
 * Fresh memory is what a big conversion pays for (page faults, and on
 * some virtual machines the host's), so blocks grow with the arena (a
 * million-node graph makes tens of blocks, not thousands), big blocks are
 * mapped on their own with transparent huge pages, and memory that came
 * zeroed from the kernel is not zeroed again: each block knows how far
 * it was ever handed out (dirty). */
typedef struct Block Block;
struct Block {
	Block *next;
	size_t used, cap;
	size_t dirty;   /* bytes from here on are still zero */
	size_t mapped;  /* the mapping's length; 0: from malloc */
	uint64_t seq;
	_Alignas(16) unsigned char data[];
};

struct Arena {
	Block *head;
	Block *spare;   /* the newest block a release freed, kept for reuse */
	uint64_t nblocks;
	size_t live;    /* bytes of the blocks in the chain */
};

enum { BLOCK = 64 * 1024 };
#define BLOCK_MAX ((size_t)32 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static void (*oom_hook)(size_t);

void
ir_set_oom_hook(void (*hook)(size_t bytes))
{
	oom_hook = hook;
}

_Noreturn void
ir_oom(size_t bytes)
{
	if (oom_hook)
		oom_hook(bytes);
	fprintf(stderr, "onnxc: error: out of memory (asking for %zu "
	    "bytes)\n", bytes);
	abort();
}

void *
xzalloc(size_t n, size_t size)
{
	void *q = calloc(n ? n : 1, size ? size : 1);
	if (!q)
		ir_oom(n > SIZE_MAX / (size ? size : 1) ? SIZE_MAX : n * size);
	return q;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		ir_oom(n);
	return q;
}

_Noreturn void
ir_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "onnxc: internal error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* A table of 1 MiB or more is on 2 MiB pages, whole ones from a 2 MiB
 * boundary (where its ends shared a page with something else, those were
 * 512 small pages each), advised before anything touches it: one fault and
 * one page to zero beat 256 faults. */
void *
mem_alloc_big(size_t bytes)
{
	if (bytes < HUGE_PAGE / 2)
		return xrealloc(NULL, bytes);
	size_t whole = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	void *q = whole >= bytes ? aligned_alloc(HUGE_PAGE, whole) : NULL;
	if (!q)
		ir_oom(bytes);
	mem_advise_huge(q, whole);
	return q;
}

void
vgrow_nz(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
	uint64_t c = *cap ? *cap : 8;
	if (need <= *cap)
		return;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX || c * sz / sz != c)
		BUG("table too large");
	size_t bytes = (size_t)c * sz;
	if (bytes < HUGE_PAGE / 2) {
		*arr = xrealloc(*arr, bytes);
		*cap = (uint32_t)c;
		return;
	}
	/* Copied rather than realloc'd: realloc moves the pages with mremap
	 * to an address whose 2 MiB boundaries differ, which splits them. */
	void *q = mem_alloc_big(bytes);
	if (*cap)
		memcpy(q, *arr, (size_t)*cap * sz);
	free(*arr);
	*arr = q;
	*cap = (uint32_t)c;
}

void
vgrow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
	uint32_t old = *cap;
	if (need <= old)
		return;
	vgrow_nz(arr, cap, need, sz);
	memset((char *)*arr + (size_t)old * sz, 0, (size_t)(*cap - old) * sz);
}

Arena *
arena_new(void)
{
	Arena *a = xrealloc(NULL, sizeof *a);
	*a = (Arena){0};
	return a;
}

void
mem_advise_huge(void *p, size_t n)
{
	/* the whole mapping, to its page edges: advising part of it would
	 * split it, and then realloc could not move it with mremap */
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095;
	uintptr_t hi = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;
	/* without transparent huge pages this fails: 4 KiB pages then */
	(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

/* len bytes of fresh memory on a 2 MiB boundary, so that all of it can be
 * huge pages: map 2 MiB more and cut the ends off. */
static void *
map_aligned(size_t len)
{
	unsigned char *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	size_t head = a - (uintptr_t)p;
	if (head)
		munmap(p, head);
	munmap((void *)(a + len), HUGE_PAGE - head);
	mem_advise_huge((void *)a, len);
	return (void *)a;
}

/* A block of cap bytes: a mapping of its own from 2 MiB up (zeroed by the
 * kernel, huge pages, given back whole), else from malloc. */
static Block *
block_new(size_t cap)
{
	size_t len = sizeof(Block) + cap;
	Block *b;
	if (cap >= HUGE_PAGE) {
		len = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		if (!(b = map_aligned(len)))
			return NULL;
		b->mapped = len;
		b->cap = len - sizeof(Block);
		b->dirty = 0;
	} else {
		b = malloc(len);
		if (!b)
			return NULL;
		b->mapped = 0;
		b->cap = cap;
		b->dirty = cap;
	}
	b->used = 0;
	return b;
}

static void
block_free(Block *b)
{
	if (b->mapped)
		munmap(b, b->mapped);
	else
		free(b);
}

/* Room for n bytes in a new block: the spare when it fits, else one as
 * big as the arena so far (so blocks double), within BLOCK..BLOCK_MAX. */
static Block *
grow(Arena *a, size_t n)
{
	Block *b = a->spare;
	if (b && b->cap >= n) {
		a->spare = NULL;
		b->used = 0;
	} else {
		size_t cap = a->live < BLOCK ? BLOCK : a->live > BLOCK_MAX
		    ? BLOCK_MAX : a->live;
		if (n > BLOCK / 4)
			cap = n;  /* a big request gets a block of its own */
		if (!(b = block_new(cap)))
			return NULL;
	}
	b->seq = a->nblocks++;
	a->live += b->cap;
	if (n > BLOCK / 4 && a->head) {
		/* behind the head, so the head keeps its free space */
		b->next = a->head->next;
		a->head->next = b;
	} else {
		b->next = a->head;
		a->head = b;
	}
	return b;
}

/* n bytes, 16-byte aligned, not zeroed */
static void *
take(Arena *a, size_t n, bool zero)
{
	Block *b = a->head;
	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		if (!(b = grow(a, n)))
			return NULL;
	}
	unsigned char *p = b->data + b->used;
	size_t end = b->used + n;
	if (zero && b->used < b->dirty)
		memset(p, 0, (end < b->dirty ? end : b->dirty) - b->used);
	if (end > b->dirty)
		b->dirty = end;
	b->used = end;
	return p;
}

void *
arena_try_alloc(Arena *a, size_t n)
{
	return take(a, n, true);
}

void *
arena_alloc(Arena *a, size_t n)
{
	void *p = take(a, n, true);
	if (!p)
		ir_oom(n);
	return p;
}

void *
arena_alloc_nz(Arena *a, size_t n)
{
	void *p = take(a, n, false);
	if (!p)
		ir_oom(n);
	return p;
}

void *
arena_try_array(Arena *a, size_t n, size_t size)
{
	if (size && n > (SIZE_MAX - 16) / size)
		return NULL;
	return arena_try_alloc(a, n * size);
}

void *
arena_array(Arena *a, size_t n, size_t size)
{
	void *p = arena_try_array(a, n, size);
	if (!p)
		ir_oom(n > SIZE_MAX / size ? SIZE_MAX : n * size);
	return p;
}

ArenaMark
arena_mark(Arena *a)
{
	return (ArenaMark){.block = a->head, .used = a->head ? a->head->used
	    : 0, .seq = a->nblocks};
}

void
arena_release(Arena *a, ArenaMark mk)
{
	Block **link = &a->head;
	while (*link && ((*link)->seq >= mk.seq || *link == mk.block)) {
		Block *b = *link;
		if (b == mk.block) {
			link = &b->next;
			continue;
		}
		*link = b->next;
		a->live -= b->cap;
		/* keep one: scratch memory is taken and given back per node */
		if (!a->spare || a->spare->cap < b->cap) {
			if (a->spare)
				block_free(a->spare);
			a->spare = b;
		} else {
			block_free(b);
		}
	}
	if (mk.block)
		((Block *)mk.block)->used = mk.used;
	a->nblocks = mk.seq;
}

size_t
str_addf(char *buf, size_t cap, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	/* past the end already: only count, so that the caller's length
	 * keeps saying how long the text would be */
	int n = len < cap ? vsnprintf(buf + len, cap - len, fmt, ap) :
	    vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	return len + (n > 0 ? (size_t)n : 0);
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc_nz(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void
arena_free(Arena *a)
{
	if (!a)
		return;
	for (Block *b = a->head, *next; b; b = next) {
		next = b->next;
		block_free(b);
	}
	if (a->spare)
		block_free(a->spare);
	free(a);
}
