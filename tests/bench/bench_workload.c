/* bench_workload.h: the benchmarks' GL frames. */
#include <stddef.h>

#include "bench_workload.h"

static GLuint compile(GLenum type, const char *source)
{
	GLuint shader = glCreateShader(type);
	glShaderSource(shader, 1, &source, NULL);
	glCompileShader(shader);
	GLint ok = 0;
	glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
	return ok ? shader : 0;
}

/* A full-screen triangle in one colour, blended: the heavy workload's
 * unit of fill. */
bool bench_workload_init(struct bench_workload *workload)
{
	static const char *vertex = "#version 300 es\n"
	                            "void main() {\n"
	                            "  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);\n"
	                            "  gl_Position = vec4(p, 0.0, 1.0);\n"
	                            "}\n";
	static const char *fragment = "#version 300 es\n"
	                              "precision mediump float;\n"
	                              "uniform vec4 colour;\n"
	                              "out vec4 result;\n"
	                              "void main() { result = colour * vec4(gl_FragCoord.xy / vec2(1920.0, 1080.0), 1.0, 1.0); }\n";
	GLuint vs = compile(GL_VERTEX_SHADER, vertex), fs = compile(GL_FRAGMENT_SHADER, fragment);
	if (!vs || !fs)
		return false;
	workload->program = glCreateProgram();
	glAttachShader(workload->program, vs);
	glAttachShader(workload->program, fs);
	glLinkProgram(workload->program);
	glDeleteShader(vs);
	glDeleteShader(fs);
	GLint ok = 0;
	glGetProgramiv(workload->program, GL_LINK_STATUS, &ok);
	workload->colour_location = glGetUniformLocation(workload->program, "colour");
	return ok;
}

void bench_workload_draw(const struct bench_workload *workload, unsigned frame, unsigned quads)
{
	glViewport(0, 0, BENCH_WIDTH, BENCH_HEIGHT);
	glClearColor((float)(frame % 7) / 7.0f, 0.25f, 0.5f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glEnable(GL_SCISSOR_TEST);
	for (unsigned bar = 0; bar < 4; bar++) {
		glScissor((GLint)((frame * 37 + bar * 400) % BENCH_WIDTH), 0, 64, BENCH_HEIGHT);
		glClearColor(1.0f, (float)bar / 4.0f, 0.0f, 1.0f);
		glClear(GL_COLOR_BUFFER_BIT);
	}
	glDisable(GL_SCISSOR_TEST);
	if (quads) {
		glUseProgram(workload->program);
		glEnable(GL_BLEND);
		glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
		for (unsigned q = 0; q < quads; q++) {
			glUniform4f(workload->colour_location, (float)q / (float)quads, 0.5f, (float)(frame % 3) / 3.0f, 0.2f);
			glDrawArrays(GL_TRIANGLES, 0, 3);
		}
		glDisable(GL_BLEND);
	}
}
