package system

import (
	"os"
	"strings"
	"testing"
)

func TestParseDRMFdinfo(t *testing.T) {
	type mem struct{ local, nonLocal, total uint64 }
	for _, c := range []struct {
		name, in     string
		isDRM        bool
		err          string // a substring of the error; "" none
		driver, pdev string
		client       uint64
		engines      map[string]uint64 // busy ns
		capacity     map[string]uint64
		mem          *mem
	}{
		{name: "amdgpu capture", in: fixture(t, "amdgpu.fdinfo"), isDRM: true, driver: "amdgpu", pdev: "0000:04:00.0", client: 30,
			engines: map[string]uint64{"gfx": 39456116802},
			// drm-resident- wins over drm-memory- (which amdgpu writes
			// as the total): vram 544428 KiB local; gtt 22 MiB and cpu 0
			// system; totals from drm-total-.
			mem: &mem{544428 * kib, 22 << 20, 544428*kib + 22<<20}},
		{name: "i915 capture", in: fixture(t, "i915.fdinfo"), isDRM: true, driver: "i915", pdev: "0000:00:02.0", client: 39,
			engines:  map[string]uint64{"render": 346249, "copy": 0, "video": 0, "video-enhance": 0},
			capacity: map[string]uint64{"video": 2},
			mem:      &mem{0, 6044 * kib, 6044 * kib}},
		{name: "legacy memory keys only", in: "drm-driver:\tamdgpu\ndrm-client-id:\t3\ndrm-memory-vram:\t2 MiB\ndrm-memory-gtt: \t1024 KiB\ndrm-memory-cpu: \t0 KiB\n",
			isDRM: true, driver: "amdgpu", client: 3, engines: map[string]uint64{}, mem: &mem{2 << 20, 1 << 20, 3 << 20}},
		{name: "bytes without a unit, xe vram0", in: "drm-driver:\txe\ndrm-total-vram0:\t17179869184\ndrm-resident-vram0:\t4096\ndrm-total-gtt:\t8192\ndrm-resident-gtt:\t8192\n",
			isDRM: true, driver: "xe", engines: map[string]uint64{}, mem: &mem{4096, 8192, 17179869184 + 8192}},
		{name: "not a DRM descriptor", in: "pos:\t0\nflags:\t02100002\nmnt_id:\t26\n", engines: map[string]uint64{}},
		{name: "no drm-driver", in: "drm-client-id:\t5\ndrm-engine-gfx:\t5 ns\n", client: 5, engines: map[string]uint64{"gfx": 5}},
		{name: "engine not a number", in: "drm-driver:\ti915\ndrm-client-id:\t1\ndrm-engine-render:\tlots ns\n", isDRM: true, err: "line 3: drm-engine-render", driver: "i915", client: 1, engines: map[string]uint64{}},
		{name: "engine unit", in: "drm-driver:\ti915\ndrm-engine-render:\t5 us\n", isDRM: true, err: "line 2", driver: "i915", engines: map[string]uint64{}},
		{name: "memory unit", in: "drm-driver:\ti915\ndrm-total-system0:\t5 TiB\n", isDRM: true, err: "line 2", driver: "i915", engines: map[string]uint64{}},
		{name: "memory overflow", in: "drm-driver:\ti915\ndrm-total-system0:\t18014398509481984 GiB\n", isDRM: true, err: "overflows", driver: "i915", engines: map[string]uint64{}},
		{name: "no colon", in: "drm-driver:\ti915\ndrm-engine-render 5 ns\n", isDRM: true, err: "line 2", driver: "i915", engines: map[string]uint64{}},
		{name: "client id", in: "drm-driver:\ti915\ndrm-client-id:\t-1\n", isDRM: true, err: "line 2: drm-client-id", driver: "i915", engines: map[string]uint64{}},
		{name: "name with a space", in: "drm-driver:\ti915\ndrm-engine-a\tb:\t5 ns\n", isDRM: true, err: "bad name", driver: "i915", engines: map[string]uint64{}},
		{name: "frequencies and purgeable ignored", in: "drm-driver:\tpanthor\ndrm-maxfreq-panthor:\t1000000000 Hz\ndrm-curfreq-panthor:\t5 Hz\ndrm-purgeable-memory:\t5\ndrm-engine-panthor:\t7 ns\n",
			isDRM: true, driver: "panthor", engines: map[string]uint64{"panthor": 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d drmFdinfo
			isDRM, err := parseDRMFdinfo([]byte(c.in), &d)
			if isDRM != c.isDRM {
				t.Errorf("isDRM = %v", isDRM)
			}
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want one with %q", err, c.err)
			}
			if d.driver != c.driver || d.pdev != c.pdev || d.clientID != c.client {
				t.Errorf("driver %q pdev %q client %d", d.driver, d.pdev, d.clientID)
			}
			if len(d.engines) != len(c.engines) {
				t.Errorf("engines %+v, want %v", d.engines, c.engines)
			}
			for _, e := range d.engines {
				if w, ok := c.engines[e.name]; !ok || !e.hasNS || e.busyNS != w {
					t.Errorf("engine %+v, want %d", e, w)
				}
				if e.capacity != c.capacity[e.name] {
					t.Errorf("engine %s capacity %d, want %d", e.name, e.capacity, c.capacity[e.name])
				}
			}
			if c.mem != nil {
				l, nl, tot, ok := d.memory()
				if !ok || (mem{l, nl, tot}) != *c.mem {
					t.Errorf("memory local %d non-local %d total %d (%v), want %+v", l, nl, tot, ok, *c.mem)
				}
			}
		})
	}
}

func FuzzParseDRMFdinfo(f *testing.F) {
	for _, p := range []string{"testdata/gpu/amdgpu.fdinfo", "testdata/gpu/i915.fdinfo"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("drm-driver:\txe\ndrm-client-id:\t7\ndrm-cycles-rcs:\t100\ndrm-total-cycles-rcs:\t200\ndrm-engine-capacity-rcs:\t2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d drmFdinfo
		isDRM, _ := parseDRMFdinfo(b, &d)
		if isDRM != (d.driver != "") {
			t.Fatalf("isDRM %v with driver %q", isDRM, d.driver)
		}
		if len(d.engines) > maxDRMEngines || len(d.regions) > maxDRMRegions {
			t.Fatalf("%d engines, %d regions", len(d.engines), len(d.regions))
		}
		for _, e := range d.engines {
			if len(e.name) == 0 || len(e.name) > maxDRMNameLen || !drmNameOK([]byte(e.name)) {
				t.Fatalf("engine name %q", e.name)
			}
			if engineType(e.name) == "" {
				t.Fatalf("engine %q has no type", e.name)
			}
		}
		for _, r := range d.regions {
			if len(r.name) == 0 || len(r.name) > maxDRMNameLen || !drmNameOK([]byte(r.name)) {
				t.Fatalf("region name %q", r.name)
			}
			if r.total > 1<<63 || r.resident > 1<<63 || r.legacy > 1<<63 {
				t.Fatalf("region %+v past 2^63", r)
			}
		}
		d.memory()
	})
}
