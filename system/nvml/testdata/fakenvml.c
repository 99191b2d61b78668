/*
 * A stand-in for libnvidia-ml.so.1, compiled by the tests of package nvml
 * (gcc -shared -fPIC) and loaded through the same loader as the real one.
 * Two devices; the structures are laid out as nvml.h declares them, so
 * the test checks the offsets the loader decodes. Values are chosen so
 * that every field differs.
 */
#include <string.h>

typedef int nvmlReturn_t;
typedef struct dev *nvmlDevice_t;
struct dev { int index; };
static struct dev devs[2] = {{0}, {1}};
static int inited;

typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t");

nvmlReturn_t nvmlInit_v2(void) { inited = 1; return 0; }
nvmlReturn_t nvmlShutdown(void) { inited = 0; return 0; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { if (!inited) return 1; *n = 2; return 0; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
	if (i > 1) return 2;
	*d = &devs[i];
	return 0;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) {
	memset(p, 0, sizeof *p);
	if (d->index == 0) {
		strcpy(p->busIdLegacy, "0000:01:00.0");
		strcpy(p->busId, "00000000:01:00.0");
		p->bus = 1;
	} else {
		strcpy(p->busId, "00000001:C1:00.0");
		p->domain = 1;
		p->bus = 0xc1;
	}
	p->pciDeviceId = 0x233010de;
	return 0;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
	if (d->index == 1) return 3; /* NOT_SUPPORTED */
	m->total = 85899345920ULL;
	m->free = 85899345920ULL - 1234567168ULL;
	m->used = 1234567168ULL;
	return 0;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) {
	u->gpu = 37 + d->index;
	u->memory = 11;
	return 0;
}
static nvmlReturn_t procs(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p, int compute) {
	unsigned int want = d->index == 0 ? (compute ? 2 : 1) : 0;
	if (*n < want) { *n = want; return 7; }
	*n = want;
	if (d->index != 0) return 0;
	if (compute) {
		p[0].pid = 4242; p[0].usedGpuMemory = 536870912ULL; p[0].gpuInstanceId = 0xffffffff; p[0].computeInstanceId = 0xffffffff;
		p[1].pid = 77; p[1].usedGpuMemory = ~0ULL; /* NVML_VALUE_NOT_AVAILABLE */
	} else {
		p[0].pid = 4242; p[0].usedGpuMemory = 1048576ULL;
	}
	return 0;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p) { return procs(d, n, p, 1); }
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p) { return procs(d, n, p, 0); }
