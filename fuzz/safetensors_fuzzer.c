/* safetensors_fuzzer.c - a .safetensors file: st_open (header JSON,
 * offsets, shapes), every tensor's bytes read through the mapping, st_find
 * on every name, and st_bind against a small fixed graph whose weight
 * names are in the dictionary. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frontend/fx.h"
#include "frontend/safetensors.h"
#include "fuzz.h"

static const char graph[] =
    "class M(torch.nn.Module):\n"
    "    def forward(self, p_w: \"f32[4, 5]\", p_b: \"f32[s0]\", "
    "b_n: \"i64[]\", c_t: \"f16[2, 0, 3]\", x: \"f32[2, 4]\"):\n"
    "        mm: \"f32[2, 5]\" = torch.ops.aten.mm.default(x, p_w)\n"
    "        return (mm,)\n"
    "Graph signature:\n"
    "    # inputs\n"
    "    p_w: PARAMETER target='w'\n"
    "    p_b: PARAMETER target='lin.b'\n"
    "    b_n: BUFFER target='n' persistent=True\n"
    "    c_t: CONSTANT_TENSOR target='t'\n"
    "    x: USER_INPUT\n"
    "    # outputs\n"
    "    mm: USER_OUTPUT\n";

/* The library maps a path: the input goes to an anonymous memory file. */
static int
memfile(const uint8_t *data, size_t size, char *path, size_t cap)
{
	int fd = memfd_create("st", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t k = write(fd, data + off, size - off);
		if (k <= 0)
			abort();
		off += (size_t)k;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzDiag d;
	Module *m = fz_module(&d, "graph.txt", (const uint8_t *)graph,
	    sizeof graph - 1);
	GraphId g;
	if (fx_parse(m, &g) != 0)
		abort();    /* the fixed graph is ours */
	char path[64];
	int fd = memfile(data, size, path, sizeof path);
	StFile *f = st_open(m, path);
	fz_check(m, &d, f ? 0 : -1, 0, "st_open");
	if (f) {
		volatile uint8_t sink = 0;
		for (uint32_t i = 0; i < st_count(f); i++) {
			const Tensor *t = st_get(f, i);
			if (ir_numel(t) * ir_dtype_size((DType)t->dtype) !=
			    t->nbytes)
				abort();
			for (uint64_t k = 0; k < t->nbytes; k++)
				sink ^= ((const uint8_t *)t->data)[k];
			if (st_find(f, ir_str(m, t->name)) == NULL)
				abort();
		}
		(void)sink;
		int errs = m->nerrors;
		fz_check(m, &d, st_bind(m, f, g), errs, "st_bind");
		st_close(f);
	}
	close(fd);
	fz_done(m, &d);
	return 0;
}
