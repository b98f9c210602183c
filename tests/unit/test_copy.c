/* test_copy.c - the kernel copy (backend/copy.c): into a file and into a
 * pipe (where copy_file_range gives way to sendfile), a source shorter
 * than asked (noted as changed), finding bytes in registered mappings,
 * a read of a mapped page the file lost (zeros and a note, no SIGBUS),
 * an output of tens of MiB written in every way be_out_write has
 * (buffered, whole blocks by O_DIRECT on the writer thread, kernel copies
 * at aligned and unaligned offsets) while its writeback is started, with
 * and without O_DIRECT, a failure on the writer thread reported, and
 * bytes patched in at the end and an output rewound (be_out_patch,
 * be_out_rewind: the streaming writer's length). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/copy.h"
#include "backend/dio.h"
#include "backend/out.h"
#include "ir/ir.h"

enum { N = 300000 };

/* A temporary file holding N bytes of a pattern; its path in path. */
static int
source(char *path, size_t cap)
{
	snprintf(path, cap, "/tmp/test_copy_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unsigned char *b = malloc(N);
	for (size_t i = 0; i < N; i++)
		b[i] = (unsigned char)(i * 7 + i / 251);
	assert_int_equal(write(fd, b, N), N);
	free(b);
	return fd;
}

static unsigned char
pat(size_t i)
{
	return (unsigned char)(i * 7 + i / 251);
}

static void
test_into_file(void **state)
{
	(void)state;
	char sp[64], dp[64];
	int in = source(sp, sizeof sp);
	snprintf(dp, sizeof dp, "/tmp/test_copy_XXXXXX");
	int out = mkstemp(dp);
	assert_int_equal(write(out, "head", 4), 4);
	assert_int_equal(be_copy(out, in, 1000, 200000), 0);
	/* appended at the position, which moved past the copy */
	assert_int_equal(lseek(out, 0, SEEK_CUR), 4 + 200000);
	unsigned char *b = malloc(200004);
	assert_int_equal(pread(out, b, 200004, 0), 200004);
	assert_memory_equal(b, "head", 4);
	for (size_t i = 0; i < 200000; i++)
		if (b[4 + i] != pat(1000 + i))
			fail_msg("byte %zu differs", i);
	free(b);
	close(in);
	close(out);
	unlink(sp);
	unlink(dp);
}

static void
test_into_pipe(void **state)
{
	(void)state;
	char sp[64];
	int in = source(sp, sizeof sp), p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(be_copy(p[1], in, 5, 4000), 0);
	unsigned char b[4000];
	assert_int_equal(read(p[0], b, sizeof b), 4000);
	for (size_t i = 0; i < sizeof b; i++)
		assert_int_equal(b[i], pat(5 + i));
	close(p[0]);
	close(p[1]);
	close(in);
	unlink(sp);
}

static void
test_short_source(void **state)
{
	(void)state;
	char sp[64], dp[64];
	int in = source(sp, sizeof sp);
	snprintf(dp, sizeof dp, "/tmp/test_copy_XXXXXX");
	int out = mkstemp(dp);
	const void *map = mmap(NULL, N, PROT_READ, MAP_PRIVATE, in, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(be_src_add(map, N, in, "short.bin"), 0);
	assert_null(be_src_changed());
	/* 1000 bytes past the end: the file is not what it was */
	assert_int_equal(be_copy(out, in, N - 1000, 2000), ESTALE);
	assert_string_equal(be_src_changed(), "short.bin");

	/* the mapping's bytes are found at their file offsets */
	int fd;
	uint64_t off;
	const unsigned char *m = map;
	assert_true(be_src_find(m + 123, 1000, &fd, &off));
	assert_int_equal(fd, in);
	assert_int_equal(off, 123);
	assert_true(be_src_find(m + N - 10, 10, &fd, &off));
	assert_false(be_src_find(m + N - 10, 11, &fd, &off));
	unsigned char other[16];
	assert_false(be_src_find(other, sizeof other, &fd, &off));
	be_src_remove(map);
	assert_false(be_src_find(m + 123, 1000, &fd, &off));
	munmap((void *)map, N);
	close(in);
	close(out);
	unlink(sp);
	unlink(dp);
}

static void
test_truncated_mapping(void **state)
{
	(void)state;
	char sp[64];
	int in = source(sp, sizeof sp);
	const unsigned char *map = mmap(NULL, N, PROT_READ, MAP_PRIVATE, in,
	    0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(be_src_add(map, N, in, "cut.bin"), 0);
	assert_null(be_src_changed());
	assert_int_equal(map[200000], pat(200000));
	assert_int_equal(ftruncate(in, 4096), 0);
	/* the page is gone from the file: zeros, and a note instead of a
	 * SIGBUS */
	volatile const unsigned char *v = map;
	assert_int_equal(v[200000], 0);
	assert_int_equal(v[4095], pat(4095));
	assert_string_equal(be_src_changed(), "cut.bin");
	be_src_remove(map);
	munmap((void *)map, N);
	close(in);
	unlink(sp);
}

/* Byte i of the big output: a pattern, except in the copied pieces (the
 * first starts on a block, the second 100 bytes after one; both end
 * between blocks). */
enum { BIG = 40 << 20, COPIED_AT = 17 << 20, COPIED2_AT = (29 << 20) + 100 };

static unsigned char
big_byte(size_t i)
{
	if (i >= COPIED_AT && i < COPIED_AT + N)
		return pat(i - COPIED_AT);
	if (i >= COPIED2_AT && i < COPIED2_AT + N)
		return pat(i - COPIED2_AT);
	return (unsigned char)(i * 13 + i / 4093);
}

typedef struct BigOut {
	const unsigned char *map; /* the registered source */
} BigOut;

static int
emit_big(void *ctx, BeOut *o)
{
	BigOut *b = ctx;
	unsigned char *chunk = malloc(3 << 20);
	assert_non_null(chunk);
	size_t pos = 0;
	for (int round = 0; pos < BIG; round++) {
		size_t n = round % 3 == 0 ? 100 : round % 3 == 1 ? 3 << 20
		    : 70000;
		if (pos < COPIED_AT && pos + n > COPIED_AT)
			n = COPIED_AT - pos;
		if (pos < COPIED2_AT && pos + n > COPIED2_AT)
			n = COPIED2_AT - pos;
		if (pos == COPIED_AT || pos == COPIED2_AT) {
			/* by the kernel, from the source at offset 0 */
			if (be_out_write(o, b->map, N))
				break;
			pos += N;
			continue;
		}
		if (n > BIG - pos)
			n = BIG - pos;
		for (size_t i = 0; i < n; i++)
			chunk[i] = big_byte(pos + i);
		if (be_out_write(o, chunk, n))
			break;
		pos += n;
	}
	free(chunk);
	return be_out_pos(o) == BIG ? 0 : EIO;
}

/* The file at path, which must hold exactly n bytes (malloc'ed). */
static unsigned char *
read_exact(const char *path, size_t n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	unsigned char *got = malloc(n + 1);
	assert_non_null(got);
	assert_int_equal(fread(got, 1, n + 1, f), n);
	fclose(f);
	return got;
}

/* Whether the file system of /tmp takes O_DIRECT writes. */
static bool
tmp_takes_direct(void)
{
	char p[64];
	snprintf(p, sizeof p, "/tmp/test_copy_dio_%d", (int)getpid());
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
	void *b = NULL;
	bool ok = fd >= 0 && posix_memalign(&b, 4096, 4096) == 0 &&
	    (memset(b, 1, 4096), write(fd, b, 4096) == 4096);
	free(b);
	if (fd >= 0)
		close(fd);
	unlink(p);
	return ok;
}

static void
big_output(bool direct)
{
	char sp[64], dp[64];
	int in = source(sp, sizeof sp);
	const unsigned char *map = mmap(NULL, N, PROT_READ, MAP_SHARED, in, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(be_src_add(map, N, in, "big.bin"), 0);
	snprintf(dp, sizeof dp, "/tmp/test_copy_out_%d.bin", (int)getpid());
	Module *m = ir_module_new();
	BigOut b = {map};
	setenv("ONNXC_NO_DIRECT_IO", direct ? "" : "1", 1);
	uint64_t before = be_dio_bytes();
	assert_int_equal(be_write_atomic(m, dp, emit_big, &b), 0);
	uint64_t by_dio = be_dio_bytes() - before;
	unsetenv("ONNXC_NO_DIRECT_IO");
	if (!direct || !tmp_takes_direct())
		assert_int_equal(by_dio, 0);
	else if (by_dio < BIG - 4 * N - (4 << 20))
		/* all but the copies, what a kernel copy left between two
		 * blocks and the last buffer */
		fail_msg("only %llu bytes by O_DIRECT", (unsigned long long)
		    by_dio);
	unsigned char *got = read_exact(dp, BIG);
	for (size_t i = 0; i < BIG; i++)
		if (got[i] != big_byte(i))
			fail_msg("byte %zu differs", i);
	free(got);
	ir_free(m);
	be_src_remove(map);
	munmap((void *)map, N);
	close(in);
	unlink(sp);
	unlink(dp);
}

static void
test_big_output(void **state)
{
	(void)state;
	big_output(true);
	big_output(false);
}

/* 100000 bytes of ones, *(int *)ctx times (100 without ctx) */
static int
emit_ones(void *ctx, BeOut *o)
{
	static unsigned char chunk[100000];
	memset(chunk, 1, sizeof chunk);
	int err = 0, times = ctx ? *(int *)ctx : 100;
	for (int i = 0; !err && i < times; i++)
		err = be_out_write(o, chunk, sizeof chunk);
	return err;
}

/* An output that fits one buffer goes by plain writes: the writer thread
 * starts only with the second buffer. */
static void
test_small_output(void **state)
{
	(void)state;
	char dp[64];
	snprintf(dp, sizeof dp, "/tmp/test_copy_small_%d.bin", (int)getpid());
	Module *m = ir_module_new();
	int times = 10;
	uint64_t before = be_dio_bytes();
	assert_int_equal(be_write_atomic(m, dp, emit_ones, &times), 0);
	assert_int_equal(be_dio_bytes(), before);
	unsigned char *got = read_exact(dp, 1000000);
	for (size_t i = 0; i < 1000000; i++)
		assert_int_equal(got[i], 1);
	free(got);
	unlink(dp);
	ir_free(m);
}

/* A write that fails on the writer thread (the file size limit stands in
 * for a full disk) fails the output, says why, and leaves no file. */
static void
test_writer_error(void **state)
{
	(void)state;
	char dir[64], path[96];
	snprintf(dir, sizeof dir, "/tmp/test_copy_err_XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.bin", dir);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit rl = {3 << 20, 3 << 20};
		setrlimit(RLIMIT_FSIZE, &rl);
		Module *m = ir_module_new();
		char *text = NULL;
		size_t len = 0;
		m->diagout = open_memstream(&text, &len);
		int r = be_write_atomic(m, path, emit_ones, NULL);
		fclose(m->diagout);
		_exit(r == -1 && text && strstr(text, "File too large") ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);   /* nothing else left in it */
}

/* 5 MB of ones (kept: the writer thread's blocks), rewound when ctx says
 * so and written again as twos, then patched at 10 (long gone from the
 * buffer) and 20 bytes before the end (still in it). */
static int
emit_patched(void *ctx, BeOut *o)
{
	bool rewind = *(bool *)ctx;
	int err = emit_ones(NULL, o);
	if (!err && rewind) {
		static unsigned char twos[100000];
		memset(twos, 2, sizeof twos);
		assert_true(be_out_seekable(o));
		err = be_out_rewind(o);
		assert_int_equal(be_out_pos(o), 0);
		for (int i = 0; !err && i < 30; i++)
			err = be_out_write(o, twos, sizeof twos);
	}
	if (!err)
		err = be_out_patch(o, 10, "ABCDE", 5);
	if (!err)
		err = be_out_patch(o, be_out_pos(o) - 20, "XY", 2);
	return err;
}

static void
test_patch_rewind(void **state)
{
	(void)state;
	char dp[64];
	snprintf(dp, sizeof dp, "/tmp/test_copy_patch_%d.bin", (int)getpid());
	for (int k = 0; k < 4; k++) {
		bool direct = k & 1, rewind = k & 2;
		setenv("ONNXC_NO_DIRECT_IO", direct ? "" : "1", 1);
		Module *m = ir_module_new();
		assert_int_equal(be_write_atomic(m, dp, emit_patched, &rewind),
		    0);
		unsetenv("ONNXC_NO_DIRECT_IO");
		size_t n = rewind ? 3000000 : 10000000;
		unsigned char *got = read_exact(dp, n);
		assert_memory_equal(got + 10, "ABCDE", 5);
		assert_memory_equal(got + n - 20, "XY", 2);
		for (size_t i = 0; i < n; i++)
			if ((i < 10 || i >= 15) && (i < n - 20 || i >= n - 18)
			    && got[i] != (rewind ? 2 : 1))
				fail_msg("byte %zu is %d", i, got[i]);
		free(got);
		ir_free(m);
	}
	unlink(dp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_into_file),
		cmocka_unit_test(test_into_pipe),
		cmocka_unit_test(test_short_source),
		cmocka_unit_test(test_truncated_mapping),
		cmocka_unit_test(test_big_output),
		cmocka_unit_test(test_writer_error),
		cmocka_unit_test(test_small_output),
		cmocka_unit_test(test_patch_rewind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
