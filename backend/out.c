/* out.c - output files that never clobber an input and never litter (see
 * out.h), for every writer. */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "copy.h"
#include "dio.h"
#include "out.h"

enum {
	BUFSZ = BE_DIO_BUF,
	KERNEL_MIN = 1 << 16,   /* smaller pieces are cheaper buffered */
	KICK = 16 << 20,        /* writeback is started every this much */
	MAXPEND = 8,
	MAXLINKS = 40,
};

struct BeOut {
	char *path;        /* as given, for messages */
	char *target;      /* the file written: links followed */
	const char *base;  /* its name in dirfd (inside target) */
	int dirfd;
	int fd;
	bool direct;       /* into an existing device or FIFO */
	bool unnamed;      /* O_TMPFILE */
	bool moved;        /* the writer moved past the file position */
	int pend;          /* slot of tmp in the removal table, or -1 */
	char tmp[32];      /* a temporary name in dirfd */
	bool dio_ok;       /* O_DIRECT may be tried (a regular file) */
	BeDio *dio;        /* whole blocks by O_DIRECT, from the first
	                    * buffer filled; NULL: buffered */
	unsigned char *buf; /* the dio's buffer, or our own */
	unsigned char *own;
	size_t len;
	uint64_t pos;      /* bytes appended */
	uint64_t at;       /* the file offset of buf[0] */
	uint64_t kicked;   /* bytes whose writeback was started */
	int stop_at;       /* ONNXC_TEST_STOP, read at open: STOP_* */
	int err;
	/* be_out_patch: bytes to put at patch_at once all is written */
	unsigned char patch[16];
	size_t npatch;
	uint64_t patch_at;
};

/* ------------------------------------------- temporary names and signals */

/* Temporary names to remove if a signal ends the process; written with
 * the signals blocked, read by the handler. */
static struct {
	int dirfd;
	char name[32];
} pend[MAXPEND];
static volatile sig_atomic_t pend_used[MAXPEND];
static const int fatal[] = {SIGTERM, SIGINT, SIGHUP};
static bool handlers_set;

void
be_out_abandon(void)
{
	for (int i = 0; i < MAXPEND; i++)
		if (pend_used[i])
			unlinkat(pend[i].dirfd, pend[i].name, 0);
}

static void
on_fatal(int sig)
{
	be_out_abandon();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
set_handlers(void)
{
	if (handlers_set)
		return;
	handlers_set = true;
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
		struct sigaction sa = {.sa_handler = on_fatal}, old;
		sigemptyset(&sa.sa_mask);
		/* a signal the caller ignores (nohup) stays ignored */
		if (sigaction(fatal[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(fatal[i], &sa, NULL);
	}
}

static void
block(sigset_t *old)
{
	sigset_t s;
	sigemptyset(&s);
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		sigaddset(&s, fatal[i]);
	sigprocmask(SIG_BLOCK, &s, old);
}

/* Note o->tmp for removal (signals blocked by the caller). */
static void
pend_add(BeOut *o)
{
	for (int i = 0; i < MAXPEND; i++)
		if (!pend_used[i]) {
			pend[i].dirfd = o->dirfd;
			memcpy(pend[i].name, o->tmp, sizeof o->tmp);
			pend_used[i] = 1;
			o->pend = i;
			return;
		}
	o->pend = -1;
}

static void
pend_drop(BeOut *o)
{
	if (o->pend >= 0)
		pend_used[o->pend] = 0;
	o->pend = -1;
}

/* A fresh short name: the target's own may be too long for a suffix. */
static void
tmp_name(BeOut *o, unsigned n)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(o->tmp, sizeof o->tmp, ".onnxc-%x-%lx", (unsigned)getpid(),
	    ((unsigned long)ts.tv_nsec ^ (unsigned long)n * 2654435761u) &
	    0xffffffu);
}

/* Create and open a temporary name in dirfd, noted for removal. */
static int
open_named(BeOut *o)
{
	sigset_t old;
	set_handlers();
	for (unsigned n = 0; n < 100; n++) {
		tmp_name(o, n);
		block(&old);
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0666);
		if (o->fd >= 0)
			pend_add(o);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (o->fd >= 0 || errno != EEXIST)
			return o->fd < 0 ? errno : 0;
	}
	return EEXIST;
}

/* Give an unnamed file the name name in its folder. */
static int
link_unnamed(BeOut *o, const char *name)
{
	char proc[64];
	if (linkat(o->fd, "", o->dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return EEXIST;
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not */
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
	return linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW) == 0
	    ? 0 : errno;
}

/* --------------------------------------------------------------- opening */

/* path with every symbolic link along the last component followed
 * (malloc'ed); the result may not exist yet. */
static int
follow(const char *path, char **out)
{
	char *p = strdup(path);
	for (int i = 0; p && i < MAXLINKS; i++) {
		struct stat st;
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode)) {
			*out = p;
			return 0;
		}
		char link[4096];
		ssize_t n = readlink(p, link, sizeof link - 1);
		if (n < 0) {
			free(p);
			return errno;
		}
		link[n] = 0;
		const char *slash = strrchr(p, '/');
		size_t dl = link[0] == '/' || !slash ? 0
		    : (size_t)(slash - p) + 1;
		char *q = malloc(dl + (size_t)n + 1);
		if (q) {
			memcpy(q, p, dl);
			memcpy(q + dl, link, (size_t)n + 1);
		}
		free(p);
		p = q;
	}
	bool loop = p != NULL;
	free(p);
	return loop ? ELOOP : ENOMEM;
}

typedef struct Same {
	struct stat st;
	const char *path;
} Same;

static int
same_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	Same *s = ctx;
	struct stat st;
	if (info->dlpi_name && *info->dlpi_name &&
	    stat(info->dlpi_name, &st) == 0 && st.st_dev == s->st.st_dev &&
	    st.st_ino == s->st.st_ino) {
		s->path = info->dlpi_name;
		return 1;
	}
	return 0;
}

/* The input that st is, or NULL. */
static const char *
input_named(const struct stat *st)
{
	Same s = {*st, be_src_same(st->st_dev, st->st_ino)};
	if (!s.path)
		dl_iterate_phdr(same_object, &s);
	return s.path;
}

static void
out_free(BeOut *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	be_dio_free(o->dio);
	free(o->path);
	free(o->target);
	free(o->own);
	free(o);
}

static int
open_target(Module *m, BeOut *o)
{
	struct stat st;
	int err = follow(o->path, &o->target);
	if (err)
		return err;
	/* a device, FIFO or socket is the user's: write into it, opened by
	 * the name given (the link of a pipe behind /dev/stdout reads
	 * "pipe:[N]", no path to follow); inputs are regular files */
	if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode)) {
		o->direct = true;
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		return o->fd < 0 ? errno : 0;
	}
	if (stat(o->target, &st) == 0) {
		const char *in = input_named(&st);
		if (in) {
			ir_error(m, (Loc){0, 0}, "cannot write %s: it is the "
			    "input %s; choose another output", o->path, in);
			return -1;
		}
		if (S_ISDIR(st.st_mode))
			return EISDIR;
	} else if (errno != ENOENT) {
		return errno;
	}
	char *slash = strrchr(o->target, '/');
	o->base = slash ? slash + 1 : o->target;
	if (!*o->base)
		return EISDIR;
	if (slash == o->target)
		o->dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	else if (slash) {
		*slash = 0;
		o->dirfd = open(o->target, O_PATH | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
	} else
		o->dirfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0)
		return errno;
	const char *no = getenv("ONNXC_NO_TMPFILE");   /* tests: fallback */
	if (!no || !*no) {
		o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC,
		    0666);
		if (o->fd >= 0) {
			o->unnamed = true;
			return 0;
		}
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return errno;
	}
	return open_named(o);
}

/* Tests stop the process at a known point of writing (test_stop). */
enum { STOP_NONE, STOP_FIRST, STOP_MID };

static int
test_stop_at(void)
{
	const char *e = getenv("ONNXC_TEST_STOP");
	return !e ? STOP_NONE : !strcmp(e, "write") ? STOP_FIRST
	    : !strcmp(e, "mid-write") ? STOP_MID : STOP_NONE;
}

BeOut *
be_out_open(Module *m, const char *path)
{
	BeOut *o = xrealloc(NULL, sizeof *o);
	memset(o, 0, sizeof *o);
	o->fd = o->dirfd = o->pend = -1;
	o->path = strdup(path);
	o->buf = o->own = malloc(BUFSZ);
	int err = o->path && o->buf ? open_target(m, o) : ENOMEM;
	const char *no = getenv("ONNXC_NO_DIRECT_IO");  /* benchmarks */
	o->dio_ok = !o->direct && (!no || !*no);
	o->stop_at = test_stop_at();
	if (err == 0)
		return o;
	if (err > 0)
		ir_error(m, (Loc){0, 0}, "cannot write %s: %s", path,
		    strerror(err));
	be_out_discard(o);
	return NULL;
}

void
be_out_discard(BeOut *o)
{
	if (!o)
		return;
	if (o->pend >= 0) {
		unlinkat(o->dirfd, o->tmp, 0);
		pend_drop(o);
	}
	out_free(o);
}

/* --------------------------------------------------------------- writing */

static int
write_all(BeOut *o, const void *p, size_t n)
{
	for (size_t w = 0; !o->err && w < n;) {
		ssize_t k = write(o->fd, (const char *)p + w, n - w);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			o->err = k < 0 ? errno : EIO;
		else
			w += (size_t)k;
	}
	return o->err;
}

/* Before the owner's own I/O: the writer done, O_DIRECT off, and the
 * file position where the next byte goes. */
static int
settle(BeOut *o)
{
	if (!o->err && o->dio && (o->err = be_dio_wait(o->dio)) == 0 &&
	    o->moved && lseek(o->fd, (off_t)o->at, SEEK_SET) < 0)
		o->err = errno;
	o->moved = false;
	return o->err;
}

/* Write the first n bytes of the buffer ourselves; the rest moves to its
 * front. */
static void
write_head(BeOut *o, size_t n)
{
	if (settle(o) == 0)
		write_all(o, o->buf, n);
	memmove(o->buf, o->buf + n, o->len - n);
	o->len -= n;
	o->at += n;
}

/* Make room in a full buffer: its whole blocks to the writer (after the
 * bytes up to a block boundary, where a kernel copy ended between two),
 * or all of it by write. */
static int
drain(BeOut *o)
{
	if (!o->dio && o->dio_ok) {
		/* an output of more than a buffer: start the writer */
		unsigned char *first;
		o->dio = be_dio_new(o->fd, &first);
		o->dio_ok = o->dio != NULL;
		if (o->dio) {
			memcpy(first, o->buf, o->len);
			o->buf = first;
			free(o->own);
			o->own = NULL;
		}
	}
	if (!o->dio) {
		write_head(o, o->len);
		return o->err;
	}
	size_t head = (size_t)(-o->at & (BE_DIO_ALIGN - 1));
	if (head)
		write_head(o, head);
	size_t n = o->len & ~(size_t)(BE_DIO_ALIGN - 1);
	if (!o->err && (o->err = be_dio_submit(o->dio, &o->buf, n,
	    o->len - n, o->at)) == 0) {
		o->len -= n;
		o->at += n;
		o->moved = true;
	}
	return o->err;
}

static int
flush(BeOut *o)
{
	write_head(o, o->len);
	return o->err;
}

/* Tests stop the process at a known point of writing with
 * ONNXC_TEST_STOP=write (before the first byte) or =mid-write (before the
 * write that reaches 1 MiB), never racing it with a sleep. */
static void
test_stop(BeOut *o, uint64_t pos, size_t n)
{
	if (o->stop_at == STOP_FIRST ||
	    (o->stop_at == STOP_MID && pos + n >= BUFSZ)) {
		o->stop_at = STOP_NONE;
		raise(SIGSTOP);
	}
}

/* Start writing back what reached the file since the last call, once
 * that is KICK bytes: the fsync that commits the output then waits only
 * for the tail, where it waited for the whole file after the CPU work
 * (a fifth of a 1M-node conversion's wall time). */
static void
kick(BeOut *o)
{
#ifdef SYNC_FILE_RANGE_WRITE
	uint64_t done = o->at;
	if (o->direct || o->err || done - o->kicked < KICK)
		return;
	(void)sync_file_range(o->fd, (off_t)o->kicked,
	    (off_t)(done - o->kicked), SYNC_FILE_RANGE_WRITE);
	o->kicked = done;
#else
	(void)o;
#endif
}

static int write_piece(BeOut *o, const void *p, size_t n);

static int
put_made(void *o, const void *p, size_t n)
{
	return write_piece(o, p, n);
}

static int
write_piece(BeOut *o, const void *p, size_t n)
{
	int sfd;
	uint64_t off;
	/* bytes made only now (a weight a pass changed) go as plain bytes,
	 * a piece at a time, from a buffer outside any source */
	int made = n >= KERNEL_MIN ? be_src_make(p, n, put_made, o) : -1;
	if (made >= 0) {
		if (!o->err && made)
			o->err = made;
		return o->err;
	}
	o->pos += n;
	if (n >= KERNEL_MIN && be_src_find(p, n, &sfd, &off)) {
		if (flush(o) == 0)
			o->err = be_copy(o->fd, sfd, off, n);
		o->at = o->pos;
		return o->err;
	}
	if (n >= BUFSZ && !o->dio_ok) {
		if (flush(o) == 0)
			write_all(o, p, n);
		o->at = o->pos;
		return o->err;
	}
	while (n && !o->err) {
		if (o->len == BUFSZ && drain(o))
			break;
		size_t k = BUFSZ - o->len < n ? BUFSZ - o->len : n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p = (const char *)p + k;
		n -= k;
	}
	return o->err;
}

int
be_out_write(BeOut *o, const void *p, size_t n)
{
	if (o->err || n == 0)
		return o->err;
	test_stop(o, o->pos, n);
	if (write_piece(o, p, n) == 0)
		kick(o);
	return o->err;
}

uint8_t *
be_out_room(BeOut *o, size_t *n)
{
	*n = 0;
	if (o->err || (o->len == BUFSZ && drain(o)))
		return NULL;
	*n = BUFSZ - o->len;
	return o->buf + o->len;
}

void
be_out_put(BeOut *o, size_t k)
{
	if (o->err || k == 0)
		return;
	test_stop(o, o->pos, k);
	o->len += k;
	o->pos += k;
	kick(o);
}

int
be_out_align(BeOut *o, uint64_t align)
{
	static const unsigned char zeros[4096];
	while (!o->err && o->pos % align) {
		uint64_t k = align - o->pos % align;
		be_out_write(o, zeros, k < sizeof zeros ? (size_t)k
		    : sizeof zeros);
	}
	return o->err;
}

uint64_t
be_out_pos(const BeOut *o)
{
	return o->pos;
}

bool
be_out_seekable(const BeOut *o)
{
	return !o->direct;
}

int
be_out_patch(BeOut *o, uint64_t off, const void *p, size_t n)
{
	if (o->err)
		return o->err;
	if (o->direct || n > sizeof o->patch || off + n > o->pos)
		BUG("output patch of %zu bytes at %llu: not in the file", n,
		    (unsigned long long)off);
	if (off >= o->at) {          /* still in the buffer */
		memcpy(o->buf + (off - o->at), p, n);
		return 0;
	}
	if (off + n > o->at)
		BUG("output patch across the buffer's start");
	memcpy(o->patch, p, n);
	o->npatch = n;
	o->patch_at = off;
	return 0;
}

int
be_out_rewind(BeOut *o)
{
	if (o->direct)
		BUG("rewinding an output that is not a file");
	if (settle(o) == 0 && (ftruncate(o->fd, 0) < 0 ||
	    lseek(o->fd, 0, SEEK_SET) < 0))
		o->err = errno;
	o->len = 0;
	o->pos = o->at = o->kicked = 0;
	o->npatch = 0;
	return o->err;
}

/* ------------------------------------------------------------- committing */

static int
finish(BeOut *o)
{
	if (flush(o) == 0 && o->npatch) {
		/* settled by flush: the writer is done with the file */
		ssize_t k = pwrite(o->fd, o->patch, o->npatch,
		    (off_t)o->patch_at);
		if (k != (ssize_t)o->npatch)
			o->err = k < 0 ? errno : EIO;
	}
	if (!o->err && !o->direct && fsync(o->fd) < 0)
		o->err = errno;
	return o->err;
}

/* Name an unnamed or temporary file: straight to its target when that
 * does not exist (no moment with another name), else through a temporary
 * name renamed over it. */
static int
name_it(BeOut *o)
{
	sigset_t old;
	int err = 0;
	if (o->unnamed) {
		err = link_unnamed(o, o->base);
		if (err != EEXIST)
			return err;
		set_handlers();
		for (unsigned n = 0; n < 100; n++) {
			tmp_name(o, n);
			block(&old);
			err = link_unnamed(o, o->tmp);
			if (!err)
				pend_add(o);
			sigprocmask(SIG_SETMASK, &old, NULL);
			if (err != EEXIST)
				break;
		}
		if (err)
			return err;
	}
	block(&old);
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0)
		err = errno;
	else
		pend_drop(o);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

const char *
be_out_target(const BeOut *o)
{
	return o->target;
}

void
be_out_report(Module *m, const BeOut *o, int err)
{
	const char *ch = be_src_changed();
	if (ch)
		ir_error(m, (Loc){0, 0}, "%s changed during conversion (it was "
		    "truncated or rewritten while onnxc read it); %s not "
		    "written", ch, o->path);
	else
		ir_error(m, (Loc){0, 0}, "cannot write %s: %s", o->path,
		    strerror(err));
}

int
be_out_commit(Module *m, BeOut **outs, int n)
{
	int err = 0, bad = 0, named = 0;
	for (int i = 0; !err && i < n; i++)
		if ((err = finish(outs[i])))
			bad = i;
	if (!err && be_src_changed())
		err = ESTALE;
	for (; !err && named < n; named++)
		if (!outs[named]->direct && (err = name_it(outs[named])))
			bad = named;
	if (err) {
		be_out_report(m, outs[bad], err);
		/* names already given go again: none or all */
		for (int i = 0; i < named; i++)
			if (!outs[i]->direct)
				unlinkat(outs[i]->dirfd, outs[i]->base, 0);
	}
	for (int i = 0; i < n; i++)
		be_out_discard(outs[i]);
	return err ? -1 : 0;
}

int
be_write_atomic(Module *m, const char *path, BeEmit emit, void *ctx)
{
	BeOut *o = be_out_open(m, path);
	return o ? be_write_into(m, o, emit, ctx) : -1;
}

int
be_write_into(Module *m, BeOut *o, BeEmit emit, void *ctx)
{
	int err = emit(ctx, o);
	if (err) {
		be_out_report(m, o, err);
		be_out_discard(o);
		return -1;
	}
	return be_out_commit(m, &o, 1);
}
