/* An EGL program that knows nothing of uda, linked against libEGL alone:
 * it prints what an eglinfo-style tool prints and renders one pixel. The
 * test runs it with and without libuda-egl-host preloaded and expects the
 * same output, apart from the one client extension the host adds. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <stdio.h>
#include <string.h>

static int probe_display(EGLDisplay display, const char *name)
{
	EGLint major = 0, minor = 0;
	if (!eglInitialize(display, &major, &minor)) {
		printf("%s: eglInitialize failed 0x%x\n", name, eglGetError());
		return 1;
	}
	printf("%s: EGL %d.%d\n", name, major, minor);
	printf("%s: vendor %s\n", name, eglQueryString(display, EGL_VENDOR));
	printf("%s: client APIs %s\n", name, eglQueryString(display, EGL_CLIENT_APIS));
	printf("%s: extensions %s\n", name, eglQueryString(display, EGL_EXTENSIONS));
	EGLint count = 0;
	eglGetConfigs(display, NULL, 0, &count);
	printf("%s: %d configs\n", name, count);

	const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
	                          EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
	EGLConfig config;
	if (!eglChooseConfig(display, attribs, &config, 1, &count) || count != 1) {
		printf("%s: no pbuffer config\n", name);
		return 1;
	}
	const EGLint size[] = {EGL_WIDTH, 4, EGL_HEIGHT, 4, EGL_NONE};
	EGLSurface surface = eglCreatePbufferSurface(display, config, size);
	eglBindAPI(EGL_OPENGL_ES_API);
	const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
	EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
	if (surface == EGL_NO_SURFACE || context == EGL_NO_CONTEXT || !eglMakeCurrent(display, surface, surface, context)) {
		printf("%s: no pbuffer context 0x%x\n", name, eglGetError());
		return 1;
	}
	printf("%s: current display matches %d, surface matches %d\n", name, eglGetCurrentDisplay() == display,
	       eglGetCurrentSurface(EGL_DRAW) == surface);
	printf("%s: GL %s\n", name, (const char *)glGetString(GL_VERSION));
	glClearColor(1.0f, 0.5f, 0.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	unsigned char pixel[4] = {0};
	glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
	printf("%s: pixel %u %u %u %u\n", name, pixel[0], pixel[1], pixel[2], pixel[3]);
	eglSwapBuffers(display, surface);
	printf("%s: error after swap 0x%x\n", name, eglGetError());
	/* An error path, as tools hit them. */
	EGLBoolean queried = eglQuerySurface(display, (EGLSurface)&count, EGL_WIDTH, &count);
	printf("%s: bad surface query %d error 0x%x\n", name, queried, eglGetError());
	eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroyContext(display, context);
	eglDestroySurface(display, surface);
	eglTerminate(display);
	return 0;
}

int main(void)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	printf("client extensions: %s\n", client ? client : "(none)");
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
	        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!get_platform_display) {
		printf("no eglGetPlatformDisplayEXT\n");
		return 1;
	}
	int failures = probe_display(get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL),
	                             "surfaceless");
	EGLDisplay unknown = eglGetPlatformDisplay(0x1234, NULL, NULL);
	printf("unknown platform: %p error 0x%x\n", (void *)unknown, eglGetError());
	return failures;
}
