/* util.c - arenas, growable arrays and internal-error reporting. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* An arena is a chain of blocks; everything goes at once in arena_free,
 * or back to a mark in arena_release.  Blocks are numbered in the order
 * they are made, so a release frees exactly the blocks newer than its
 * mark: they sit at the head of the chain, or (big ones) right behind
 * the block that was the head then. */
typedef struct Block Block;
struct Block {
	Block *next;
	size_t used, cap;
	uint64_t seq;
	_Alignas(16) unsigned char data[];
};

struct Arena {
	Block *head;
	uint64_t nblocks;
};

enum { BLOCK = 64 * 1024 };

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		BUG("out of memory (%zu bytes)", n);
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
	*arr = xrealloc(*arr, (size_t)c * sz);
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
	a->head = NULL;
	a->nblocks = 0;
	return a;
}

void *
arena_try_alloc(Arena *a, size_t n)
{
	Block *b = a->head;
	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > BLOCK / 4 ? n : BLOCK;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->seq = a->nblocks++;
		if (n > BLOCK / 4 && a->head) {
			/* a big request gets its own block behind the head,
			 * so the head keeps its free space */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

void *
arena_alloc(Arena *a, size_t n)
{
	void *p = arena_try_alloc(a, n);
	if (!p)
		BUG("out of memory (%zu bytes)", n);
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
		BUG("out of memory (%zu x %zu bytes)", n, size);
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
		free(b);
	}
	if (mk.block)
		((Block *)mk.block)->used = mk.used;
	a->nblocks = mk.seq;
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
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
		free(b);
	}
	free(a);
}
