package binlog

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
)

// TestPreviousSampleDictionary: samples of 2,000 processes are compressed
// with the previous sample as dictionary after the first, and read back
// byte for byte.
func TestPreviousSampleDictionary(t *testing.T) {
	samples := liveSamplesN(t, 8, 7, 2000)
	dir := t.TempDir()
	with := filepath.Join(dir, "with.plog")
	writeLog(t, with, DefaultOptions(), samples)
	l, err := Open(with)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dict := 0
	for i := range l.sc.records {
		if f := &l.sc.records[i]; f.kind == KindSample && f.flags&flagPrevDict != 0 {
			dict++
		}
	}
	if dict != len(samples)-1 {
		t.Errorf("%d of %d samples compressed with the previous one as dictionary, want all but the first", dict, len(samples))
	}
	for i, want := range samples {
		got, err := l.Sample(context.Background(), nil)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		for k := range want.Blocks {
			if !bytes.Equal(got.Blocks[k].Bytes(), want.Blocks[k].Bytes()) {
				t.Fatalf("sample %d block %d differs", i, k)
			}
		}
	}
}
