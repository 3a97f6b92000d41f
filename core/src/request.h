/* Validation of what callers ask for: assertions and usages. */
#ifndef UDA_REQUEST_H
#define UDA_REQUEST_H

#include <uda/uda.h>

uda_result uda_assertion_validate(const uda_context *ctx, const uda_assertion *assertion);
uda_result uda_usage_validate(const uda_context *ctx, const uda_usage *usage);

#endif
