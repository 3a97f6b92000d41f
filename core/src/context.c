#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_loader.h"
#include "context.h"

/* UDA_LOG names the most verbose level written to stderr, whatever the
 * application's own callback: a user chasing a refusal sees every step
 * without recompiling (as MESA_DEBUG or VK_LOADER_DEBUG do). */
static uda_log_level stderr_level_from_environment(void)
{
	const char *value = secure_getenv("UDA_LOG");
	if (!value || !value[0])
		return 0;
	static const char *const names[] = {"", "error", "warning", "info", "debug"};
	for (int level = UDA_LOG_ERROR; level <= UDA_LOG_DEBUG; level++) {
		if (strcmp(value, names[level]) == 0)
			return (uda_log_level)level;
	}
	return UDA_LOG_DEBUG; /* UDA_LOG=1 and the like: everything */
}

uda_result uda_context_create(const uda_context_create_info *info, uda_context **out_context)
{
	if (!out_context)
		return UDA_ERROR_INVALID_ARGUMENT;
	if (info && (info->type != UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO || info->next ||
	             (info->flags & ~UDA_CONTEXT_CREATE_NO_BACKENDS)))
		return UDA_ERROR_INVALID_ARGUMENT;
	if (info && (unsigned)info->log_level > UDA_LOG_DEBUG)
		return UDA_ERROR_INVALID_ARGUMENT;

	uda_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return UDA_ERROR_OUT_OF_MEMORY;
	ctx->log_level = UDA_LOG_WARNING;
	ctx->stderr_level = stderr_level_from_environment();
	if (info) {
		if (info->log_level)
			ctx->log_level = info->log_level;
		ctx->log_callback = info->log_callback;
		ctx->log_user_data = info->log_user_data;
	}
	if (pthread_mutex_init(&ctx->error_lock, NULL) != 0) {
		free(ctx);
		return UDA_ERROR_OUT_OF_MEMORY;
	}
	if (pthread_mutex_init(&ctx->device_lock, NULL) != 0) {
		pthread_mutex_destroy(&ctx->error_lock);
		free(ctx);
		return UDA_ERROR_OUT_OF_MEMORY;
	}
	if (pthread_mutex_init(&ctx->object_lock, NULL) != 0) {
		pthread_mutex_destroy(&ctx->device_lock);
		pthread_mutex_destroy(&ctx->error_lock);
		free(ctx);
		return UDA_ERROR_OUT_OF_MEMORY;
	}
	fault_injection_init(&ctx->faults);
	if (!info || !(info->flags & UDA_CONTEXT_CREATE_NO_BACKENDS))
		backend_loader_load_all(ctx);
	*out_context = ctx;
	return UDA_SUCCESS;
}

void uda_context_destroy(uda_context *ctx)
{
	if (!ctx)
		return;
	if (ctx->surfaces || ctx->allocations)
		uda_context_log(ctx, UDA_LOG_ERROR, "context destroyed with live %s: they are lost",
		                ctx->surfaces ? "surfaces" : "allocations");
	/* Reverse registration order, so a device registered on top of
	 * another (same backend module) goes first. */
	for (uint32_t i = ctx->device_count; i-- > 0;)
		uda_device_destroy(ctx->devices[i]);
	free(ctx->devices);
	/* After the devices: their destroy callbacks live in the modules. */
	backend_loader_unload_all(ctx);
	while (ctx->error_slots) {
		struct uda_error_slot *next = ctx->error_slots->next;
		free(ctx->error_slots);
		ctx->error_slots = next;
	}
	pthread_mutex_destroy(&ctx->object_lock);
	pthread_mutex_destroy(&ctx->device_lock);
	pthread_mutex_destroy(&ctx->error_lock);
	free(ctx);
}

/* A number unique to the calling thread for the life of the process:
 * unlike its pthread_t, never given to another thread after it exits. */
static uint64_t thread_token(void)
{
	static atomic_uint_least64_t next_token = 1;
	static _Thread_local uint64_t token;
	if (!token)
		token = atomic_fetch_add_explicit(&next_token, 1, memory_order_relaxed);
	return token;
}

/* The calling thread's slot, or NULL. Called with error_lock held. */
static struct uda_error_slot *find_slot(uda_context *ctx)
{
	pthread_t self = pthread_self();
	for (struct uda_error_slot *slot = ctx->error_slots; slot; slot = slot->next) {
		if (!pthread_equal(slot->thread, self))
			continue;
		uint64_t token = thread_token();
		if (slot->token != token) {
			/* An exited thread's ID, now ours: its message is not. */
			slot->token = token;
			slot->message[0] = '\0';
		}
		return slot;
	}
	return NULL;
}

uda_result uda_context_set_error(const uda_context *const_ctx, uda_result result, const char *format, ...)
{
	/* The error slots are the one piece of a context that read-only
	 * objects (lists) still write to. */
	uda_context *ctx = (uda_context *)const_ctx;
	if (!ctx || !format)
		return result;

	char message[UDA_ERROR_MESSAGE_SIZE];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);

	pthread_mutex_lock(&ctx->error_lock);
	struct uda_error_slot *slot = find_slot(ctx);
	if (!slot) {
		/* Out of memory here only loses the message, not the result. */
		slot = calloc(1, sizeof(*slot));
		if (slot) {
			slot->thread = pthread_self();
			slot->token = thread_token();
			slot->next = ctx->error_slots;
			ctx->error_slots = slot;
		}
	}
	pthread_mutex_unlock(&ctx->error_lock);
	if (slot)
		memcpy(slot->message, message, sizeof(message));

	uda_context_log(ctx, UDA_LOG_DEBUG, "%s: %s", uda_result_to_string(result), message);
	return result;
}

const char *uda_context_get_error(const uda_context *const_ctx)
{
	uda_context *ctx = (uda_context *)const_ctx;
	if (!ctx)
		return "";
	pthread_mutex_lock(&ctx->error_lock);
	struct uda_error_slot *slot = find_slot(ctx);
	const char *message = slot ? slot->message : "";
	pthread_mutex_unlock(&ctx->error_lock);
	return message;
}

void uda_context_log(const uda_context *ctx, uda_log_level level, const char *format, ...)
{
	if (!ctx || !format)
		return;
	const bool to_callback = ctx->log_callback && level <= ctx->log_level;
	const bool to_stderr = level <= ctx->stderr_level;
	if (!to_callback && !to_stderr)
		return;
	char message[1024];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	if (to_stderr)
		fprintf(stderr, "uda: %s\n", message);
	if (to_callback)
		ctx->log_callback(level, message, ctx->log_user_data);
}
