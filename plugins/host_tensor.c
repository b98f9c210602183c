/* host_tensor.c - constant tensors a pass makes from weights without
 * holding them (onnxc_host_api.tensor_make, tensor_view; ABI 1.6;
 * tensor_make_deferred, ABI 1.7).
 *
 * A weight stays mapped from its file and goes to the output by the
 * kernel (backend/copy.h); a pass that changes one (scale folding,
 * conv-batch-norm folding, a folded Transpose) would otherwise hold a
 * computed copy of it, so that -O2 peaks at twice the weights.  Here a
 * big tensor is made a bounded piece at a time into a scratch file that
 * is mapped read-only and registered as a source, so the rest of onnxc
 * reads it like any mapped weight and the writer copies it by the
 * kernel.  After each piece the pages that reading the weights brought in
 * are let go (be_src_drop), so memory stays O(graph) + one piece.
 *
 * A deferred tensor is not made at all until its bytes are needed: its
 * place in the scratch file's mapping is reserved and kept unreadable
 * (PROT_NONE), and the host keeps the pass's recipe (fill and a copy of
 * its user data).  The writer, handed those bytes, has them made a piece
 * at a time straight into the output (be_src_make): a rewritten weight
 * is computed once and written once, where the scratch file wrote it,
 * read it back and copied it (ResNet-50 at -O2: 98 MB of conv weights
 * scaled by their batch norms).  Anything else that reads them first (a
 * later pass, an in-memory encoding) faults on the reserved pages; the
 * SIGSEGV handler then makes the tensor into the scratch file, where it
 * stays, and lets the read go on, so no reader needs to know.  A fault
 * outside the reserved pages goes to the handler there was before. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/copy.h"
#include "host.h"

enum {
	SPILL_MIN = 1 << 20,   /* smaller tensors are made in the arena */
	PIECE = 4 << 20,       /* bytes made per fill call */
	WPIECE = 1 << 20,      /* the same, made as written: stays in cache */
	ALIGN = 64
};

/* The scratch file: one per process, appended to, mapped once over an
 * address range reserved up front so that pointers into it stay put. */
/* A deferred tensor: bytes [at, at + nb) of the scratch file, once made. */
typedef struct Later {
	uint64_t at, nb;
	size_t es;
	int (*fill)(void *, uint64_t, uint64_t, void *);
	void *user;                  /* the host's copy */
	volatile sig_atomic_t made;  /* written and readable */
} Later;

static struct {
	int fd;         /* -1: not opened; -2: cannot be had */
	unsigned char *map;
	uint64_t cap, len;
	Later *later;   /* by offset */
	uint32_t nlater, clater;
	unsigned char *wbuf;         /* WPIECE: pieces made as written */
	uint64_t page;               /* (read in the signal handler) */
	struct sigaction old_segv;
	unsigned char *piece;        /* PIECE: pieces made into the file */
} spill = {.fd = -1};

static int
scratch_fd(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd;
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s/onnxc-XXXXXX", dir) >=
	    sizeof path)
		return -1;
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static bool
spill_open(void)
{
	if (spill.fd != -1)
		return spill.fd >= 0;
	spill.fd = -2;
	spill.page = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = scratch_fd();
	if (fd < 0)
		return false;
	/* address space only: pages past the end of the file are never read */
	for (uint64_t cap = (uint64_t)1 << 40; cap >= (uint64_t)1 << 32;
	    cap >>= 2) {
		void *p = mmap(NULL, (size_t)cap, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			continue;
		if (be_src_add(p, (size_t)cap, fd, "(onnxc scratch file)")) {
			munmap(p, (size_t)cap);
			break;
		}
		spill.map = p;
		spill.cap = cap;
		spill.fd = fd;
		return true;
	}
	close(fd);
	return false;
}

static int
put(int fd, const unsigned char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* Elements [0, nb / es) that fill makes, into the scratch file at at, a
 * piece of cap bytes at a time through buf; 0 or -1. */
static int
fill_file(uint64_t at, uint64_t nb, size_t es, int (*fill)(void *, uint64_t,
    uint64_t, void *), void *user, unsigned char *buf, uint64_t cap)
{
	uint64_t per = cap / es, numel = nb / es;
	int rc = 0;
	for (uint64_t i = 0; !rc && i < numel; i += per) {
		uint64_t k = numel - i < per ? numel - i : per;
		rc = fill(user, i, k, buf) || put(spill.fd, buf, (size_t)(k *
		    es), at + i * es) ? -1 : 0;
		be_src_drop();
	}
	return rc;
}

/* nb bytes of es-byte elements into the scratch file, a piece at a time:
 * where they are mapped, or NULL. */
static const void *
spill_make(uint64_t nb, size_t es, int (*fill)(void *, uint64_t, uint64_t,
    void *), void *user)
{
	uint64_t at = (spill.len + ALIGN - 1) / ALIGN * ALIGN;
	if (nb > spill.cap || at > spill.cap - nb)
		return NULL;
	/* one buffer for every tensor: fresh memory for each costs its page
	 * faults again */
	if (!spill.piece)
		spill.piece = malloc(PIECE);
	if (!spill.piece || fill_file(at, nb, es, fill, user, spill.piece,
	    PIECE))
		return NULL;
	spill.len = at + nb;
	return spill.map + at;
}

/* --------------------------------------------------------- deferred */

static uint64_t
page_up(uint64_t n)
{
	return (n + spill.page - 1) / spill.page * spill.page;
}

/* The deferred tensor whose reserved pages hold scratch offset off. */
static Later *
later_at(uint64_t off)
{
	uint32_t lo = 0, hi = spill.nlater;
	while (lo < hi) {            /* the first one past off */
		uint32_t mid = lo + (hi - lo) / 2;
		if (spill.later[mid].at <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	Later *l = lo ? &spill.later[lo - 1] : NULL;
	return l && off < l->at + page_up(l->nb) ? l : NULL;
}

/* Make l into the scratch file and let it be read.  Its own buffer, so
 * that a fill reading another deferred tensor can make that one in the
 * middle (the handler below).  On failure the pages read as zeros, and
 * the scratch file counts as changed: no output is kept (out.c). */
static void
make_now(Later *l)
{
	unsigned char *buf = mmap(NULL, PIECE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok = buf != MAP_FAILED && fill_file(l->at, l->nb, l->es, l->fill,
	    l->user, buf, PIECE) == 0;
	if (buf != MAP_FAILED)
		munmap(buf, PIECE);
	if (!ok) {
		(void)mmap(spill.map + l->at, (size_t)page_up(l->nb), PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		be_src_note_changed(spill.fd);
	} else {
		(void)mprotect(spill.map + l->at, (size_t)page_up(l->nb),
		    PROT_READ);
	}
	l->made = 1;
}

/* A read of a deferred tensor not yet made: make it, and the read goes
 * on (the fault is the reader's own, synchronous; making it takes system
 * calls and the pass's fill, which computes from mapped bytes).  Faults
 * anywhere else are not ours. */
static void
on_segv(int sig, siginfo_t *si, void *uc)
{
	const unsigned char *a = si->si_addr;
	Later *l = spill.map && a >= spill.map && a < spill.map + spill.len ?
	    later_at((uint64_t)(a - spill.map)) : NULL;
	if (l && !l->made) {
		make_now(l);
		return;
	}
	/* the default action, as if we had no handler */
	const struct sigaction *o = &spill.old_segv;
	sigaction(sig, o, NULL);
	if (o->sa_flags & SA_SIGINFO && o->sa_sigaction)
		o->sa_sigaction(sig, si, uc);
	else if (o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN)
		o->sa_handler(sig);
}

/* Ours, again if someone replaced it since (test harnesses do). */
static void
segv_handler(void)
{
	struct sigaction cur;
	if (sigaction(SIGSEGV, NULL, &cur) == 0 &&
	    cur.sa_sigaction != on_segv) {
		struct sigaction sa = {.sa_sigaction = on_segv,
			.sa_flags = SA_SIGINFO | SA_NODEFER};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, &spill.old_segv);
	}
}

/* The writer's maker (copy.h): p[0, n) made a piece at a time into put
 * where it is whole elements of one deferred tensor not yet made; any
 * other deferred bytes in it are made into the scratch file first, and
 * then they are copied from there like any weight. */
static int
later_make(const void *p, size_t n, BePut put, void *put_ctx)
{
	const unsigned char *a = p;
	if (!spill.map || !n || a < spill.map || a >= spill.map + spill.len)
		return -1;
	uint64_t off = (uint64_t)(a - spill.map);
	Later *l = later_at(off);
	if (l && !l->made && (off - l->at) % l->es == 0 && n % l->es == 0 &&
	    off - l->at + n <= l->nb && (spill.wbuf || (spill.wbuf =
	    malloc(WPIECE)))) {
		uint64_t per = WPIECE / l->es, i = (off - l->at) / l->es;
		uint64_t end = i + n / l->es;
		int rc = 0;
		for (; !rc && i < end; i += per) {
			uint64_t k = end - i < per ? end - i : per;
			rc = l->fill(l->user, i, k, spill.wbuf) ? EIO : put(
			    put_ctx, spill.wbuf, (size_t)(k * l->es));
			be_src_drop();
		}
		return rc;
	}
	for (uint32_t i = 0; i < spill.nlater; i++) {
		Later *x = &spill.later[i];
		if (!x->made && x->at < off + n && off < x->at + page_up(x->nb))
			make_now(x);
	}
	return -1;
}

/* Room for nb deferred bytes made by fill from a copy of user: where
 * they will be, or NULL. */
static const void *
spill_defer(uint64_t nb, size_t es, int (*fill)(void *, uint64_t, uint64_t,
    void *), const void *user, uint64_t usize)
{
	uint64_t at = page_up(spill.len), span = page_up(nb);
	if (span > spill.cap || at > spill.cap - span || usize > SIZE_MAX)
		return NULL;
	if (spill.nlater == spill.clater) {
		uint32_t cap = spill.clater ? 2 * spill.clater : 64;
		Later *v = realloc(spill.later, cap * sizeof *v);
		if (!v)
			return NULL;
		spill.later = v;
		spill.clater = cap;
	}
	void *copy = malloc(usize ? (size_t)usize : 1);
	if (!copy)
		return NULL;
	if (usize)
		memcpy(copy, user, (size_t)usize);
	if (mprotect(spill.map + at, (size_t)span, PROT_NONE)) {
		free(copy);
		return NULL;
	}
	segv_handler();
	be_src_maker(later_make);
	spill.later[spill.nlater++] = (Later){at, nb, es, fill, copy, 0};
	spill.len = at + span;
	return spill.map + at;
}

onnxc_tensor
h_tensor_make(onnxc_ctx *c, uint32_t dtype, int32_t rank,
    const int64_t *dims, int (*fill)(void *, uint64_t, uint64_t, void *),
    void *user)
{
	uint64_t nb;
	size_t es = ir_dtype_size((DType)dtype);
	if (!c || !fill || !es || !pl_tensor_size(dtype, rank, dims, &nb))
		return 0;
	const void *data = NULL;
	if (nb >= SPILL_MIN && spill_open())
		data = spill_make(nb, es, fill, user);
	if (!data) {
		void *d = arena_alloc(c->m->arena, nb ? nb : 1);
		if (nb && fill(user, 0, nb / es, d))
			return 0;
		data = d;
	}
	Tensor t = {.dtype = (uint8_t)dtype, .rank = rank,
		.dims = (int64_t *)dims, .data = data, .nbytes = nb};
	return ir_tensor(c->m, &t);
}

onnxc_tensor
h_tensor_view(onnxc_ctx *c, onnxc_tensor t, int32_t rank,
    const int64_t *dims)
{
	uint64_t nb;
	if (!c || t == 0 || t >= c->m->ntensors)
		return 0;
	Tensor v = c->m->tensors[t];
	if (!pl_tensor_size(v.dtype, rank, dims, &nb) || nb != v.nbytes)
		return 0;
	v.rank = rank;
	v.dims = (int64_t *)dims;
	return ir_tensor(c->m, &v);
}

onnxc_tensor
h_tensor_make_deferred(onnxc_ctx *c, uint32_t dtype, int32_t rank,
    const int64_t *dims, int (*fill)(void *, uint64_t, uint64_t, void *),
    const void *user, uint64_t user_size)
{
	uint64_t nb;
	size_t es = ir_dtype_size((DType)dtype);
	if (!c || !fill || !es || !pl_tensor_size(dtype, rank, dims, &nb) ||
	    (user_size && !user))
		return 0;
	const void *data = nb >= SPILL_MIN && spill_open() ?
	    spill_defer(nb, es, fill, user, user_size) : NULL;
	if (!data)   /* made now: user is the caller's, good until we return */
		return h_tensor_make(c, dtype, rank, dims, fill, (void *)user);
	Tensor t = {.dtype = (uint8_t)dtype, .rank = rank,
		.dims = (int64_t *)dims, .data = data, .nbytes = nb};
	return ir_tensor(c->m, &t);
}

void
h_bytes_done(onnxc_ctx *c, const void *p, uint64_t n)
{
	(void)c;
	if (p && n <= SIZE_MAX)
		be_src_release(p, (size_t)n);
}
