/* opschema.c - the ONNX operator schemas onnxc emits (see opschema.h).
 *
 * The rows were written from the ONNX operator specifications (Operators.md
 * and its changelog): for each op, every version selected by an opset from
 * 17 to 23.  Rows are sorted by op (bytewise) and then by since_version, so
 * that lookups can bisect; a unit test keeps them so.  Only attributes with
 * a default in the schema carry "=value"; the .ort writer fills those in
 * where a node leaves them out, as ONNX Runtime does when it resolves a
 * graph.
 */
#include <stdlib.h>
#include <string.h>

#include "opschema.h"

static const OpSchema rows[] = {
	{"Abs", 13, "X:T", "Y:T", ""},
	{"Acos", 7, "input:T", "output:T", ""},
	{"Acos", 22, "input:T", "output:T", ""},
	{"Acosh", 9, "input:T", "output:T", ""},
	{"Acosh", 22, "input:T", "output:T", ""},
	{"Add", 14, "A:T B:T", "C:T", ""},
	{"And", 7, "A:T B:T", "C:T1", ""},
	{"ArgMax", 13,
	    "data:T", "reduced:tensor(int64)",
	    "axis:i=0 keepdims:i=1 select_last_index:i=0"},
	{"ArgMin", 13,
	    "data:T", "reduced:tensor(int64)",
	    "axis:i=0 keepdims:i=1 select_last_index:i=0"},
	{"Asin", 7, "input:T", "output:T", ""},
	{"Asin", 22, "input:T", "output:T", ""},
	{"Asinh", 9, "input:T", "output:T", ""},
	{"Asinh", 22, "input:T", "output:T", ""},
	{"Atan", 7, "input:T", "output:T", ""},
	{"Atan", 22, "input:T", "output:T", ""},
	{"Atanh", 9, "input:T", "output:T", ""},
	{"Atanh", 22, "input:T", "output:T", ""},
	{"AveragePool", 11,
	    "X:T", "Y:T",
	    "auto_pad:s=NOTSET ceil_mode:i=0 count_include_pad:i=0 "
	    "kernel_shape:is pads:is strides:is"},
	{"AveragePool", 19,
	    "X:T", "Y:T",
	    "auto_pad:s=NOTSET ceil_mode:i=0 count_include_pad:i=0 "
	    "dilations:is kernel_shape:is pads:is strides:is"},
	{"AveragePool", 22,
	    "X:T", "Y:T",
	    "auto_pad:s=NOTSET ceil_mode:i=0 count_include_pad:i=0 "
	    "dilations:is kernel_shape:is pads:is strides:is"},
	{"BatchNormalization", 15,
	    "X:T scale:T1 B:T1 input_mean:T2 input_var:T2",
	    "Y:T running_mean:T2? running_var:T2?",
	    "epsilon:f=1e-05 momentum:f=0.9 training_mode:i=0"},
	{"BitShift", 11, "X:T Y:T", "Z:T", "direction:s"},
	{"BitwiseAnd", 18, "A:T B:T", "C:T", ""},
	{"BitwiseNot", 18, "X:T", "Y:T", ""},
	{"BitwiseOr", 18, "A:T B:T", "C:T", ""},
	{"BitwiseXor", 18, "A:T B:T", "C:T", ""},
	{"Cast", 13, "input:T1", "output:T2", "to:i"},
	{"Cast", 19, "input:T1", "output:T2", "saturate:i=1 to:i"},
	{"Cast", 21, "input:T1", "output:T2", "saturate:i=1 to:i"},
	{"Cast", 23, "input:T1", "output:T2", "saturate:i=1 to:i"},
	{"CastLike", 15, "input:T1 target_type:T2", "output:T2", ""},
	{"CastLike", 19,
	    "input:T1 target_type:T2", "output:T2",
	    "saturate:i=1"},
	{"CastLike", 21,
	    "input:T1 target_type:T2", "output:T2",
	    "saturate:i=1"},
	{"CastLike", 23,
	    "input:T1 target_type:T2", "output:T2",
	    "saturate:i=1"},
	{"Ceil", 13, "X:T", "Y:T", ""},
	{"Celu", 12, "X:T", "Y:T", "alpha:f=1"},
	{"Clip", 13, "input:T min:T? max:T?", "output:T", ""},
	{"Compress", 11, "input:T condition:T1", "output:T", "axis:i"},
	{"Concat", 13, "inputs:T*", "concat_result:T", "axis:i"},
	{"Constant", 13,
	    "", "output:T",
	    "sparse_value:t value:t value_float:f value_floats:fs "
	    "value_int:i value_ints:is value_string:s value_strings:ss"},
	{"Constant", 19,
	    "", "output:T",
	    "sparse_value:t value:t value_float:f value_floats:fs "
	    "value_int:i value_ints:is value_string:s value_strings:ss"},
	{"Constant", 21,
	    "", "output:T",
	    "sparse_value:t value:t value_float:f value_floats:fs "
	    "value_int:i value_ints:is value_string:s value_strings:ss"},
	{"Constant", 23,
	    "", "output:T",
	    "sparse_value:t value:t value_float:f value_floats:fs "
	    "value_int:i value_ints:is value_string:s value_strings:ss"},
	{"ConstantOfShape", 9, "input:T1", "output:T2", "value:t"},
	{"ConstantOfShape", 20, "input:T1", "output:T2", "value:t"},
	{"ConstantOfShape", 21, "input:T1", "output:T2", "value:t"},
	{"ConstantOfShape", 23, "input:T1", "output:T2", "value:t"},
	{"Conv", 11,
	    "X:T W:T B:T?", "Y:T",
	    "auto_pad:s=NOTSET dilations:is group:i=1 kernel_shape:is "
	    "pads:is strides:is"},
	{"Conv", 22,
	    "X:T W:T B:T?", "Y:T",
	    "auto_pad:s=NOTSET dilations:is group:i=1 kernel_shape:is "
	    "pads:is strides:is"},
	{"ConvTranspose", 11,
	    "X:T W:T B:T?", "Y:T",
	    "auto_pad:s=NOTSET dilations:is group:i=1 kernel_shape:is "
	    "output_padding:is output_shape:is pads:is strides:is"},
	{"ConvTranspose", 22,
	    "X:T W:T B:T?", "Y:T",
	    "auto_pad:s=NOTSET dilations:is group:i=1 kernel_shape:is "
	    "output_padding:is output_shape:is pads:is strides:is"},
	{"Cos", 7, "input:T", "output:T", ""},
	{"Cos", 22, "input:T", "output:T", ""},
	{"Cosh", 9, "input:T", "output:T", ""},
	{"Cosh", 22, "input:T", "output:T", ""},
	{"CumSum", 14, "x:T axis:T2", "y:T", "exclusive:i=0 reverse:i=0"},
	{"DFT", 17,
	    "input:T1 dft_length:T2?", "output:T1",
	    "axis:i=1 inverse:i=0 onesided:i=0"},
	{"DFT", 20,
	    "input:T1 dft_length:T2? axis:tensor(int64)?", "output:T1",
	    "inverse:i=0 onesided:i=0"},
	{"DepthToSpace", 13, "input:T", "output:T", "blocksize:i mode:s=DCR"},
	{"Div", 14, "A:T B:T", "C:T", ""},
	{"Dropout", 13,
	    "data:T ratio:T1? training_mode:T2?", "output:T mask:T2?",
	    "seed:i"},
	{"Dropout", 22,
	    "data:T ratio:T1? training_mode:T2?", "output:T mask:T2?",
	    "seed:i"},
	{"Einsum", 12, "Inputs:T*", "Output:T", "equation:s"},
	{"Elu", 6, "X:T", "Y:T", "alpha:f=1"},
	{"Elu", 22, "X:T", "Y:T", "alpha:f=1"},
	{"Equal", 13, "A:T B:T", "C:T1", ""},
	{"Equal", 19, "A:T B:T", "C:T1", ""},
	{"Erf", 13, "input:T", "output:T", ""},
	{"Exp", 13, "input:T", "output:T", ""},
	{"Expand", 13, "input:T shape:tensor(int64)", "output:T", ""},
	{"Flatten", 13, "input:T", "output:T", "axis:i=1"},
	{"Flatten", 21, "input:T", "output:T", "axis:i=1"},
	{"Flatten", 23, "input:T", "output:T", "axis:i=1"},
	{"Floor", 13, "X:T", "Y:T", ""},
	{"GRU", 14,
	    "X:T W:T R:T B:T? sequence_lens:T1? initial_h:T?", "Y:T? Y_h:T?",
	    "activation_alpha:fs activation_beta:fs activations:ss clip:f "
	    "direction:s=forward hidden_size:i layout:i=0 "
	    "linear_before_reset:i=0"},
	{"GRU", 22,
	    "X:T W:T R:T B:T? sequence_lens:T1? initial_h:T?", "Y:T? Y_h:T?",
	    "activation_alpha:fs activation_beta:fs activations:ss clip:f "
	    "direction:s=forward hidden_size:i layout:i=0 "
	    "linear_before_reset:i=0"},
	{"Gather", 13, "data:T indices:Tind", "output:T", "axis:i=0"},
	{"GatherElements", 13, "data:T indices:Tind", "output:T", "axis:i=0"},
	{"GatherND", 13,
	    "data:T indices:tensor(int64)", "output:T",
	    "batch_dims:i=0"},
	{"Gelu", 20, "X:T", "Y:T", "approximate:s=none"},
	{"Gemm", 13,
	    "A:T B:T C:T?", "Y:T",
	    "alpha:f=1 beta:f=1 transA:i=0 transB:i=0"},
	{"GlobalAveragePool", 1, "X:T", "Y:T", ""},
	{"GlobalAveragePool", 22, "X:T", "Y:T", ""},
	{"GlobalMaxPool", 1, "X:T", "Y:T", ""},
	{"GlobalMaxPool", 22, "X:T", "Y:T", ""},
	{"Greater", 13, "A:T B:T", "C:T1", ""},
	{"GreaterOrEqual", 16, "A:T B:T", "C:T1", ""},
	{"GridSample", 16, "X:T1 grid:T2", "Y:T1",
	    "align_corners:i=0 mode:s=bilinear padding_mode:s=zeros"},
	{"GridSample", 20, "X:T1 grid:T2", "Y:T1",
	    "align_corners:i=0 mode:s=linear padding_mode:s=zeros"},
	{"GridSample", 22, "X:T1 grid:T2", "Y:T1",
	    "align_corners:i=0 mode:s=linear padding_mode:s=zeros"},
	{"GroupNormalization", 18,
	    "X:T scale:T bias:T", "Y:T",
	    "epsilon:f=1e-05 num_groups:i"},
	{"GroupNormalization", 21,
	    "X:T scale:T bias:T", "Y:T",
	    "epsilon:f=1e-05 num_groups:i stash_type:i=1"},
	{"HardSigmoid", 6, "X:T", "Y:T", "alpha:f=0.2 beta:f=0.5"},
	{"HardSigmoid", 22, "X:T", "Y:T", "alpha:f=0.2 beta:f=0.5"},
	{"HardSwish", 14, "X:T", "Y:T", ""},
	{"HardSwish", 22, "X:T", "Y:T", ""},
	{"Hardmax", 13, "input:T", "output:T", "axis:i=-1"},
	{"Identity", 16, "input:V", "output:V", ""},
	{"Identity", 19, "input:V", "output:V", ""},
	{"Identity", 21, "input:V", "output:V", ""},
	{"Identity", 23, "input:V", "output:V", ""},
	{"If", 16, "cond:B", "outputs:V*", "else_branch:g then_branch:g"},
	{"If", 19, "cond:B", "outputs:V*", "else_branch:g then_branch:g"},
	{"If", 21, "cond:B", "outputs:V*", "else_branch:g then_branch:g"},
	{"If", 23, "cond:B", "outputs:V*", "else_branch:g then_branch:g"},
	{"InstanceNormalization", 6,
	    "input:T scale:T B:T", "output:T",
	    "epsilon:f=1e-05"},
	{"InstanceNormalization", 22,
	    "input:T scale:T B:T", "output:T",
	    "epsilon:f=1e-05"},
	{"IsInf", 10,
	    "X:T1", "Y:T2",
	    "detect_negative:i=1 detect_positive:i=1"},
	{"IsInf", 20,
	    "X:T1", "Y:T2",
	    "detect_negative:i=1 detect_positive:i=1"},
	{"IsNaN", 13, "X:T1", "Y:T2", ""},
	{"IsNaN", 20, "X:T1", "Y:T2", ""},
	{"LRN", 13, "X:T", "Y:T", "alpha:f=0.0001 beta:f=0.75 bias:f=1 size:i"},
	{"LSTM", 14,
	    "X:T W:T R:T B:T? sequence_lens:T1? initial_h:T? initial_c:T? P:T?",
	    "Y:T? Y_h:T? Y_c:T?",
	    "activation_alpha:fs activation_beta:fs activations:ss clip:f "
	    "direction:s=forward hidden_size:i input_forget:i=0 layout:i=0"},
	{"LSTM", 22,
	    "X:T W:T R:T B:T? sequence_lens:T1? initial_h:T? initial_c:T? P:T?",
	    "Y:T? Y_h:T? Y_c:T?",
	    "activation_alpha:fs activation_beta:fs activations:ss clip:f "
	    "direction:s=forward hidden_size:i input_forget:i=0 layout:i=0"},
	{"LayerNormalization", 17,
	    "X:T Scale:T B:T?", "Y:T Mean:U? InvStdDev:U?",
	    "axis:i=-1 epsilon:f=1e-05 stash_type:i=1"},
	{"LeakyRelu", 16, "X:T", "Y:T", "alpha:f=0.01"},
	{"Less", 13, "A:T B:T", "C:T1", ""},
	{"LessOrEqual", 16, "A:T B:T", "C:T1", ""},
	{"Log", 13, "input:T", "output:T", ""},
	{"LogSoftmax", 13, "input:T", "output:T", "axis:i=-1"},
	{"Loop", 16, "M:I? cond:B? v_initial:V*", "v_final_and_scan_outputs:V*",
	    "body:g"},
	{"Loop", 19, "M:I? cond:B? v_initial:V*", "v_final_and_scan_outputs:V*",
	    "body:g"},
	{"Loop", 21, "M:I? cond:B? v_initial:V*", "v_final_and_scan_outputs:V*",
	    "body:g"},
	{"Loop", 23, "M:I? cond:B? v_initial:V*", "v_final_and_scan_outputs:V*",
	    "body:g"},
	{"LpNormalization", 1, "input:T", "output:T", "axis:i=-1 p:i=2"},
	{"LpNormalization", 22, "input:T", "output:T", "axis:i=-1 p:i=2"},
	{"MatMul", 13, "A:T B:T", "Y:T", ""},
	{"Max", 13, "data_0:T*", "max:T", ""},
	{"MaxPool", 12,
	    "X:T", "Y:T Indices:I?",
	    "auto_pad:s=NOTSET ceil_mode:i=0 dilations:is kernel_shape:is "
	    "pads:is storage_order:i=0 strides:is"},
	{"MaxPool", 22,
	    "X:T", "Y:T Indices:I?",
	    "auto_pad:s=NOTSET ceil_mode:i=0 dilations:is kernel_shape:is "
	    "pads:is storage_order:i=0 strides:is"},
	{"MaxRoiPool", 1, "X:T rois:T", "Y:T",
	    "pooled_shape:is spatial_scale:f=1"},
	{"Mean", 13, "data_0:T*", "mean:T", ""},
	{"Min", 13, "data_0:T*", "min:T", ""},
	{"Mish", 18, "X:T", "Y:T", ""},
	{"Mish", 22, "X:T", "Y:T", ""},
	{"Mod", 13, "A:T B:T", "C:T", "fmod:i=0"},
	{"Mul", 14, "A:T B:T", "C:T", ""},
	{"Neg", 13, "X:T", "Y:T", ""},
	{"NonMaxSuppression", 11,
	    "boxes:tensor(float) scores:tensor(float) "
	    "max_output_boxes_per_class:tensor(int64)? "
	    "iou_threshold:tensor(float)? score_threshold:tensor(float)?",
	    "selected_indices:tensor(int64)", "center_point_box:i=0"},
	{"NonZero", 13, "X:T", "Y:tensor(int64)", ""},
	{"Not", 1, "X:T", "Y:T", ""},
	{"OneHot", 11,
	    "indices:T1 depth:T2 values:T3", "output:T3",
	    "axis:i=-1"},
	{"Or", 7, "A:T B:T", "C:T1", ""},
	{"PRelu", 16, "X:T slope:T", "Y:T", ""},
	{"Pad", 13,
	    "data:T pads:tensor(int64) constant_value:T?", "output:T",
	    "mode:s=constant"},
	{"Pad", 18,
	    "data:T pads:tensor(int64) constant_value:T? axes:Tind?",
	    "output:T",
	    "mode:s=constant"},
	{"Pad", 19,
	    "data:T pads:tensor(int64) constant_value:T? axes:Tind?",
	    "output:T",
	    "mode:s=constant"},
	{"Pad", 21,
	    "data:T pads:tensor(int64) constant_value:T? axes:Tind?",
	    "output:T",
	    "mode:s=constant"},
	{"Pad", 23,
	    "data:T pads:tensor(int64) constant_value:T? axes:Tind?",
	    "output:T",
	    "mode:s=constant"},
	{"Pow", 15, "X:T Y:T1", "Z:T", ""},
	{"RNN", 14,
	    "X:T W:T R:T B:T? sequence_lens:T1? initial_h:T?", "Y:T? Y_h:T?",
	    "activation_alpha:fs activation_beta:fs activations:ss clip:f "
	    "direction:s=forward hidden_size:i layout:i=0"},
	{"RNN", 22,
	    "X:T W:T R:T B:T? sequence_lens:T1? initial_h:T?", "Y:T? Y_h:T?",
	    "activation_alpha:fs activation_beta:fs activations:ss clip:f "
	    "direction:s=forward hidden_size:i layout:i=0"},
	{"Range", 11, "start:T limit:T delta:T", "output:T", ""},
	{"Reciprocal", 13, "X:T", "Y:T", ""},
	{"ReduceL1", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceL1", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceL2", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceL2", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceLogSum", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceLogSum", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceLogSumExp", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceLogSumExp", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceMax", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceMax", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceMax", 20,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceMean", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceMean", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceMin", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceMin", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceMin", 20,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceProd", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceProd", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceSum", 13,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"ReduceSumSquare", 13, "data:T", "reduced:T", "axes:is keepdims:i=1"},
	{"ReduceSumSquare", 18,
	    "data:T axes:tensor(int64)?", "reduced:T",
	    "keepdims:i=1 noop_with_empty_axes:i=0"},
	{"Relu", 14, "X:T", "Y:T", ""},
	{"Reshape", 14,
	    "data:T shape:tensor(int64)", "reshaped:T",
	    "allowzero:i=0"},
	{"Reshape", 19,
	    "data:T shape:tensor(int64)", "reshaped:T",
	    "allowzero:i=0"},
	{"Reshape", 21,
	    "data:T shape:tensor(int64)", "reshaped:T",
	    "allowzero:i=0"},
	{"Reshape", 23,
	    "data:T shape:tensor(int64)", "reshaped:T",
	    "allowzero:i=0"},
	{"Resize", 13,
	    "X:T1 roi:T2? scales:tensor(float)? sizes:tensor(int64)?", "Y:T1",
	    "coordinate_transformation_mode:s=half_pixel "
	    "cubic_coeff_a:f=-0.75 exclude_outside:i=0 "
	    "extrapolation_value:f=0 mode:s=nearest "
	    "nearest_mode:s=round_prefer_floor"},
	{"Resize", 18,
	    "X:T1 roi:T2? scales:tensor(float)? sizes:tensor(int64)?", "Y:T1",
	    "antialias:i=0 axes:is "
	    "coordinate_transformation_mode:s=half_pixel "
	    "cubic_coeff_a:f=-0.75 exclude_outside:i=0 "
	    "extrapolation_value:f=0 keep_aspect_ratio_policy:s=stretch "
	    "mode:s=nearest nearest_mode:s=round_prefer_floor"},
	{"Resize", 19,
	    "X:T1 roi:T2? scales:tensor(float)? sizes:tensor(int64)?", "Y:T1",
	    "antialias:i=0 axes:is "
	    "coordinate_transformation_mode:s=half_pixel "
	    "cubic_coeff_a:f=-0.75 exclude_outside:i=0 "
	    "extrapolation_value:f=0 keep_aspect_ratio_policy:s=stretch "
	    "mode:s=nearest nearest_mode:s=round_prefer_floor"},
	{"RoiAlign", 16,
	    "X:T1 rois:T1 batch_indices:T2", "Y:T1",
	    "coordinate_transformation_mode:s=half_pixel mode:s=avg "
	    "output_height:i=1 output_width:i=1 sampling_ratio:i=0 "
	    "spatial_scale:f=1"},
	{"Round", 11, "X:T", "Y:T", ""},
	{"Round", 22, "X:T", "Y:T", ""},
	{"Scan", 16,
	    "initial_state_and_scan_inputs:V*", "final_state_and_scan_outputs:V*",
	    "body:g num_scan_inputs:i scan_input_axes:is scan_input_directions:is "
	    "scan_output_axes:is scan_output_directions:is"},
	{"Scan", 19,
	    "initial_state_and_scan_inputs:V*", "final_state_and_scan_outputs:V*",
	    "body:g num_scan_inputs:i scan_input_axes:is scan_input_directions:is "
	    "scan_output_axes:is scan_output_directions:is"},
	{"Scan", 21,
	    "initial_state_and_scan_inputs:V*", "final_state_and_scan_outputs:V*",
	    "body:g num_scan_inputs:i scan_input_axes:is scan_input_directions:is "
	    "scan_output_axes:is scan_output_directions:is"},
	{"Scan", 23,
	    "initial_state_and_scan_inputs:V*", "final_state_and_scan_outputs:V*",
	    "body:g num_scan_inputs:i scan_input_axes:is scan_input_directions:is "
	    "scan_output_axes:is scan_output_directions:is"},
	{"ScatterElements", 16,
	    "data:T indices:Tind updates:T", "output:T",
	    "axis:i=0 reduction:s=none"},
	{"ScatterElements", 18,
	    "data:T indices:Tind updates:T", "output:T",
	    "axis:i=0 reduction:s=none"},
	{"ScatterND", 16,
	    "data:T indices:tensor(int64) updates:T", "output:T",
	    "reduction:s=none"},
	{"ScatterND", 18,
	    "data:T indices:tensor(int64) updates:T", "output:T",
	    "reduction:s=none"},
	{"Selu", 6,
	    "X:T", "Y:T",
	    "alpha:f=1.67326319217681884765625 "
	    "gamma:f=1.05070102214813232421875"},
	{"Selu", 22,
	    "X:T", "Y:T",
	    "alpha:f=1.67326319217681884765625 "
	    "gamma:f=1.05070102214813232421875"},
	{"Shape", 15, "data:T", "shape:T1", "end:i start:i=0"},
	{"Shape", 19, "data:T", "shape:T1", "end:i start:i=0"},
	{"Shape", 21, "data:T", "shape:T1", "end:i start:i=0"},
	{"Shape", 23, "data:T", "shape:T1", "end:i start:i=0"},
	{"Shrink", 9, "input:T", "output:T", "bias:f=0 lambd:f=0.5"},
	{"Sigmoid", 13, "X:T", "Y:T", ""},
	{"Sign", 13, "input:T", "output:T", ""},
	{"Sin", 7, "input:T", "output:T", ""},
	{"Sin", 22, "input:T", "output:T", ""},
	{"Sinh", 9, "input:T", "output:T", ""},
	{"Sinh", 22, "input:T", "output:T", ""},
	{"Size", 13, "data:T", "size:T1", ""},
	{"Size", 19, "data:T", "size:T1", ""},
	{"Size", 21, "data:T", "size:T1", ""},
	{"Size", 23, "data:T", "size:T1", ""},
	{"Slice", 13,
	    "data:T starts:Tind ends:Tind axes:Tind? steps:Tind?", "output:T",
	    ""},
	{"Softmax", 13, "input:T", "output:T", "axis:i=-1"},
	{"Softplus", 1, "X:T", "Y:T", ""},
	{"Softplus", 22, "X:T", "Y:T", ""},
	{"Softsign", 1, "input:T", "output:T", ""},
	{"Softsign", 22, "input:T", "output:T", ""},
	{"SpaceToDepth", 13, "input:T", "output:T", "blocksize:i"},
	{"Split", 13, "input:T split:tensor(int64)?", "outputs:T*", "axis:i=0"},
	{"Split", 18,
	    "input:T split:tensor(int64)?", "outputs:T*",
	    "axis:i=0 num_outputs:i"},
	{"Sqrt", 13, "X:T", "Y:T", ""},
	{"Squeeze", 13, "data:T axes:tensor(int64)?", "squeezed:T", ""},
	{"Squeeze", 21, "data:T axes:tensor(int64)?", "squeezed:T", ""},
	{"Squeeze", 23, "data:T axes:tensor(int64)?", "squeezed:T", ""},
	{"Sub", 14, "A:T B:T", "C:T", ""},
	{"Sum", 13, "data_0:T*", "sum:T", ""},
	{"Tan", 7, "input:T", "output:T", ""},
	{"Tan", 22, "input:T", "output:T", ""},
	{"Tanh", 13, "input:T", "output:T", ""},
	{"ThresholdedRelu", 10, "X:T", "Y:T", "alpha:f=1"},
	{"ThresholdedRelu", 22, "X:T", "Y:T", "alpha:f=1"},
	{"Tile", 13, "input:T repeats:T1", "output:T", ""},
	{"TopK", 11,
	    "X:T K:tensor(int64)", "Values:T Indices:I",
	    "axis:i=-1 largest:i=1 sorted:i=1"},
	{"Transpose", 13, "data:T", "transposed:T", "perm:is"},
	{"Transpose", 21, "data:T", "transposed:T", "perm:is"},
	{"Transpose", 23, "data:T", "transposed:T", "perm:is"},
	{"Trilu", 14, "input:T k:tensor(int64)?", "output:T", "upper:i=1"},
	{"Unique", 11,
	    "X:T",
	    "Y:T indices:tensor(int64)? inverse_indices:tensor(int64)? "
	    "counts:tensor(int64)?",
	    "axis:i sorted:i=1"},
	{"Unsqueeze", 13, "data:T axes:tensor(int64)", "expanded:T", ""},
	{"Unsqueeze", 21, "data:T axes:tensor(int64)", "expanded:T", ""},
	{"Unsqueeze", 23, "data:T axes:tensor(int64)", "expanded:T", ""},
	{"Where", 16, "condition:B X:T Y:T", "output:T", ""},
	{"Xor", 7, "A:T B:T", "C:T1", ""},
};

#define NROWS (sizeof rows / sizeof *rows)

const OpSchema *
opschema_rows(uint32_t *n)
{
	*n = NROWS;
	return rows;
}

const OpSchema *
opschema_find(const char *domain, const char *op, int opset)
{
	if (domain && *domain && strcmp(domain, "ai.onnx") != 0)
		return NULL;
	/* the first row of op */
	size_t lo = 0, hi = NROWS;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(rows[mid].op, op) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* its newest version that the opset includes */
	const OpSchema *best = NULL;
	for (size_t i = lo; i < NROWS && strcmp(rows[i].op, op) == 0; i++)
		if (rows[i].since <= opset)
			best = &rows[i];
	return best;
}

/* the next space-separated word of *p, or false at the end */
static bool
word(const char **p, const char **w, int *n)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (!*s)
		return false;
	const char *e = s;
	while (*e && *e != ' ')
		e++;
	*w = s;
	*n = (int)(e - s);
	*p = e;
	return true;
}

int
opschema_params(const char *text, OpParam *out)
{
	const char *w;
	int n, cnt = 0;
	while (word(&text, &w, &n)) {
		if (cnt == OPSCHEMA_MAX_PARAMS)
			BUG("opschema: too many parameters in '%s'", text);
		const char *colon = memchr(w, ':', (size_t)n);
		if (!colon)
			BUG("opschema: parameter '%.*s' has no type", n, w);
		OpParam *p = &out[cnt++];
		p->name = w;
		p->namelen = (int)(colon - w);
		p->type = colon + 1;
		p->typelen = (int)(w + n - p->type);
		p->opt = OPT_SINGLE;
		if (p->type[p->typelen - 1] == '?')
			p->opt = OPT_OPTIONAL;
		else if (p->type[p->typelen - 1] == '*')
			p->opt = OPT_VARIADIC;
		if (p->opt != OPT_SINGLE)
			p->typelen--;
	}
	return cnt;
}

static const struct {
	const char *code;
	OpAttrKind kind;
} attr_kinds[] = {
	{"i", OAK_INT}, {"f", OAK_FLOAT}, {"s", OAK_STRING},
	{"is", OAK_INTS}, {"fs", OAK_FLOATS}, {"ss", OAK_STRINGS},
	{"t", OAK_TENSOR}, {"g", OAK_GRAPH},
};

int
opschema_attrs(const OpSchema *s, OpAttr *out)
{
	const char *text = s->attrs, *w;
	int n, cnt = 0;
	while (word(&text, &w, &n)) {
		if (cnt == OPSCHEMA_MAX_PARAMS)
			BUG("opschema: too many attributes for %s", s->op);
		const char *colon = memchr(w, ':', (size_t)n);
		const char *eq = memchr(w, '=', (size_t)n);
		if (!colon || (eq && eq < colon))
			BUG("opschema: attribute '%.*s' of %s", n, w, s->op);
		OpAttr *a = &out[cnt++];
		memset(a, 0, sizeof *a);
		a->name = w;
		a->namelen = (int)(colon - w);
		const char *k = colon + 1, *ke = eq ? eq : w + n;
		size_t i;
		size_t kl = (size_t)(ke - k);
		for (i = 0; i < sizeof attr_kinds / sizeof *attr_kinds; i++)
			if (strlen(attr_kinds[i].code) == kl &&
			    memcmp(attr_kinds[i].code, k, kl) == 0)
				break;
		if (i == sizeof attr_kinds / sizeof *attr_kinds)
			BUG("opschema: attribute kind '%.*s' of %s",
			    (int)(ke - k), k, s->op);
		a->kind = attr_kinds[i].kind;
		if (!eq)
			continue;
		a->has_default = true;
		const char *v = eq + 1;
		int vlen = (int)(w + n - v);
		char buf[64];
		if (vlen >= (int)sizeof buf)
			BUG("opschema: default of %.*s", a->namelen, a->name);
		memcpy(buf, v, (size_t)vlen);
		buf[vlen] = 0;
		char *end;
		switch (a->kind) {
		case OAK_INT:
			a->i = strtoll(buf, &end, 10);
			break;
		case OAK_FLOAT:
			a->f = strtod(buf, &end);
			break;
		case OAK_STRING:
			a->s = v;
			a->slen = vlen;
			end = buf + vlen;
			break;
		default:
			BUG("opschema: list default for %.*s", a->namelen,
			    a->name);
		}
		if (*end)
			BUG("opschema: default '%s' of %.*s", buf, a->namelen,
			    a->name);
	}
	return cnt;
}

bool
opschema_is_constraint(const OpParam *p)
{
	return memchr(p->type, '(', (size_t)p->typelen) == NULL;
}

int
opschema_arg_counts(const OpSchema *s, uint32_t nin, int32_t *counts)
{
	OpParam p[OPSCHEMA_MAX_PARAMS];
	int np = opschema_params(s->inputs, p);
	uint32_t left = nin;
	for (int i = 0; i < np; i++) {
		if (p[i].opt == OPT_VARIADIC) {
			counts[i] = (int32_t)left;
			left = 0;
		} else {
			counts[i] = left > 0;
			left -= left > 0;
		}
	}
	return left ? -1 : np;
}

/* ------------------------------------------------------------ checking */

static int
min_args(const OpParam *p, int np)
{
	int n = 0;
	for (int i = 0; i < np; i++)
		if (p[i].opt != OPT_OPTIONAL)
			n = i + 1;
	return n;
}

static bool
kind_fits(OpAttrKind k, const Graph *g, const Arg *a)
{
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:
		return k == OAK_INT;
	case A_FLOAT:
		return k == OAK_FLOAT;
	case A_STR:
		return k == OAK_STRING;
	case A_TENSOR:
		return k == OAK_TENSOR;
	case A_GRAPH:
		return k == OAK_GRAPH;
	case A_LIST:
	case A_TUPLE:
		break;
	default:
		return false;
	}
	/* an empty list fits every list kind */
	const Arg *it = ir_items(g, a);
	bool ints = true, nums = true, strs = true;
	for (uint32_t i = 0; i < a->u.list.n; i++) {
		bool isint = it[i].kind == A_INT || it[i].kind == A_BOOL ||
		    it[i].kind == A_DTYPE;
		ints &= isint;
		nums &= isint || it[i].kind == A_FLOAT;
		strs &= it[i].kind == A_STR;
	}
	return (k == OAK_INTS && ints) || (k == OAK_FLOATS && nums) ||
	    (k == OAK_STRINGS && strs);
}

static int
check_node(Module *m, const Graph *g, NodeId id, int opset)
{
	const Node *n = ir_nodep(g, id);
	const char *op = ir_str(m, n->op), *dom = ir_str(m, n->domain);
	Loc at = n->loc;
	if (n->dialect != D_ONNX) {
		ir_error(m, at, "node %s is not an ONNX node", op);
		return -1;
	}
	const OpSchema *s = opschema_find(dom, op, opset);
	if (!s) {
		ir_error(m, at, "no schema for %s%s%s in opset %d", dom,
		    *dom ? "::" : "", op, opset);
		return -1;
	}
	OpParam in[OPSCHEMA_MAX_PARAMS], out[OPSCHEMA_MAX_PARAMS];
	int nin = opschema_params(s->inputs, in);
	int nout = opschema_params(s->outputs, out);
	uint32_t npos = ir_npos(g, id), ain = npos;
	while (ain > 0 && ir_arg(g, id, ain - 1)->kind == A_NONE)
		ain--;
	int rc = 0;
	bool invar = nin && in[nin - 1].opt == OPT_VARIADIC;
	bool outvar = nout && out[nout - 1].opt == OPT_VARIADIC;
	if (ain < (uint32_t)min_args(in, nin) ||
	    (!invar && ain > (uint32_t)nin)) {
		ir_error(m, at, "%s-%d takes %d to %d inputs, not %u", op,
		    s->since, min_args(in, nin), nin, ain);
		rc = -1;
	}
	if (n->nout < (uint32_t)min_args(out, nout) ||
	    (!outvar && n->nout > (uint32_t)nout)) {
		ir_error(m, at, "%s-%d gives %d to %d outputs, not %u", op,
		    s->since, min_args(out, nout), nout, n->nout);
		rc = -1;
	}
	OpAttr sa[OPSCHEMA_MAX_PARAMS];
	int na = opschema_attrs(s, sa);
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		const char *key = ir_str(m, a->key);
		int k;
		if (ir_is_capture(g, id, a))
			continue;
		for (k = 0; k < na; k++)
			if ((int)strlen(key) == sa[k].namelen &&
			    memcmp(key, sa[k].name, (size_t)sa[k].namelen) == 0)
				break;
		if (k == na) {
			ir_error(m, at, "%s-%d has no attribute '%s'", op,
			    s->since, key);
			rc = -1;
		} else if (!kind_fits(sa[k].kind, g, a)) {
			ir_error(m, at, "attribute '%s' of %s-%d has the wrong "
			    "kind", key, op, s->since);
			rc = -1;
		}
	}
	return rc;
}

int
opschema_check(Module *m, GraphId gid, int opset)
{
	const Graph *g = ir_graph(m, gid);
	int rc = 0;
	for (NodeId n = 1; n < g->nnodes; n++) {
		if (check_node(m, g, n, opset) < 0)
			rc = -1;
		const Node *p = ir_nodep(g, n);
		for (uint32_t i = 0; i < p->nargs; i++) {
			const Arg *a = ir_arg(g, n, i);
			if (a->kind == A_GRAPH && opschema_check(m, a->u.g,
			    opset) < 0)
				rc = -1;
		}
	}
	return rc;
}
