/* check_rows.h - a checker file's rows of ir/checks.def as LwcRule
 * initializers.  A check_<file>.c defines
 *	#define LWC_FILE_<file> LW_THIS
 * and includes this file inside its table's braces: its own rows become
 * {op, rule}, the others nothing, so each rule stays static in its file.
 * No include guard: each checker file includes it once, at its table. */
#define CHECK(op, file, rule) LW_PICK(LWC_FILE_##file, op, rule)
#include "../ir/checks.def"
#undef CHECK
