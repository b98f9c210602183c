/* lower_index.h - what the lower_index*.c rule files share; private to
 * them. */
#ifndef ONNXC_LOWER_INDEX_H
#define ONNXC_LOWER_INDEX_H

#include "lower.h"

enum {
	MAXCONST = 1 << 16, /* longest index list made a constant */
};

#endif
