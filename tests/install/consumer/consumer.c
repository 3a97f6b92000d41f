/* Links against an installed libuda and makes one real call. */
#include <stdio.h>
#include <uda/uda.h>

int main(void)
{
	uda_context *ctx;
	if (uda_context_create(NULL, &ctx) != UDA_SUCCESS)
		return 1;
	uda_format_info info;
	uda_result r = uda_format_get_info(0x34325258 /* XR24 */, &info);
	printf("uda %s: %s\n", UDA_VERSION_STRING, r == UDA_SUCCESS ? info.name : "?");
	uda_context_destroy(ctx);
	return r == UDA_SUCCESS ? 0 : 1;
}
