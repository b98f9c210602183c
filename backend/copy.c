/* copy.c - the kernel copy of weight bytes, and the table of input files
 * they come from (see copy.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy.h"

enum { MAXSRC = 16 };

/* Read by the SIGBUS handler: entries are filled before used is set. */
typedef struct Src {
	const unsigned char *map;
	size_t len;
	int fd;
	dev_t dev;
	ino_t ino;
	char path[512];
} Src;

static Src srcs[MAXSRC];
static volatile sig_atomic_t used[MAXSRC];
static volatile sig_atomic_t changed = -1;   /* index of a changed source */
static struct sigaction old_bus;
static long pagesz;

/* A read of a page the file no longer has: give the page zeros so that
 * the read completes, and note the change; the writers check it before
 * an output is kept.  Faults outside the sources are not ours. */
static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const unsigned char *a = si->si_addr;
	for (int i = 0; i < MAXSRC; i++) {
		if (!used[i] || a < srcs[i].map ||
		    a >= srcs[i].map + srcs[i].len)
			continue;
		void *page = (void *)((uintptr_t)a & ~(uintptr_t)(pagesz - 1));
		if (mmap(page, (size_t)pagesz, PROT_READ, MAP_PRIVATE |
		    MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		changed = i;
		return;
	}
	/* not a source: the default action, as if we had no handler */
	sigaction(sig, &old_bus, NULL);
	if (old_bus.sa_flags & SA_SIGINFO && old_bus.sa_sigaction)
		old_bus.sa_sigaction(sig, si, uc);
	else if (old_bus.sa_handler != SIG_DFL &&
	    old_bus.sa_handler != SIG_IGN)
		old_bus.sa_handler(sig);
}

int
be_src_add(const void *map, size_t len, int fd, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	for (int i = 0; i < MAXSRC; i++) {
		if (used[i])
			continue;
		srcs[i] = (Src){map, len, fd, st.st_dev, st.st_ino, {0}};
		snprintf(srcs[i].path, sizeof srcs[i].path, "%s", path);
		used[i] = 1;
		/* (again if someone replaced it since: test harnesses do) */
		struct sigaction cur;
		if (sigaction(SIGBUS, NULL, &cur) == 0 &&
		    cur.sa_sigaction != on_sigbus) {
			pagesz = sysconf(_SC_PAGESIZE);
			struct sigaction sa = {.sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_NODEFER};
			sigemptyset(&sa.sa_mask);
			sigaction(SIGBUS, &sa, &old_bus);
		}
		return 0;
	}
	return -1;
}

void
be_src_remove(const void *map)
{
	for (int i = 0; i < MAXSRC; i++)
		if (used[i] && srcs[i].map == map) {
			used[i] = 0;
			if (changed == i)
				changed = -1;
		}
}

void
be_src_drop(void)
{
	if (!pagesz)
		pagesz = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < MAXSRC; i++) {
		if (!used[i] || !srcs[i].map || !srcs[i].len)
			continue;
		/* read-only mappings: nothing to lose but residency */
		uintptr_t a = (uintptr_t)srcs[i].map & ~(uintptr_t)(pagesz - 1);
		size_t n = srcs[i].len + ((uintptr_t)srcs[i].map - a);
		(void)madvise((void *)a, n, MADV_DONTNEED);
	}
}

void
be_src_release(const void *p, size_t n)
{
	int fd;
	uint64_t off;
	if (!n || !be_src_find(p, n, &fd, &off))
		return;
	if (!pagesz)
		pagesz = sysconf(_SC_PAGESIZE);
	/* whole pages only: a page shared with bytes still in use stays */
	uintptr_t a = ((uintptr_t)p + (uintptr_t)pagesz - 1) &
	    ~(uintptr_t)(pagesz - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(pagesz - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
}

bool
be_src_find(const void *p, size_t n, int *fd, uint64_t *off)
{
	const unsigned char *a = p;
	for (int i = 0; i < MAXSRC; i++) {
		const Src *s = &srcs[i];
		if (!used[i] || !s->map || a < s->map || a > s->map + s->len ||
		    n > (size_t)(s->map + s->len - a))
			continue;
		*fd = s->fd;
		*off = (uint64_t)(a - s->map);
		return true;
	}
	return false;
}

const char *
be_src_same(dev_t dev, ino_t ino)
{
	for (int i = 0; i < MAXSRC; i++)
		if (used[i] && srcs[i].dev == dev && srcs[i].ino == ino)
			return srcs[i].path;
	return NULL;
}

const char *
be_src_changed(void)
{
	int i = changed;
	return i >= 0 ? srcs[i].path : NULL;
}

void
be_src_note_changed(int fd)
{
	for (int i = 0; i < MAXSRC; i++)
		if (used[i] && srcs[i].fd == fd)
			changed = i;
}

static BeMake maker;

void
be_src_maker(BeMake make)
{
	maker = make;
}

int
be_src_make(const void *p, size_t n, BePut put, void *put_ctx)
{
	return maker ? maker(p, n, put, put_ctx) : -1;
}

/* The last resort: through a buffer of ours. */
static int
copy_rw(int out, int in, uint64_t off, uint64_t n)
{
	enum { BUF = 1 << 20 };
	char *buf = malloc(BUF);
	int err = buf ? 0 : ENOMEM;
	while (!err && n) {
		size_t k = n < BUF ? (size_t)n : BUF;
		ssize_t r = pread(in, buf, k, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? errno : ESTALE;
			break;
		}
		for (ssize_t w = 0; w < r;) {
			ssize_t x = write(out, buf + w, (size_t)(r - w));
			if (x < 0 && errno == EINTR)
				continue;
			if (x <= 0) {
				err = x < 0 ? errno : EIO;
				break;
			}
			w += x;
		}
		off += (uint64_t)r;
		n -= (uint64_t)r;
	}
	free(buf);
	return err;
}

/* Errors that mean "this way does not work for these two files", after
 * which the next way is tried from where this one stopped. */
static bool
unsupported(int e)
{
	return e == EXDEV || e == EINVAL || e == ENOSYS || e == EOPNOTSUPP ||
	    e == EBADF || e == ETXTBSY;
}

int
be_copy(int out, int in, uint64_t off, uint64_t n)
{
	enum { STEP = 1 << 30 };    /* the kernel copies at most ~2 GB */
	int err = 0;
	bool cfr = true, sf = true;
	while (n) {
		size_t k = n < STEP ? (size_t)n : STEP;
		ssize_t r;
		loff_t o = (loff_t)off;
		if (cfr) {
			r = copy_file_range(in, &o, out, NULL, k, 0);
			if (r < 0 && unsupported(errno)) {
				cfr = false;
				continue;
			}
		} else if (sf) {
			off_t so = (off_t)off;
			r = sendfile(out, in, &so, k);
			if (r < 0 && unsupported(errno)) {
				sf = false;
				continue;
			}
		} else {
			err = copy_rw(out, in, off, n);
			break;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			break;
		}
		if (r == 0) {
			err = ESTALE;   /* the file is shorter than it was */
			break;
		}
		off += (uint64_t)r;
		n -= (uint64_t)r;
	}
	if (err == ESTALE)
		be_src_note_changed(in);
	return err;
}
