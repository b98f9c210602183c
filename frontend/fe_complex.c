/* fe_complex.c - a Python complex number in an argument (x * 1j prints
 * mul.Tensor(x, complex(0.0, 1.0)); the archive writes as_complex): the
 * IR has no complex scalar, so both frontends put a 0-d complex128 tensor
 * there, made by nodes placed before the node that reads it:
 * complex(scalar_tensor(re), scalar_tensor(im)).  The reading op's
 * annotated dtype (complex64 for a float32 tensor, as Python's number
 * promotes) is what its lowering computes in. */
#include "fe.h"

static ValId
part(Module *m, Graph *g, double x, Loc loc)
{
	NodeId n = ir_node(g, D_FX, ir_intern(m, "aten::scalar_tensor.default"),
	    1);
	ir_nodep(g, n)->loc = loc;
	ir_push_arg(g, n, arg_float(x));
	ir_push_arg(g, n, arg_keyed((Arg){.kind = A_DTYPE, .u.i = DT_F64},
	    ir_intern(m, "dtype")));
	ValId v = ir_nodep(g, n)->out;
	ir_set_tensor(g, v, DT_F64, 0, NULL);
	return v;
}

ValId
fe_complex(Module *m, Graph *g, double re, double im, Loc loc)
{
	ValId r = part(m, g, re, loc), i = part(m, g, im, loc);
	NodeId n = ir_node(g, D_FX, ir_intern(m, "aten::complex.default"), 1);
	ir_nodep(g, n)->loc = loc;
	ir_push_arg(g, n, arg_val(r));
	ir_push_arg(g, n, arg_val(i));
	ValId v = ir_nodep(g, n)->out;
	ir_set_tensor(g, v, DT_C128, 0, NULL);
	return v;
}
