/* lower_nn_rnn.c - lowering rules for the recurrent layers: aten::lstm,
 * gru, rnn_tanh and rnn_relu (.input), what nn.LSTM, nn.GRU and nn.RNN
 * call, to ONNX LSTM, GRU and RNN, one ONNX node per layer.
 *
 * The ops take (input, hx, params, has_biases, num_layers, dropout, train,
 * bidirectional, batch_first); params hold, per layer and direction,
 * w_ih [G*H, I], w_hh [G*H, H] and, with biases, b_ih and b_hh [G*H].
 * ONNX keeps each direction's weights stacked, with its own gate order.
 * The cells (lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell) are one
 * step of the same ONNX node. */
#include <string.h>

#include "lower_nn.h"

typedef struct Cell {
	const char *op;   /* LSTM, GRU, RNN */
	int gates;        /* G */
	const int64_t *order; /* ONNX gate k is PyTorch's gate order[k] */
	const char *act;  /* RNN: its activation, else NULL */
	int nout;         /* FX outputs: output, h_n (, c_n) */
} Cell;

/* ONNX LSTM gates are i, o, f, c where PyTorch's are i, f, g, o; GRU's
 * are z, r, h where PyTorch's are r, z, n. */
static const int64_t lstm_order[] = {0, 3, 1, 2};
static const int64_t gru_order[] = {1, 0, 2};
static const int64_t one_order[] = {0};

/* The four recurrences, for both the layer (rnn) and the cell (cell):
 * nout counts the layer's FX outputs; a cell's are nout - 1 */
static const Cell LSTM = {"LSTM", 4, lstm_order, NULL, 3};
static const Cell GRU = {"GRU", 3, gru_order, NULL, 2};
static const Cell RNN_TANH = {"RNN", 1, one_order, "Tanh", 2};
static const Cell RNN_RELU = {"RNN", 1, one_order, "Relu", 2};

/* A weight [G*H, X] (a bias [G*H] when bias) with its gates in ONNX order,
 * as [1, G*H, X] ([1, G*H]): one direction of ONNX's W, R or B. */
static ValId
gates(Lower *L, const Cell *c, ValId w, int64_t h, bool bias)
{
	int64_t g = c->gates;
	int64_t split[3] = {g, h, -1}, one[3] = {1, g * h, -1};
	if (g > 1) {
		w = lwn_reshape(L, w, split, bias ? 2 : 3);
		ValId in[2] = {w, lw_const_i64s(L, c->order, (int)g)};
		NodeId n = lw_emit(L, "Gather", 2, in, 1);
		lw_attr_int(L, n, "axis", 0);
		w = lwn_settyped(L, n, 0, DT_F32);
	}
	return lwn_reshape(L, w, one, bias ? 2 : 3);
}

/* The rows [l*D, (l+1)*D) of an initial state [layers*D, B, H]. */
static ValId
layer_state(Lower *L, ValId s, int64_t l, int64_t dirs)
{
	return lw_slice_const(L, s, 0, l * dirs, (l + 1) * dirs, 1);
}

static void
attr_strs(Lower *L, NodeId n, const char *name, const char *v, int cnt)
{
	Arg it[2];
	for (int k = 0; k < cnt; k++)
		it[k] = arg_str(ir_intern(L->m, v));
	Arg list = ir_list(L->dst, A_LIST, it, (uint32_t)cnt);
	ir_push_arg(L->dst, n, arg_keyed(list, ir_intern(L->m, name)));
}

/* The biggest number of unrolled steps (time steps times layers times
 * directions) of an LSTM with projections. */
enum { PROJ_MAXSTEPS = 1 << 16 };

/* Slot k of a state [layers*D, B, X] as [B, X]. */
static ValId
state_at(Lower *L, ValId s, int64_t k)
{
	ValId in[2] = {s, lw_scalar_i64(L, k)};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", 0);
	return lwn_settyped(L, g, 0, lw_dtype(L, s));
}

/* w [R, C] cast to dt, as [C, R] (the right operand of x @ w.T). */
static ValId
wt(Lower *L, ValId w, DType dt)
{
	return lwn_transpose(L, lw_cast(L, lwn_mm_work(L, w), dt),
	    (int64_t[]){1, 0}, 2);
}

/* nn.LSTM(proj_size=P): per layer and direction the params are w_ih
 * [4H, I], w_hh [4H, P], (b_ih, b_hh [4H],) w_hr [P, H], and each step's
 * h is (o * tanh(c)) @ w_hr.T.  ONNX's LSTM has no projection, so the
 * recurrence is unrolled over the static sequence length (torch.export
 * specializes it anyway): the input products of all steps are one MatMul,
 * each step is a MatMul with w_hh, the gates, and the projection.  x is
 * [T, B, I]; st[0] [layers*D, B, P], st[1] [layers*D, B, H]. */
static int
lstm_proj(Lower *L, ValId x, const ValId st[2], const LwTensorList *p,
    int64_t layers, int64_t dirs, bool bias, bool bfirst)
{
	const Value *xv = lw_srcval(L, 0, "input");
	int64_t t, h, pj, per = bias ? 5 : 3;
	if (!lw_sdim(L, xv, bfirst ? 1 : 0, &t) || t < 1)
		return lw_fail(L, "an LSTM with projections needs a static, "
		    "non-zero sequence length");
	if (!lw_sdim(L, p->s[per - 1], 0, &pj) || !lw_sdim(L, p->s[per - 1],
	    1, &h) || pj < 1 || h < 1)
		return lw_fail(L, "weight_hr_l0 must be [proj_size, "
		    "hidden_size] with static sizes");
	if (t * layers * dirs > PROJ_MAXSTEPS)
		return lw_fail(L, "an LSTM with projections is unrolled: "
		    "%lld steps is too many", (long long)(t * layers * dirs));
	x = lwn_mm_work(L, x);
	DType dt = lw_dtype(L, x);
	static const int64_t swap[3] = {1, 0, 2};
	if (bfirst)
		x = lwn_transpose(L, x, swap, 3);
	ValId *ys = lw_scratch(L, (size_t)t, sizeof *ys);
	ValId *hn = lw_scratch(L, (size_t)(layers * dirs), sizeof *hn);
	ValId *cn = lw_scratch(L, (size_t)(layers * dirs), sizeof *cn);
	ValId four = lw_const_i64s(L, (int64_t[]){h, h, h, h}, 4);
	ValId s0 = lw_cast(L, lwn_mm_work(L, st[0]), dt),
	      s1 = lw_cast(L, lwn_mm_work(L, st[1]), dt);
	for (int64_t l = 0; l < layers; l++) {
		ValId y[2];
		for (int64_t d = 0; d < dirs; d++) {
			int64_t k = (l * dirs + d) * per;
			ValId xw = lw_op2(L, "MatMul", x, wt(L, p->v[k], dt));
			if (bias)
				xw = lw_op2(L, "Add", xw, lw_op2(L, "Add",
				    lw_cast(L, lwn_mm_work(L, p->v[k + 2]), dt),
				    lw_cast(L, lwn_mm_work(L, p->v[k + 3]), dt)));
			ValId rh = wt(L, p->v[k + 1], dt),
			      rp = wt(L, p->v[k + per - 1], dt);
			ValId hh = state_at(L, s0, l * dirs + d),
			      cc = state_at(L, s1, l * dirs + d);
			for (int64_t s = 0; s < t; s++) {
				int64_t ti = d ? t - 1 - s : s;
				ValId gi[2] = {xw, lw_scalar_i64(L, ti)};
				NodeId gx = lw_emit(L, "Gather", 2, gi, 1);
				lw_attr_int(L, gx, "axis", 0);
				ValId g = lw_op2(L, "Add", lwn_settyped(L, gx,
				    0, dt), lw_op2(L, "MatMul", hh, rh));
				/* PyTorch's gate order: i, f, g, o */
				NodeId sp = lw_emit(L, "Split", 2,
				    (ValId[]){g, four}, 4);
				lw_attr_int(L, sp, "axis", 1);
				ValId gt[4];
				for (int q = 0; q < 4; q++)
					gt[q] = lw_op1(L, q == 2 ? "Tanh" :
					    "Sigmoid", lwn_settyped(L, sp, q,
					    dt));
				cc = lw_op2(L, "Add", lw_op2(L, "Mul", gt[1],
				    cc), lw_op2(L, "Mul", gt[0], gt[2]));
				hh = lw_op2(L, "MatMul", lw_op2(L, "Mul",
				    gt[3], lw_op1(L, "Tanh", cc)), rp);
				ys[ti] = lwn_unsqueeze(L, hh, 0);
			}
			y[d] = t == 1 ? ys[0] : lw_concat(L, ys, (int)t, 0,
			    dt);
			hn[l * dirs + d] = lwn_unsqueeze(L, hh, 0);
			cn[l * dirs + d] = lwn_unsqueeze(L, cc, 0);
		}
		x = dirs == 1 ? y[0] : lw_concat(L, y, 2, 2, dt);
	}
	if (bfirst)
		x = lwn_transpose(L, x, swap, 3);
	int n = (int)(layers * dirs);
	lwn_bind_out(L, 0, x);
	lwn_bind_out(L, 1, n == 1 ? hn[0] : lw_concat(L, hn, n, 0, dt));
	lwn_bind_out(L, 2, n == 1 ? cn[0] : lw_concat(L, cn, n, 0, dt));
	return lw_failed(L) ? -1 : 0;
}

static int
rnn(Lower *L, const Cell *c)
{
	bool bias = lw_bool(L, 3, "has_biases", true);
	int64_t layers = lw_int(L, 4, "num_layers", 1);
	double dropout = lw_float(L, 5, "dropout", 0);
	bool train = lw_bool(L, 6, "train", false);
	bool bidir = lw_bool(L, 7, "bidirectional", false);
	bool bfirst = lw_bool(L, 8, "batch_first", false);
	LwTensorList p, hx;
	int np = lw_tensor_list(L, 2, "params", &p);
	if (lw_failed(L))
		return -1;
	int64_t dirs = bidir ? 2 : 1, per = bias ? 4 : 2;
	if (layers < 1 || layers > 1024)
		return lw_fail(L, "num_layers must be positive");
	bool proj = c->nout == 3 && np == layers * dirs * (per + 1);
	if (np != layers * dirs * per && !proj)
		return lw_fail(L, "%d params for %lld layers%s%s", np,
		    (long long)layers, bidir ? ", bidirectional" : "",
		    bias ? ", with biases" : "");
	if (train && dropout > 0 && layers > 1)
		return lw_fail(L, "dropout between layers in training mode "
		    "is not supported");
	int64_t h, gh;
	const Value *whh = p.s[1], *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank != 3)
		return lw_fail(L, "input must be a tensor of rank 3");
	/* with projections, weight_hh_l0 is [4*hidden_size, proj_size] */
	if (!proj && (!lw_sdim(L, whh, 1, &h) || !lw_sdim(L, whh, 0, &gh) ||
	    gh != c->gates * h || h < 1))
		return lw_fail(L, "weight_hh_l0 must be [%d*hidden_size, "
		    "hidden_size] with static sizes", c->gates);
	ValId st[2] = {0, 0};
	if (c->nout == 3) {
		if (lw_tensor_list(L, 1, "hx", &hx) != 2)
			return lw_failed(L) ? -1 : lw_fail(L, "hx must hold "
			    "h_0 and c_0");
		st[0] = hx.v[0];
		st[1] = hx.v[1];
	} else {
		st[0] = lw_in(L, 1, "hx");
	}
	if (proj)
		return lstm_proj(L, lw_in(L, 0, "input"), st, &p, layers, dirs,
		    bias, bfirst);
	st[0] = lwn_f32(L, st[0]);
	st[1] = lwn_f32(L, st[1]);
	ValId x = lwn_f32(L, lw_in(L, 0, "input"));
	if (lw_failed(L))
		return -1;
	static const int64_t swap[3] = {1, 0, 2};
	if (bfirst)
		x = lwn_transpose(L, x, swap, 3);
	int nst = c->nout - 1;
	ValId last[2][1024];
	for (int64_t l = 0; l < layers; l++) {
		ValId w[2], r[2], b[2];
		for (int64_t d = 0; d < dirs; d++) {
			int64_t k = (l * dirs + d) * per;
			w[d] = gates(L, c, lwn_f32(L, p.v[k]), h, false);
			r[d] = gates(L, c, lwn_f32(L, p.v[k + 1]), h, false);
			if (!bias)
				continue;
			ValId bb[2] = {
				gates(L, c, lwn_f32(L, p.v[k + 2]), h, true),
				gates(L, c, lwn_f32(L, p.v[k + 3]), h, true)};
			b[d] = lw_concat(L, bb, 2, 1, DT_F32);
		}
		ValId in[7] = {x, lw_concat(L, w, (int)dirs, 0, DT_F32),
		    lw_concat(L, r, (int)dirs, 0, DT_F32),
		    bias ? lw_concat(L, b, (int)dirs, 0, DT_F32) : 0, 0,
		    layer_state(L, st[0], l, dirs),
		    nst > 1 ? layer_state(L, st[1], l, dirs) : 0};
		NodeId n = lw_emit(L, c->op, 5 + nst, in, 1 + nst);
		lw_attr_int(L, n, "hidden_size", h);
		lw_attr_str(L, n, "direction", bidir ? "bidirectional"
		    : "forward");
		if (c->act)
			attr_strs(L, n, "activations", c->act, (int)dirs);
		if (c->gates == 3)
			lw_attr_int(L, n, "linear_before_reset", 1);
		/* Y [T, D, B, H] -> [T, B, D*H], the next layer's input */
		static const int64_t tbdh[4] = {0, 2, 1, 3};
		x = lwn_transpose(L, lwn_settyped(L, n, 0, DT_F32), tbdh, 4);
		x = lwn_reshape(L, x, (int64_t[]){0, 0, dirs * h}, 3);
		for (int k = 0; k < nst; k++)
			last[k][l] = lwn_settyped(L, n, 1 + k, DT_F32);
	}
	if (bfirst)
		x = lwn_transpose(L, x, swap, 3);
	lwn_bind_out(L, 0, x);
	for (int k = 0; k < nst; k++)
		lwn_bind_out(L, 1 + k, layers == 1 ? last[k][0]
		    : lw_concat(L, last[k], (int)layers, 0, DT_F32));
	return 0;
}

/* lstm.input(input, hx[h_0, c_0], params, ...) -> (output, h_n, c_n) */
static int
lstm(Lower *L)
{
	return rnn(L, &LSTM);
}

/* gru.input(input, hx, params, ...) -> (output, h_n); PyTorch applies
 * the reset gate after the hidden matmul: linear_before_reset */
static int
gru(Lower *L)
{
	return rnn(L, &GRU);
}

static int
rnn_tanh(Lower *L)
{
	return rnn(L, &RNN_TANH);
}

static int
rnn_relu(Lower *L)
{
	return rnn(L, &RNN_RELU);
}

/* The cells (nn.LSTMCell, GRUCell, RNNCell, stepped by the model itself):
 * lstm_cell(input, hx[h, c], w_ih, w_hh, b_ih=None, b_hh=None) -> (h', c'),
 * gru_cell / rnn_*_cell(input, hx, w_ih, w_hh, b_ih, b_hh) -> h'.  One step
 * of the layer is the ONNX node over a sequence of length 1; input [B, I]
 * (nn.*Cell adds the batch axis of an unbatched input before the call). */
static int
cell(Lower *L, const Cell *c)
{
	const Value *xv = lw_srcval(L, 0, "input"), *whh = lw_srcval(L, 3,
	    "w_hh");
	int64_t h, gh;
	if (!xv || xv->rank != 2)
		return lw_fail(L, "input must be a tensor of rank 2");
	if (!whh || whh->rank != 2 || !lw_sdim(L, whh, 1, &h) ||
	    !lw_sdim(L, whh, 0, &gh) || gh != c->gates * h || h < 1)
		return lw_fail(L, "w_hh must be [%d*hidden_size, hidden_size] "
		    "with static sizes", c->gates);
	bool err = false;
	ValId st[2] = {0, 0};
	int nst = c->nout == 3 ? 2 : 1;
	if (nst == 2) {
		LwTensorList hx;
		if (lw_tensor_list(L, 1, "hx", &hx) != 2)
			return lw_failed(L) ? -1 : lw_fail(L, "hx must hold "
			    "h_0 and c_0");
		st[0] = hx.v[0];
		st[1] = hx.v[1];
	} else {
		st[0] = lw_in(L, 1, "hx");
	}
	ValId x = lw_in(L, 0, "input"), wih = lw_in(L, 2, "w_ih"),
	      r = lw_in(L, 3, "w_hh"), bih = lwn_opt_in(L, 4, "b_ih", &err),
	      bhh = lwn_opt_in(L, 5, "b_hh", &err);
	if (lw_failed(L) || err || !x || !wih || !r)
		return -1;
	/* [B, I] -> [T=1, B, I]; a state [B, H] -> [D=1, B, H] */
	x = lwn_unsqueeze(L, lwn_f32(L, x), 0);
	ValId in[7] = {x, gates(L, c, lwn_f32(L, wih), h, false),
	    gates(L, c, lwn_f32(L, r), h, false), 0, 0, 0, 0};
	if (bih || bhh) {
		/* one bias without the other (F.*_cell called by hand) is
		 * the other at zero */
		ValId zero = lwn_fill(L, lw_i64v(L, gh), 0, DT_F32);
		ValId bb[2] = {
		    gates(L, c, bih ? lwn_f32(L, bih) : zero, h, true),
		    gates(L, c, bhh ? lwn_f32(L, bhh) : zero, h, true)};
		in[3] = lw_concat(L, bb, 2, 1, DT_F32);
	}
	for (int k = 0; k < nst; k++)
		in[5 + k] = lwn_unsqueeze(L, lwn_f32(L, st[k]), 0);
	NodeId n = lw_emit(L, c->op, 5 + nst, in, 1 + nst);
	lw_attr_int(L, n, "hidden_size", h);
	if (c->act)
		attr_strs(L, n, "activations", c->act, 1);
	if (c->gates == 3)
		lw_attr_int(L, n, "linear_before_reset", 1);
	/* Y_h, Y_c [D=1, B, H] -> [B, H] */
	for (int k = 0; k < nst; k++)
		lwn_bind_out(L, k, lwn_squeeze(L, lwn_settyped(L, n, 1 + k,
		    DT_F32), 0));
	return 0;
}

static int
lstm_cell(Lower *L)
{
	return cell(L, &LSTM);
}

static int
gru_cell(Lower *L)
{
	return cell(L, &GRU);
}

static int
rnn_tanh_cell(Lower *L)
{
	return cell(L, &RNN_TANH);
}

static int
rnn_relu_cell(Lower *L)
{
	return cell(L, &RNN_RELU);
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_rnn LW_THIS
const LowerRule lw_rules_nn_rnn[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
