/* function_descriptor.c - a shared object whose onnxc_plugin symbol is a
 * function, not the descriptor: the loader must refuse it without reading
 * the code as a (misaligned) descriptor. */
#include <onnxc/plugin.h>

ONNXC_PLUGIN_EXPORT int
onnxc_plugin(void)
{
	return 42;
}
