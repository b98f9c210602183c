/* no_descriptor.c - a shared object that is not an onnxc plugin: it
 * exports a function but no onnxc_plugin descriptor. */
#include <onnxc/plugin.h>

ONNXC_PLUGIN_EXPORT int
not_an_onnxc_plugin(void)
{
	return 42;
}
