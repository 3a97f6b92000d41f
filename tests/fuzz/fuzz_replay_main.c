/* Runs a libFuzzer target over files without libFuzzer, so compilers
 * without it (gcc) still replay the corpus and every crash reproducer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int replayed = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "cannot open %s\n", argv[i]);
			return 1;
		}
		uint8_t *data = NULL;
		size_t size = 0, capacity = 0;
		for (;;) {
			if (size == capacity) {
				capacity = capacity ? capacity * 2 : 4096;
				uint8_t *grown = realloc(data, capacity);
				if (!grown)
					return 1;
				data = grown;
			}
			size_t n = fread(data + size, 1, capacity - size, f);
			if (n == 0)
				break;
			size += n;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		replayed++;
	}
	printf("replayed %d inputs\n", replayed);
	return 0;
}
