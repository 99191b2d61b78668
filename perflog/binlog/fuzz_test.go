package binlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/golden"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// FuzzOpen reads arbitrary bytes as a log: Read and every Sample, the
// listing, and appending must not panic, and what they report stays
// within what the bytes can hold. Every sample given stays as it was
// (a sample is a value).
func FuzzOpen(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(bytes.NewReader(data), int64(len(data)), "fuzz.plog")
		if err != nil {
			return
		}
		defer l.Close()
		if l.Len() > len(data)/minRecord {
			t.Fatalf("%d samples in %d bytes", l.Len(), len(data))
		}
		var given []perfdata.Block
		var read [][]byte // each sample's blocks' bytes when given
		for i := 0; i < l.Len(); i++ {
			s, err := l.Sample(context.Background(), nil)
			if err != nil {
				continue
			}
			for _, b := range s.Blocks {
				given = append(given, b)
				read = append(read, bytes.Clone(b.Bytes()))
				for it := b.Objects(); it.Next(); {
					_ = it.Object().InstanceCount()
				}
			}
			_ = l.Time(i)
		}
		for k, b := range given {
			if !bytes.Equal(b.Bytes(), read[k]) {
				t.Fatalf("block %d changed after it was given", k)
			}
		}
		if err := l.dump(io.Discard); err != nil {
			t.Fatal(err)
		}
		_ = l.Titles().Entries()
		_ = l.Location().String()
	})
}

// FuzzSample decodes arbitrary definitions and sample payloads, twice in a
// row (the second against the state the first left).
func FuzzSample(f *testing.F) {
	f.Fuzz(func(t *testing.T, defs, sample []byte) {
		d := newDecoder()
		if err := d.addDefs(defs); err != nil {
			return
		}
		last := 0
		for range 2 {
			s, err := d.sample(sample)
			if err != nil {
				return
			}
			n := 0
			for _, b := range s.Blocks {
				n += len(b.Bytes())
			}
			slack := 64 << 10
			if last == 0 {
				slack = 1 << 20
			}
			if limit := last + 256*len(sample) + slack; n > limit {
				t.Fatalf("%d bytes rebuilt from a payload of %d after %d", n, len(sample), last)
			}
			last = n
		}
	})
}

// TestFuzzCorpus writes the seed corpora of FuzzOpen and FuzzSample under
// -update (small logs: compressed and not, circular after wrapping, cut,
// with a gap; and the DEFS and SAMPLE payloads of one) and checks that they
// are there otherwise.
func TestFuzzCorpus(t *testing.T) {
	openDir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	sampleDir := filepath.Join("testdata", "fuzz", "FuzzSample")
	if !golden.Update() {
		for _, d := range []string{openDir, sampleDir} {
			es, err := os.ReadDir(d)
			if err != nil || len(es) < 2 {
				t.Fatalf("%s: %d seeds, %v (go test -update writes them)", d, len(es), err)
			}
		}
		return
	}
	live := liveSamples(t, 4, 12)
	dir := t.TempDir()
	logs := map[string][]byte{}
	mk := func(name string, opts Options, samples []*pdh.Sample, gap bool) []byte {
		p := filepath.Join(dir, name)
		w, err := Create(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range samples {
			if gap && i == 1 {
				if err := w.WriteGap(s.Time, "stopped"); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.WriteSample(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	logs["plain"] = mk("plain", Options{Location: time.UTC, Counters: []string{`\Memory\Available Bytes`}}, live, true)
	logs["zstd"] = mk("zstd", Options{Compress: true, Location: time.UTC}, live, false)
	var ring []*pdh.Sample
	for i := range 80 {
		ring = append(ring, at(live[i%len(live)], i))
	}
	logs["circular"] = mk("circular", Options{Mode: Circular, MaxSize: minCircular, Location: time.UTC}, ring, false)
	logs["cut"] = logs["plain"][:len(logs["plain"])*2/3]
	logs["empty"] = mk("empty", Options{Host: "h", Location: time.UTC}, nil, false)
	for name, b := range logs {
		writeSeed(t, filepath.Join(openDir, name), b)
	}
	// The DEFS and first two SAMPLE payloads of the plain log.
	l, err := Read(bytes.NewReader(logs["plain"]), int64(len(logs["plain"])), "plain")
	if err != nil {
		t.Fatal(err)
	}
	var defs []byte
	var samples [][]byte
	for i := range l.sc.records {
		f := &l.sc.records[i]
		b, err := l.payload(f)
		if err != nil {
			t.Fatal(err)
		}
		switch f.kind {
		case KindDefs:
			defs = bytes.Clone(b)
		case KindSample:
			samples = append(samples, bytes.Clone(b))
		}
	}
	for i, s := range samples[:2] {
		writeSeed(t, filepath.Join(sampleDir, fmt.Sprintf("sample%d", i)), defs, s)
	}
	writeSeed(t, filepath.Join(sampleDir, "nodefs"), binary.AppendUvarint(nil, 0), samples[0])
}

// writeSeed writes a corpus file in go's fuzz format.
func writeSeed(t *testing.T, path string, args ...[]byte) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		fmt.Fprintf(&b, "[]byte(%q)\n", a)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzRoundTrip writes any block that perfdata.Parse accepts (twice, as
// two samples, the second with one byte changed) and reads it back: the
// blocks must come back byte for byte, whatever their layout.
func FuzzRoundTrip(f *testing.F) {
	f.Fuzz(func(t *testing.T, block []byte, at uint16, val byte) {
		s1, err := pdh.NewSample([][]byte{block})
		if err != nil {
			return
		}
		b2 := bytes.Clone(block)
		b2[int(at)%len(b2)] = val
		s2, err := pdh.NewSample([][]byte{b2, block})
		if err != nil {
			s2 = s1
		}
		// The blocks are what is tested: the times are set apart from
		// them (TestStamps tests times).
		s1.Time, s2.Time = time.Unix(1e9, 0), time.Unix(1e9+1, 0)
		path := filepath.Join(t.TempDir(), "x.plog")
		w, err := Create(path, Options{Location: time.UTC, Compress: at%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*pdh.Sample{s1, s2, s1} {
			if err := w.WriteSample(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		_, got := readAll(t, path)
		for i, want := range []*pdh.Sample{s1, s2, s1} {
			if d := sameSample(got[i], want); d != "" {
				t.Fatalf("sample %d: %s", i, d)
			}
		}
	})
}
