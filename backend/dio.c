/* dio.c - an output's whole blocks written by O_DIRECT on a thread (see
 * dio.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dio.h"

enum { NBUF = 4 };   /* one filling, up to three being written */

typedef struct Job {
	size_t n;
	uint64_t off;
} Job;

/* Buffer i is written by job i: jobs are taken in the ring's order, so
 * the buffer after the one filling is free once fewer than NBUF - 1 jobs
 * are queued. */
struct BeDio {
	int fd;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	unsigned char *bufs[NBUF];
	Job jobs[NBUF];
	unsigned fill;    /* the buffer the owner fills */
	unsigned first;   /* the oldest queued job */
	unsigned queued;
	bool stop;
	bool direct;      /* O_DIRECT is set on fd */
	bool refused;     /* the file system said no: page cache from here */
	int err;          /* the first failure */
};

static _Atomic uint64_t direct_bytes;

uint64_t
be_dio_bytes(void)
{
	return atomic_load(&direct_bytes);
}

static bool
set_direct(BeDio *d, bool on)
{
	int fl = fcntl(d->fd, F_GETFL);
	if (fl < 0 || fcntl(d->fd, F_SETFL, on ? fl | O_DIRECT
	    : fl & ~O_DIRECT) < 0)
		return false;
	d->direct = on;
	return true;
}

/* Write p[0..n) at off.  The owner sets d->direct only with nothing
 * queued; here it is cleared under the lock, with refused, so the owner
 * never sees it off and not refused while a job runs. */
static int
put(BeDio *d, const unsigned char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t k = pwrite(d->fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EINVAL && d->direct) {
			/* refused (or a short write left the rest
			 * unaligned): the page cache takes it */
			pthread_mutex_lock(&d->mu);
			bool off_now = set_direct(d, false);
			int e = errno;
			d->refused = true;
			pthread_mutex_unlock(&d->mu);
			if (!off_now)
				return e;
			continue;
		}
		if (k <= 0)
			return k < 0 ? errno : EIO;
		if (d->direct)
			atomic_fetch_add(&direct_bytes, (uint64_t)k);
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static void *
writer(void *arg)
{
	BeDio *d = arg;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		while (!d->queued && !d->stop)
			pthread_cond_wait(&d->work, &d->mu);
		if (d->stop)
			break;
		unsigned i = d->first;
		Job j = d->jobs[i];
		int err = d->err;
		pthread_mutex_unlock(&d->mu);
		if (!err)
			err = put(d, d->bufs[i], j.n, j.off);
		pthread_mutex_lock(&d->mu);
		if (err && !d->err)
			d->err = err;
		d->first = (i + 1) % NBUF;
		d->queued--;
		pthread_cond_broadcast(&d->done);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

BeDio *
be_dio_new(int fd, unsigned char **buf)
{
	BeDio *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->fd = fd;
	for (int i = 0; i < NBUF; i++)
		if (posix_memalign((void **)&d->bufs[i], BE_DIO_ALIGN,
		    BE_DIO_BUF) != 0) {
			while (i--)
				free(d->bufs[i]);
			free(d);
			return NULL;
		}
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->work, NULL);
	pthread_cond_init(&d->done, NULL);
	/* the owner's thread takes the signals (out.c's handlers) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&d->thread, NULL, writer, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		d->stop = true;
		d->thread = pthread_self();
		be_dio_free(d);
		return NULL;
	}
	*buf = d->bufs[0];
	return d;
}

int
be_dio_submit(BeDio *d, unsigned char **buf, size_t n, size_t keep,
    uint64_t off)
{
	pthread_mutex_lock(&d->mu);
	/* nothing is queued while O_DIRECT is off (be_dio_wait) */
	if (!d->direct && !d->refused && !set_direct(d, true))
		d->refused = true;
	unsigned i = d->fill, next = (i + 1) % NBUF;
	d->jobs[i] = (Job){n, off};
	d->queued++;
	pthread_cond_signal(&d->work);
	while (d->queued >= NBUF && !d->err)
		pthread_cond_wait(&d->done, &d->mu);
	int err = d->err;
	pthread_mutex_unlock(&d->mu);
	if (!err) {
		/* reading what the thread writes from is safe */
		memcpy(d->bufs[next], d->bufs[i] + n, keep);
		d->fill = next;
		*buf = d->bufs[next];
	}
	return err;
}

int
be_dio_wait(BeDio *d)
{
	pthread_mutex_lock(&d->mu);
	while (d->queued && !d->err)
		pthread_cond_wait(&d->done, &d->mu);
	while (d->queued)   /* after a failure the rest go quickly */
		pthread_cond_wait(&d->done, &d->mu);
	if (d->direct && !set_direct(d, false) && !d->err)
		d->err = errno;
	int err = d->err;
	pthread_mutex_unlock(&d->mu);
	return err;
}

void
be_dio_free(BeDio *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->mu);
	d->stop = true;
	pthread_cond_signal(&d->work);
	pthread_mutex_unlock(&d->mu);
	if (!pthread_equal(d->thread, pthread_self()))
		pthread_join(d->thread, NULL);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->work);
	pthread_cond_destroy(&d->done);
	for (int i = 0; i < NBUF; i++)
		free(d->bufs[i]);
	free(d);
}
