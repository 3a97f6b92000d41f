#include <uda/uda.h>

const char *uda_result_to_string(uda_result result)
{
	switch (result) {
	case UDA_SUCCESS:
		return "UDA_SUCCESS";
	case UDA_ERROR_INVALID_ARGUMENT:
		return "UDA_ERROR_INVALID_ARGUMENT";
	case UDA_ERROR_OUT_OF_MEMORY:
		return "UDA_ERROR_OUT_OF_MEMORY";
	case UDA_ERROR_INVALID_DATA:
		return "UDA_ERROR_INVALID_DATA";
	case UDA_ERROR_UNSUPPORTED:
		return "UDA_ERROR_UNSUPPORTED";
	case UDA_ERROR_INCOMPATIBLE:
		return "UDA_ERROR_INCOMPATIBLE";
	case UDA_ERROR_NOT_FOUND:
		return "UDA_ERROR_NOT_FOUND";
	case UDA_ERROR_EXISTS:
		return "UDA_ERROR_EXISTS";
	case UDA_ERROR_OVERFLOW:
		return "UDA_ERROR_OVERFLOW";
	case UDA_ERROR_BUFFER_TOO_SMALL:
		return "UDA_ERROR_BUFFER_TOO_SMALL";
	case UDA_ERROR_BACKEND:
		return "UDA_ERROR_BACKEND";
	}
	return "UDA_ERROR_UNKNOWN";
}
