/* lower_rows.h - a family's rows of the op table (ir/ops.def) as
 * LowerRule initializers.  A lower_<family>.c defines
 * LW_ROWS_<family>(op, rule) as one row of its table and includes this
 * file inside the table's braces; the rows of every other family expand
 * to nothing, so each rule stays static in its family's file.  No include
 * guard: each family file includes it once, at its table. */
#ifndef LW_ROWS_elementwise
#define LW_ROWS_elementwise(op, rule)
#endif
#ifndef LW_ROWS_elementwise_act
#define LW_ROWS_elementwise_act(op, rule)
#endif
#ifndef LW_ROWS_elementwise_cmp
#define LW_ROWS_elementwise_cmp(op, rule)
#endif
#ifndef LW_ROWS_reduce
#define LW_ROWS_reduce(op, rule)
#endif
#ifndef LW_ROWS_reduce_norm
#define LW_ROWS_reduce_norm(op, rule)
#endif
#ifndef LW_ROWS_nn
#define LW_ROWS_nn(op, rule)
#endif
#ifndef LW_ROWS_nn_norm
#define LW_ROWS_nn_norm(op, rule)
#endif
#ifndef LW_ROWS_nn_pool
#define LW_ROWS_nn_pool(op, rule)
#endif
#ifndef LW_ROWS_nn_attn
#define LW_ROWS_nn_attn(op, rule)
#endif
#ifndef LW_ROWS_nn_rnn
#define LW_ROWS_nn_rnn(op, rule)
#endif
#ifndef LW_ROWS_nn_bag
#define LW_ROWS_nn_bag(op, rule)
#endif
#ifndef LW_ROWS_nn_win
#define LW_ROWS_nn_win(op, rule)
#endif
#ifndef LW_ROWS_shape
#define LW_ROWS_shape(op, rule)
#endif
#ifndef LW_ROWS_shape_join
#define LW_ROWS_shape_join(op, rule)
#endif
#ifndef LW_ROWS_index
#define LW_ROWS_index(op, rule)
#endif
#ifndef LW_ROWS_index_pad
#define LW_ROWS_index_pad(op, rule)
#endif
#ifndef LW_ROWS_index_sel
#define LW_ROWS_index_sel(op, rule)
#endif
#ifndef LW_ROWS_sym
#define LW_ROWS_sym(op, rule)
#endif
#ifndef LW_ROWS_cf
#define LW_ROWS_cf(op, rule)
#endif
#ifndef LW_ROWS_special
#define LW_ROWS_special(op, rule)
#endif
#ifndef LW_ROWS_linalg
#define LW_ROWS_linalg(op, rule)
#endif
#ifndef LW_ROWS_fft
#define LW_ROWS_fft(op, rule)
#endif
#ifndef LW_ROWS_fft_stft
#define LW_ROWS_fft_stft(op, rule)
#endif
#ifndef LW_ROWS_cplx
#define LW_ROWS_cplx(op, rule)
#endif
#define LW_ROWS_none(op, rule)

#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	LW_ROWS_##family(op, rule)
#include "../ir/ops.def"
#undef OP
