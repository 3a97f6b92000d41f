/* GL entry points the host stands in front of, so that framebuffer 0 of a
 * context whose current surface is a platform's direct-rendered window
 * means the platform's framebuffer object over the window's buffer: GL
 * renders straight into the allocation a consumer gets, with no copy at
 * eglSwapBuffers. With no such surface current they only forward.
 *
 * Only what names framebuffer 0 is covered: binding it, reading its
 * binding back, and the GL_BACK / GL_COLOR / GL_DEPTH / GL_STENCIL names
 * that only framebuffer 0 takes. docs/egl-platform.md lists what is not. */
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
#include <pthread.h>
#include <string.h>

#include "host.h"

static struct {
	PFNGLBINDFRAMEBUFFERPROC BindFramebuffer;
	PFNGLGETINTEGERVPROC GetIntegerv;
	PFNGLDRAWBUFFERSPROC DrawBuffers;
	PFNGLREADBUFFERPROC ReadBuffer;
	PFNGLINVALIDATEFRAMEBUFFERPROC InvalidateFramebuffer;
	PFNGLINVALIDATESUBFRAMEBUFFERPROC InvalidateSubFramebuffer;
	PFNGLDISCARDFRAMEBUFFEREXTPROC DiscardFramebufferEXT;
	PFNGLGETFRAMEBUFFERATTACHMENTPARAMETERIVPROC GetFramebufferAttachmentParameteriv;
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void load_real(void)
{
#define LOAD(name) real.name = (void *)host_real_gl("gl" #name)
	LOAD(BindFramebuffer);
	LOAD(GetIntegerv);
	LOAD(DrawBuffers);
	LOAD(ReadBuffer);
	LOAD(InvalidateFramebuffer);
	LOAD(InvalidateSubFramebuffer);
	LOAD(DiscardFramebufferEXT);
	LOAD(GetFramebufferAttachmentParameteriv);
#undef LOAD
}

/* The framebuffer object standing for 0 on this thread, or 0. */
static GLuint stand_in(void)
{
	pthread_once(&real_once, load_real);
	return host_current_default_framebuffer();
}

static GLuint bound(GLenum target)
{
	GLint binding = 0;
	real.GetIntegerv(target == GL_READ_FRAMEBUFFER ? GL_READ_FRAMEBUFFER_BINDING : GL_DRAW_FRAMEBUFFER_BINDING,
	                 &binding);
	return (GLuint)binding;
}

/* Framebuffer 0's attachment names, as a framebuffer object's. */
static GLenum attachment_of(GLenum name)
{
	switch (name) {
	case GL_BACK:
	case GL_COLOR:
		return GL_COLOR_ATTACHMENT0;
	case GL_DEPTH:
		return GL_DEPTH_ATTACHMENT;
	case GL_STENCIL:
		return GL_STENCIL_ATTACHMENT;
	default:
		return name;
	}
}

HOST_EXPORT void glBindFramebuffer(GLenum target, GLuint framebuffer)
{
	GLuint replacement = framebuffer == 0 ? stand_in() : 0;
	if (!real.BindFramebuffer)
		return;
	real.BindFramebuffer(target, replacement ? replacement : framebuffer);
}

HOST_EXPORT void glGetIntegerv(GLenum pname, GLint *data)
{
	GLuint replacement = stand_in();
	if (!real.GetIntegerv)
		return;
	real.GetIntegerv(pname, data);
	if (replacement && data && (pname == GL_DRAW_FRAMEBUFFER_BINDING || pname == GL_READ_FRAMEBUFFER_BINDING) &&
	    (GLuint)*data == replacement)
		*data = 0;
}

HOST_EXPORT void glDrawBuffers(GLsizei n, const GLenum *bufs)
{
	GLuint replacement = stand_in();
	if (!real.DrawBuffers)
		return;
	if (replacement && n == 1 && bufs && bufs[0] == GL_BACK && bound(GL_DRAW_FRAMEBUFFER) == replacement) {
		const GLenum attachment = GL_COLOR_ATTACHMENT0;
		real.DrawBuffers(1, &attachment);
		return;
	}
	real.DrawBuffers(n, bufs);
}

HOST_EXPORT void glReadBuffer(GLenum src)
{
	GLuint replacement = stand_in();
	if (!real.ReadBuffer)
		return;
	if (replacement && src == GL_BACK && bound(GL_READ_FRAMEBUFFER) == replacement)
		src = GL_COLOR_ATTACHMENT0;
	real.ReadBuffer(src);
}

#define MAX_ATTACHMENTS 16

/* Copies `attachments` with framebuffer 0's names translated when the
 * stand-in is bound to `target`; false when nothing needs translating. */
static bool translate_attachments(GLenum target, GLsizei count, const GLenum *attachments, GLenum *out)
{
	GLuint replacement = stand_in();
	if (!replacement || count <= 0 || count > MAX_ATTACHMENTS || !attachments || bound(target) != replacement)
		return false;
	for (GLsizei i = 0; i < count; i++)
		out[i] = attachment_of(attachments[i]);
	return true;
}

HOST_EXPORT void glInvalidateFramebuffer(GLenum target, GLsizei count, const GLenum *attachments)
{
	GLenum translated[MAX_ATTACHMENTS];
	bool changed = translate_attachments(target, count, attachments, translated);
	if (real.InvalidateFramebuffer)
		real.InvalidateFramebuffer(target, count, changed ? translated : attachments);
}

HOST_EXPORT void glInvalidateSubFramebuffer(GLenum target, GLsizei count, const GLenum *attachments, GLint x, GLint y,
                                            GLsizei width, GLsizei height)
{
	GLenum translated[MAX_ATTACHMENTS];
	bool changed = translate_attachments(target, count, attachments, translated);
	if (real.InvalidateSubFramebuffer)
		real.InvalidateSubFramebuffer(target, count, changed ? translated : attachments, x, y, width, height);
}

/* An extension entry point: reached through eglGetProcAddress only. */
static void discard_framebuffer(GLenum target, GLsizei count, const GLenum *attachments)
{
	GLenum translated[MAX_ATTACHMENTS];
	bool changed = translate_attachments(target, count, attachments, translated);
	if (real.DiscardFramebufferEXT)
		real.DiscardFramebufferEXT(target, count, changed ? translated : attachments);
}

HOST_EXPORT void glGetFramebufferAttachmentParameteriv(GLenum target, GLenum attachment, GLenum pname, GLint *params)
{
	GLuint replacement = stand_in();
	if (!real.GetFramebufferAttachmentParameteriv)
		return;
	if (replacement && bound(target == GL_FRAMEBUFFER ? GL_DRAW_FRAMEBUFFER : target) == replacement)
		attachment = attachment_of(attachment);
	real.GetFramebufferAttachmentParameteriv(target, attachment, pname, params);
}

void *host_gl_function(const char *name)
{
	static const struct {
		const char *name;
		void *function;
	} functions[] = {
		{"glBindFramebuffer", (void *)glBindFramebuffer},
		{"glGetIntegerv", (void *)glGetIntegerv},
		{"glDrawBuffers", (void *)glDrawBuffers},
		{"glReadBuffer", (void *)glReadBuffer},
		{"glInvalidateFramebuffer", (void *)glInvalidateFramebuffer},
		{"glInvalidateSubFramebuffer", (void *)glInvalidateSubFramebuffer},
		{"glDiscardFramebufferEXT", (void *)discard_framebuffer},
		{"glGetFramebufferAttachmentParameteriv", (void *)glGetFramebufferAttachmentParameteriv},
	};
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		if (strcmp(name, functions[i].name) == 0)
			return functions[i].function;
	}
	return NULL;
}
