/* host_tensor.c - constant tensors a pass makes from weights without
 * holding them (onnxc_host_api.tensor_make, tensor_view; ABI 1.6).
 *
 * A weight stays mapped from its file and goes to the output by the
 * kernel (backend/copy.h); a pass that changes one (scale folding,
 * conv-batch-norm folding, a folded Transpose) would otherwise hold a
 * computed copy of it, so that -O2 peaks at twice the weights.  Here a
 * big tensor is made a bounded piece at a time into a scratch file that
 * is mapped read-only and registered as a source, so the rest of onnxc
 * reads it like any mapped weight and the writer copies it by the
 * kernel.  After each piece the pages that reading the weights brought in
 * are let go (be_src_drop), so memory stays O(graph) + one piece. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/copy.h"
#include "host.h"

enum {
	SPILL_MIN = 1 << 20,   /* smaller tensors are made in the arena */
	PIECE = 4 << 20,       /* bytes made per fill call */
	ALIGN = 64
};

/* The scratch file: one per process, appended to, mapped once over an
 * address range reserved up front so that pointers into it stay put. */
static struct {
	int fd;         /* -1: not opened; -2: cannot be had */
	unsigned char *map;
	uint64_t cap, len;
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
	static unsigned char *buf;
	uint64_t per = PIECE / es, numel = nb / es;
	if (!buf)
		buf = malloc(PIECE);
	bool ok = buf != NULL;
	for (uint64_t i = 0; ok && i < numel; i += per) {
		uint64_t k = numel - i < per ? numel - i : per;
		ok = fill(user, i, k, buf) == 0 &&
		    put(spill.fd, buf, (size_t)(k * es), at + i * es) == 0;
		be_src_drop();
	}
	if (!ok)
		return NULL;
	spill.len = at + nb;
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

void
h_bytes_done(onnxc_ctx *c, const void *p, uint64_t n)
{
	(void)c;
	if (p && n <= SIZE_MAX)
		be_src_release(p, (size_t)n);
}
