/* pickle.c - the pickle virtual machine, cut down to what torch.save
 * writes for state dicts (protocol 2-5): containers, numbers, strings,
 * the memo, persistent ids for storages, and REDUCE of four known
 * globals.  Values live in the caller's arena; the memo and the stack are
 * bounded, and so is what all values take together (a multiple of the
 * pickle's size, which a state dict never comes near), so a hostile
 * pickle costs at most that.  MARK, None and the booleans are shared
 * objects: opcodes that push them allocate nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"

enum { MAXMEMO = 1 << 20, MAXSTACK = 1 << 20, MAXRANK = 64 };

typedef enum OKind {
	O_MARK, O_NONE, O_BOOL, O_INT, O_FLOAT, O_STR, O_TUPLE, O_LIST,
	O_DICT, O_GLOBAL, O_STORAGE, O_TENSOR
} OKind;

typedef enum GKind {
	G_ODICT, G_REBUILD, G_PARAM, G_PARAM_STATE, G_STORAGE
} GKind;

typedef struct Obj Obj;
struct Obj {
	uint8_t kind;
	uint8_t g;          /* O_GLOBAL: GKind; O_STORAGE/O_GLOBAL: dtype */
	uint8_t dtype;
	int64_t i;
	const char *s;      /* O_STR, O_STORAGE key */
	Obj **items;        /* O_TUPLE, O_LIST, O_DICT (key, value pairs) */
	uint32_t n, cap;
	PkTensor *t;        /* O_TENSOR */
};

typedef struct VM {
	Arena *a;
	const unsigned char *p, *end, *start, *op;
	Obj **stk;
	uint32_t nstk, cstk;
	Obj **memo;
	uint32_t nmemo, cmemo;   /* nmemo: MEMOIZE's next index */
	const char *err;
	uint64_t used, budget;   /* bytes of values allocated, allowed */
	Obj mark, none, yes, no; /* shared, never modified */
} VM;

static const struct {
	const char *name;
	uint8_t dtype;
} storages[] = {
	{"FloatStorage", DT_F32}, {"DoubleStorage", DT_F64},
	{"HalfStorage", DT_F16}, {"BFloat16Storage", DT_BF16},
	{"LongStorage", DT_I64}, {"IntStorage", DT_I32},
	{"ShortStorage", DT_I16}, {"CharStorage", DT_I8},
	{"ByteStorage", DT_U8}, {"BoolStorage", DT_BOOL},
	{"ComplexFloatStorage", DT_C64}, {"ComplexDoubleStorage", DT_C128},
};

static int
fail(VM *vm, const char *fmt, const char *arg)
{
	if (!vm->err) {
		size_t n = strlen(fmt) + (arg ? strlen(arg) : 0) + 1;
		char *buf = arena_alloc(vm->a, n);
		snprintf(buf, n, fmt, arg ? arg : "");
		vm->err = buf;
	}
	return -1;
}

static Obj *
mk(VM *vm, OKind k)
{
	Obj *o = arena_alloc(vm->a, sizeof *o);
	o->kind = (uint8_t)k;
	vm->used += sizeof *o;
	return o;
}

static int
push(VM *vm, Obj *o)
{
	if (vm->nstk >= MAXSTACK)
		return fail(vm, "pickle stack too deep", NULL);
	vgrow((void **)&vm->stk, &vm->cstk, vm->nstk + 1, sizeof *vm->stk);
	vm->stk[vm->nstk++] = o;
	return 0;
}

static Obj *
pop(VM *vm)
{
	if (!vm->nstk || vm->stk[vm->nstk - 1]->kind == O_MARK) {
		fail(vm, "pickle stack underflow", NULL);
		return NULL;
	}
	return vm->stk[--vm->nstk];
}

/* the items above the topmost mark, which is removed */
static int
popmark(VM *vm, uint32_t *from)
{
	uint32_t i = vm->nstk;
	while (i-- > 0)
		if (vm->stk[i]->kind == O_MARK) {
			*from = i + 1;
			return 0;
		}
	return fail(vm, "pickle MARK missing", NULL);
}

static void
append(VM *vm, Obj *c, Obj *x)
{
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 8;
		Obj **it = arena_alloc(vm->a, cap * sizeof *it);
		vm->used += cap * sizeof *it;
		if (c->n)
			memcpy(it, c->items, c->n * sizeof *it);
		c->items = it;
		c->cap = cap;
	}
	c->items[c->n++] = x;
}

static const unsigned char *
take(VM *vm, size_t n)
{
	if ((size_t)(vm->end - vm->p) < n) {
		fail(vm, "pickle truncated", NULL);
		return NULL;
	}
	const unsigned char *q = vm->p;
	vm->p += n;
	return q;
}

static uint64_t
le(const unsigned char *q, int n)
{
	uint64_t v = 0;
	for (int i = n; i-- > 0;)
		v = v << 8 | q[i];
	return v;
}

static int
str(VM *vm, size_t n)
{
	const unsigned char *q = take(vm, n);
	if (!q)
		return -1;
	Obj *o = mk(vm, O_STR);
	o->s = arena_strndup(vm->a, (const char *)q, n);
	o->i = (int64_t)n;
	return push(vm, o);
}

/* "module\nname\n" or STACK_GLOBAL's two strings: only names torch.save
 * uses for tensors are known. */
static int
global(VM *vm, const char *mod, const char *name)
{
	Obj *o = mk(vm, O_GLOBAL);
	char full[160];
	snprintf(full, sizeof full, "%.70s.%.70s", mod, name);
	if (!strcmp(mod, "collections") && !strcmp(name, "OrderedDict")) {
		o->g = G_ODICT;
	} else if (!strcmp(mod, "torch._utils") &&
	    !strcmp(name, "_rebuild_tensor_v2")) {
		o->g = G_REBUILD;
	} else if (!strcmp(mod, "torch._utils") &&
	    !strcmp(name, "_rebuild_parameter")) {
		o->g = G_PARAM;
	} else if (!strcmp(mod, "torch._utils") &&
	    !strcmp(name, "_rebuild_parameter_with_state")) {
		o->g = G_PARAM_STATE;
	} else {
		o->g = 255;
		for (size_t i = 0; i < sizeof storages / sizeof storages[0]; i++)
			if (!strcmp(mod, "torch") &&
			    !strcmp(name, storages[i].name)) {
				o->g = G_STORAGE;
				o->dtype = storages[i].dtype;
			}
		if (o->g == 255)
			return fail(vm, "forbidden pickle global '%s' (only "
			    "the tensors torch.save writes are read)", full);
	}
	return push(vm, o);
}

static int
textglobal(VM *vm)
{
	const char *parts[2];
	for (int k = 0; k < 2; k++) {
		const unsigned char *nl = memchr(vm->p, '\n',
		    (size_t)(vm->end - vm->p));
		if (!nl || nl - vm->p > 200)
			return fail(vm, "bad GLOBAL", NULL);
		parts[k] = arena_strndup(vm->a, (const char *)vm->p,
		    (size_t)(nl - vm->p));
		vm->p = nl + 1;
	}
	return global(vm, parts[0], parts[1]);
}

static bool
isint(const Obj *o)
{
	return o && (o->kind == O_INT || o->kind == O_BOOL);
}

/* a tuple of ints (sizes, strides) */
static int
ints(VM *vm, const Obj *t, int64_t **out, int32_t *n)
{
	if (!t || (t->kind != O_TUPLE && t->kind != O_LIST) || t->n > MAXRANK)
		return fail(vm, "tensor sizes and strides must be tuples of "
		    "ints (at most 64)", NULL);
	*out = arena_alloc(vm->a, (t->n ? t->n : 1) * sizeof **out);
	for (uint32_t i = 0; i < t->n; i++) {
		if (!isint(t->items[i]))
			return fail(vm, "tensor sizes and strides must be "
			    "ints", NULL);
		(*out)[i] = t->items[i]->i;
	}
	*n = (int32_t)t->n;
	return 0;
}

/* REDUCE: a known global applied to an argument tuple. */
static int
reduce(VM *vm)
{
	Obj *args = pop(vm), *fn = pop(vm);
	if (!args || !fn)
		return -1;
	if (fn->kind != O_GLOBAL || args->kind != O_TUPLE)
		return fail(vm, "REDUCE of something other than a known "
		    "global", NULL);
	Obj **x = args->items;
	switch (fn->g) {
	case G_ODICT:
		if (args->n)
			return fail(vm, "OrderedDict with arguments", NULL);
		return push(vm, mk(vm, O_DICT));
	case G_PARAM:
	case G_PARAM_STATE:
		if (args->n < 1 || x[0]->kind != O_TENSOR)
			return fail(vm, "_rebuild_parameter without a tensor",
			    NULL);
		return push(vm, x[0]);
	case G_REBUILD: {
		if (args->n < 4 || x[0]->kind != O_STORAGE || !isint(x[1]))
			return fail(vm, "_rebuild_tensor_v2 needs (storage, "
			    "offset, size, stride, ...)", NULL);
		PkTensor *t = arena_alloc(vm->a, sizeof *t);
		int32_t rs, rt;
		int64_t *sz, *st;
		if (ints(vm, x[2], &sz, &rs) < 0 || ints(vm, x[3], &st, &rt) < 0)
			return -1;
		if (rs != rt)
			return fail(vm, "sizes and strides of different "
			    "lengths", NULL);
		t->storage = x[0]->s;
		t->dtype = x[0]->dtype;
		t->rank = rs;
		t->sizes = sz;
		t->strides = st;
		t->offset = x[1]->i;
		Obj *o = mk(vm, O_TENSOR);
		o->t = t;
		return push(vm, o);
	}
	default:
		return fail(vm, "a storage class called directly", NULL);
	}
}

/* ('storage', torch.FloatStorage, key, location, numel) */
static int
persid(VM *vm)
{
	Obj *t = pop(vm);
	if (!t)
		return -1;
	if (t->kind != O_TUPLE || t->n < 3 || t->items[0]->kind != O_STR ||
	    strcmp(t->items[0]->s, "storage") ||
	    t->items[1]->kind != O_GLOBAL || t->items[1]->g != G_STORAGE ||
	    t->items[2]->kind != O_STR || strchr(t->items[2]->s, '/'))
		return fail(vm, "persistent id is not ('storage', "
		    "torch.XStorage, key, ...)", NULL);
	Obj *o = mk(vm, O_STORAGE);
	o->s = t->items[2]->s;
	o->dtype = t->items[1]->dtype;
	return push(vm, o);
}

static int
memo(VM *vm, uint64_t i, bool put)
{
	if (i >= MAXMEMO)
		return fail(vm, "pickle memo index too large", NULL);
	if (put) {
		if (!vm->nstk)
			return fail(vm, "memo put on an empty stack", NULL);
		if (i >= vm->cmemo) {
			uint32_t old = vm->cmemo;
			vgrow((void **)&vm->memo, &vm->cmemo, (uint32_t)i + 1,
			    sizeof *vm->memo);
			memset(vm->memo + old, 0, (vm->cmemo - old) *
			    sizeof *vm->memo);
		}
		vm->memo[i] = vm->stk[vm->nstk - 1];
		if (i >= vm->nmemo)
			vm->nmemo = (uint32_t)i + 1;
		return 0;
	}
	if (i >= vm->cmemo || !vm->memo[i])
		return fail(vm, "memo get of an unset index", NULL);
	return push(vm, vm->memo[i]);
}

/* TUPLE/LIST/DICT from the items above the mark, or SETITEMS/APPENDS
 * into the container below it. */
static int
collect(VM *vm, OKind k, bool into)
{
	uint32_t from;
	if (popmark(vm, &from) < 0)
		return -1;
	uint32_t n = vm->nstk - from;
	Obj *c;
	if (into) {
		if (from < 2 || (vm->stk[from - 2]->kind != k))
			return fail(vm, "SETITEMS/APPENDS on the wrong type",
			    NULL);
		c = vm->stk[from - 2];
	} else {
		c = mk(vm, k);
	}
	if (k == O_DICT && n % 2)
		return fail(vm, "odd number of dict items", NULL);
	for (uint32_t i = from; i < vm->nstk; i++)
		append(vm, c, vm->stk[i]);
	vm->nstk = from - 1;
	return into ? 0 : push(vm, c);
}

static int
tuple(VM *vm, uint32_t n)
{
	if (vm->nstk < n)
		return fail(vm, "pickle stack underflow", NULL);
	Obj *t = mk(vm, O_TUPLE);
	for (uint32_t i = vm->nstk - n; i < vm->nstk; i++) {
		if (vm->stk[i]->kind == O_MARK)
			return fail(vm, "MARK inside a tuple", NULL);
		append(vm, t, vm->stk[i]);
	}
	vm->nstk -= n;
	return push(vm, t);
}

static int
step(VM *vm, unsigned char op)
{
	const unsigned char *q;
	Obj *o, *x, *y, *c;
	switch (op) {
	case 0x80: return take(vm, 1) ? 0 : -1;            /* PROTO */
	case 0x95: return take(vm, 8) ? 0 : -1;            /* FRAME */
	case '(': return push(vm, &vm->mark);
	case 'N': return push(vm, &vm->none);
	case 0x88: return push(vm, &vm->yes);                /* NEWTRUE */
	case 0x89: return push(vm, &vm->no);                 /* NEWFALSE */
	case 'J': case 'K': case 'M': {                      /* BININT* */
		int n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
		if (!(q = take(vm, (size_t)n)))
			return -1;
		o = mk(vm, O_INT);
		o->i = op == 'J' ? (int32_t)le(q, 4) : (int64_t)le(q, n);
		return push(vm, o);
	}
	case 0x8a: {                                         /* LONG1 */
		if (!(q = take(vm, 1)) || *q > 8 || !(q = take(vm, *q)))
			return q ? fail(vm, "integer too large", NULL) : -1;
		int n = (int)(vm->p - q);
		o = mk(vm, O_INT);
		uint64_t v = n ? le(q, n) : 0;
		if (n && n < 8 && (q[n - 1] & 0x80))
			v |= ~(uint64_t)0 << (8 * n);
		o->i = (int64_t)v;
		return push(vm, o);
	}
	case 'G':                                            /* BINFLOAT */
		if (!(q = take(vm, 8)))
			return -1;
		o = mk(vm, O_FLOAT);  /* big-endian; tensors never need it */
		return push(vm, o);
	case 'X': case 'T':                                  /* BINUNICODE */
		return (q = take(vm, 4)) ? str(vm, le(q, 4)) : -1;
	case 0x8c: case 'U':                                 /* SHORT_ */
		return (q = take(vm, 1)) ? str(vm, *q) : -1;
	case 0x8d:                                           /* BINUNICODE8 */
		return (q = take(vm, 8)) ? str(vm, le(q, 8)) : -1;
	case ')': return push(vm, mk(vm, O_TUPLE));
	case 't': return collect(vm, O_TUPLE, false);
	case 0x85: case 0x86: case 0x87: return tuple(vm, op - 0x84u);
	case ']': return push(vm, mk(vm, O_LIST));
	case 'l': return collect(vm, O_LIST, false);
	case 'e': return collect(vm, O_LIST, true);
	case 'a':                                            /* APPEND */
		if (!(x = pop(vm)) || !vm->nstk ||
		    (c = vm->stk[vm->nstk - 1])->kind != O_LIST)
			return fail(vm, "APPEND to a non-list", NULL);
		append(vm, c, x);
		return 0;
	case '}': return push(vm, mk(vm, O_DICT));
	case 'd': return collect(vm, O_DICT, false);
	case 'u': return collect(vm, O_DICT, true);
	case 's':                                            /* SETITEM */
		if (!(y = pop(vm)) || !(x = pop(vm)) || !vm->nstk ||
		    (c = vm->stk[vm->nstk - 1])->kind != O_DICT)
			return fail(vm, "SETITEM on a non-dict", NULL);
		append(vm, c, x);
		append(vm, c, y);
		return 0;
	case 'c': return textglobal(vm);
	case 0x93:                                           /* STACK_GLOBAL */
		if (!(y = pop(vm)) || !(x = pop(vm)) || x->kind != O_STR ||
		    y->kind != O_STR)
			return fail(vm, "STACK_GLOBAL needs two strings", NULL);
		return global(vm, x->s, y->s);
	case 'q': return (q = take(vm, 1)) ? memo(vm, *q, true) : -1;
	case 'r': return (q = take(vm, 4)) ? memo(vm, le(q, 4), true) : -1;
	case 0x94: return memo(vm, vm->nmemo, true);
	case 'h': return (q = take(vm, 1)) ? memo(vm, *q, false) : -1;
	case 'j': return (q = take(vm, 4)) ? memo(vm, le(q, 4), false) : -1;
	case 'Q': return persid(vm);
	case 'R': return reduce(vm);
	case 'b':                                            /* BUILD */
		/* state of an OrderedDict (_metadata) or a Parameter: kept
		 * out of the tensors, so dropped */
		if (!(x = pop(vm)) || !vm->nstk ||
		    (vm->stk[vm->nstk - 1]->kind != O_DICT &&
		    vm->stk[vm->nstk - 1]->kind != O_TENSOR))
			return fail(vm, "BUILD on something other than a dict "
			    "or a tensor", NULL);
		return 0;
	case '0': return pop(vm) ? 0 : -1;                   /* POP */
	default: {
		char hex[8];
		snprintf(hex, sizeof hex, "0x%02x", op);
		return fail(vm, "unsupported pickle opcode %s", hex);
	}
	}
}

/* The result: a dict of str -> tensor, or one tensor. */
static int
result(VM *vm, Obj *r, PkTensor **out, uint32_t *count)
{
	if (r->kind == O_TENSOR) {
		*out = r->t;
		*count = 1;
		return 0;
	}
	if (r->kind != O_DICT)
		return fail(vm, "the pickle holds neither a dict of tensors "
		    "nor a tensor", NULL);
	*count = r->n / 2;
	*out = arena_alloc(vm->a, (*count ? *count : 1) * sizeof **out);
	for (uint32_t i = 0; i < *count; i++) {
		Obj *k = r->items[2 * i], *v = r->items[2 * i + 1];
		if (k->kind != O_STR || v->kind != O_TENSOR)
			return fail(vm, "a dict entry that is not str -> "
			    "tensor", NULL);
		(*out)[i] = *v->t;
		(*out)[i].key = k->s;
	}
	return 0;
}

int
pk_read(Arena *a, const unsigned char *p, size_t n, PkTensor **out,
    uint32_t *count, const char **err, size_t *pos)
{
	VM vm = {.a = a, .p = p, .end = p + n, .start = p,
		.budget = 16 * (uint64_t)n + (1 << 20),
		.mark = {.kind = O_MARK}, .none = {.kind = O_NONE},
		.yes = {.kind = O_BOOL, .i = 1}, .no = {.kind = O_BOOL}};
	int rc = -1;
	while (vm.p < vm.end) {
		if (vm.used > vm.budget) {
			fail(&vm, "the pickle makes more objects than one of "
			    "its size can hold (not a torch.save state dict)",
			    NULL);
			break;
		}
		vm.op = vm.p;
		unsigned char op = *vm.p++;
		if (op == '.') {                             /* STOP */
			Obj *r = pop(&vm);
			if (r && vm.nstk == 0)
				rc = result(&vm, r, out, count);
			else if (r)
				fail(&vm, "values left on the stack at STOP",
				    NULL);
			break;
		}
		if (step(&vm, op) < 0)
			break;
	}
	if (rc < 0 && !vm.err)
		fail(&vm, "pickle without STOP", NULL);
	free(vm.stk);
	free(vm.memo);
	if (rc < 0) {
		*err = vm.err;
		*pos = (size_t)(vm.op ? vm.op - p : 0);
	}
	return rc;
}
